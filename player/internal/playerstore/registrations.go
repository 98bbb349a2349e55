package playerstore

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// savedRegistrations finds the registrations kept in the history files
// under a data root (see Registration), so that a player
// started again registers with its token, and so as itself. Files of every
// league are read: a player started again does not know its league's id
// before it registers.
//
// Each history file is read once, for its display name and registration
// only (a history of a big league is hundreds of kilobytes; its head holds
// them), and found
// again by the player's name, manager and endpoint: the players of a
// Store, which share one, together read every file once instead of each
// player reading all of them. A lookup lists the data root's players
// again, so that a player directory made since (by another process) is
// read too; a registration found is read again from its file before it
// is used, since another process may have registered that player again
// since; and the registrations the store's own players save are noted
// as they are saved. When several files hold a registration of the same
// name, manager and endpoint (one of an earlier league), the one saved
// last is used.
type savedRegistrations struct {
	root string // the data root

	mu sync.Mutex
	// files holds, for each player directory whose history file was
	// read, the registration the file holds (the zero regKey: none).
	files map[string]regKey
}

// regKey is what finds a saved registration: the player's display name,
// its manager's endpoint and its own contact endpoint.
type regKey struct{ name, league, endpoint string }

// token returns the token of the registration saved under the data root
// for the player called name with the manager at league from endpoint, or
// "" when there is none.
func (r *savedRegistrations) token(name, league, endpoint string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil {
		r.files = map[string]regKey{}
	}
	players := filepath.Join(r.root, "data", "players")
	for _, dir := range historyDirs(players) {
		if _, read := r.files[dir]; read {
			continue
		}
		saved, err := readRegistration(filepath.Join(players, dir, "history.json"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // made, not yet written: read it next time
		}
		r.files[dir] = saved.key
	}
	want := regKey{name, league, endpoint}
	var holders []string
	for dir, key := range r.files {
		if key == want {
			holders = append(holders, dir)
		}
	}
	slices.Sort(holders) // of files saved at the same time, the first in path order
	var token string
	var savedAt time.Time
	for _, dir := range holders {
		saved, err := readRegistration(filepath.Join(players, dir, "history.json"))
		switch {
		case err != nil:
			delete(r.files, dir) // gone or unreadable now: read it again when it is back
		case saved.key != want:
			r.files[dir] = saved.key
		case token == "" || saved.at.After(savedAt):
			token, savedAt = saved.reg.AuthToken, saved.at
		}
	}
	return token
}

// historyDirs returns the directories under players (data/players) that
// may hold a history file, relative to it: <league>/<player_id>, and the
// <player_id> of the layout of earlier versions.
func historyDirs(players string) []string {
	journal := filepath.Base(journalDir(""))
	entries, _ := os.ReadDir(players)
	var out []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == journal {
			continue
		}
		if _, err := os.Stat(filepath.Join(players, e.Name(), "history.json")); err == nil {
			out = append(out, e.Name()) // an earlier version's data/players/<player_id>
		}
		inner, _ := os.ReadDir(filepath.Join(players, e.Name()))
		for _, p := range inner {
			if p.IsDir() {
				out = append(out, filepath.Join(e.Name(), p.Name()))
			}
		}
	}
	return out
}

// note records that the history file at path (under the data root) now
// holds reg, saved by a player called name.
func (r *savedRegistrations) note(path, name string, reg Registration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.files == nil { // nothing was read yet: the first lookup reads the file
		return
	}
	if dir, err := filepath.Rel(filepath.Join(r.root, "data", "players"), filepath.Dir(path)); err == nil {
		r.files[dir] = regKey{name, reg.League, reg.Endpoint}
	}
}

// savedRegistration is what a history file says of its player's
// registration, and when it was written.
type savedRegistration struct {
	key regKey
	reg *Registration // nil when the file holds none
	at  time.Time
}

// readRegistration reads the display name and the registration of the
// history file at path. They come before the file's matches, so only the
// file's head is read (files of earlier versions, which wrote the
// registration last, are read to it). A file that is not a history file
// reads as one without a registration.
func readRegistration(path string) (savedRegistration, error) {
	f, err := os.Open(path)
	if err != nil {
		return savedRegistration{}, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return savedRegistration{}, err
	}
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return savedRegistration{}, nil
	}
	var name string
	var reg *Registration
	for reg == nil && dec.More() {
		t, err := dec.Token()
		if err != nil {
			return savedRegistration{}, nil
		}
		switch t {
		case "display_name":
			err = dec.Decode(&name)
		case "registration":
			err = dec.Decode(&reg)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return savedRegistration{}, nil
		}
	}
	if reg == nil {
		return savedRegistration{}, nil
	}
	return savedRegistration{key: regKey{name, reg.League, reg.Endpoint}, reg: reg, at: info.ModTime()}, nil
}
