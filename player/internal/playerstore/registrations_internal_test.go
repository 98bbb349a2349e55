package playerstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeSavedHistory writes the history file of playerID under root as a
// player called name registered with reg would, with matches results
// before its registration; the file's time is set to at.
func writeSavedHistory(t testing.TB, root, playerID, name string, reg Registration, matches int, at time.Time) {
	t.Helper()
	f := historyFile[testRecord]{SchemaVersion: historySchemaVersion, PlayerID: playerID, DisplayName: name, Registration: &reg}
	for i := range matches {
		f.Matches = append(f.Matches, testRecord{LeagueID: "l", MatchID: fmt.Sprintf("R%dM1", i+1), OpponentID: "P99", Result: "WIN"})
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	path := historyPath(root, "l", playerID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// The saved registrations are found by name, manager and endpoint, and
// stay right as files come and change after the first lookup: a player
// directory made since is read, a registration changed since is read
// again before it is used, one noted by the store's own player is found,
// and of two files holding one registration the one saved last wins.
func TestSavedRegistrationsFollowTheirFiles(t *testing.T) {
	root := t.TempDir()
	const league = "http://127.0.0.1:8000/mcp"
	endpoint := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d/mcp", port) }
	t0 := time.Date(2025, 1, 15, 10, 0, 0, 0, time.UTC)
	writeSavedHistory(t, root, "P01", "Ada", Registration{League: league, Endpoint: endpoint(8101), AuthToken: "tok_ada_first"}, 500, t0)
	writeSavedHistory(t, root, "P02", "Bo", Registration{League: league, Endpoint: endpoint(8102), AuthToken: "tok_bo_first"}, 0, t0)
	if err := os.MkdirAll(journalDir(root), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &savedRegistrations{root: root}
	check := func(name string, port int, want string) {
		t.Helper()
		if got := r.token(name, league, endpoint(port)); got != want {
			t.Errorf("token(%s, %d) = %q, want %q", name, port, got, want)
		}
	}
	check("Ada", 8101, "tok_ada_first") // after 500 matches
	check("Bo", 8102, "tok_bo_first")
	check("Ada", 8102, "")
	check("Cy", 8103, "")

	// Another process registers Cy, and registers Bo again.
	writeSavedHistory(t, root, "P03", "Cy", Registration{League: league, Endpoint: endpoint(8103), AuthToken: "tok_cy"}, 0, t0)
	writeSavedHistory(t, root, "P02", "Bo", Registration{League: league, Endpoint: endpoint(8102), AuthToken: "tok_bo_again"}, 3, t0.Add(time.Minute))
	check("Cy", 8103, "tok_cy")
	check("Bo", 8102, "tok_bo_again")

	// Another process gives P01 to someone else: Ada's registration is gone.
	writeSavedHistory(t, root, "P01", "Dee", Registration{League: league, Endpoint: endpoint(8104), AuthToken: "tok_dee"}, 0, t0.Add(time.Minute))
	check("Ada", 8101, "")
	check("Dee", 8104, "tok_dee")

	// This store's player saves its registration over Cy's file: noted,
	// it is found although P03 was read already.
	writeSavedHistory(t, root, "P03", "Eve", Registration{League: league, Endpoint: endpoint(8105), AuthToken: "tok_eve"}, 0, t0.Add(time.Minute))
	r.note(historyPath(root, "l", "P03"), "Eve", Registration{League: league, Endpoint: endpoint(8105), AuthToken: "tok_eve"})
	check("Eve", 8105, "tok_eve")
	check("Cy", 8103, "")

	// Two files hold Fay's registration, an earlier league's and this
	// one's: the one saved last is used, whichever was read first.
	writeSavedHistory(t, root, "P05", "Fay", Registration{League: league, Endpoint: endpoint(8106), AuthToken: "tok_fay_now"}, 0, t0.Add(2*time.Hour))
	writeSavedHistory(t, root, "P04", "Fay", Registration{League: league, Endpoint: endpoint(8106), AuthToken: "tok_fay_earlier"}, 0, t0.Add(time.Hour))
	check("Fay", 8106, "tok_fay_now")
	if err := os.Remove(historyPath(root, "l", "P05")); err != nil {
		t.Fatal(err)
	}
	check("Fay", 8106, "tok_fay_earlier")
	writeSavedHistory(t, root, "P05", "Fay", Registration{League: league, Endpoint: endpoint(8106), AuthToken: "tok_fay_back"}, 0, t0.Add(3*time.Hour))
	check("Fay", 8106, "tok_fay_back")

	// A history file that is not one is passed over, newer as it is.
	if err := os.WriteFile(historyPath(root, "l", "P04"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("Fay", 8106, "tok_fay_back")
	if err := os.Remove(historyPath(root, "l", "P05")); err != nil {
		t.Fatal(err)
	}
	check("Fay", 8106, "")
}

// BenchmarkSavedRegistrations is the registration of 200 players on a
// data root that holds the 200 histories of an earlier league (199
// results each): the players sharing one store's registrations, and each
// player looking on its own (as players with their own data roots do).
//
//	go test ./player/internal/playerstore -run '^$' -bench SavedRegistrations -benchmem
func BenchmarkSavedRegistrations(b *testing.B) {
	const players = 200
	root := b.TempDir()
	const league = "http://127.0.0.1:8000/mcp"
	for i := range players {
		writeSavedHistory(b, root, fmt.Sprintf("P%03d", i+1), fmt.Sprintf("Player %d", i+1),
			Registration{League: league, Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", 9000+i), AuthToken: fmt.Sprintf("tok_earlier_%06d", i)},
			players-1, time.Now())
	}
	register := func(b *testing.B, regs func() *savedRegistrations) {
		for b.Loop() {
			shared := regs()
			for i := range players {
				r := shared
				if r == nil {
					r = &savedRegistrations{root: root}
				}
				if r.token(fmt.Sprintf("Player %d", i+1), league, fmt.Sprintf("http://127.0.0.1:%d/mcp", 9000+i)) == "" {
					b.Fatalf("player %d: no saved registration", i+1)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*players), "ns/registration")
	}
	b.Run("one-store", func(b *testing.B) { register(b, func() *savedRegistrations { return &savedRegistrations{root: root} }) })
	b.Run("each-player", func(b *testing.B) { register(b, func() *savedRegistrations { return nil }) })
}
