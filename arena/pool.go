package arena

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
)

// Pool is a pinned field of opponents, as a file names it: ready
// strategies with their parameters and seeds, players by URL, and seats
// of recorded leagues (for a comparison, see [CompareConfig].Recorded).
// Its [Pool.Hash] and its Seed go into every report and verdict played
// against it, so that a verdict reruns exactly:
//
//	{
//	  "name": "autumn field",
//	  "seed": 7,
//	  "opponents": [
//	    {"strategy": "history", "params": {"prior": 4}, "seed": 11},
//	    {"strategy": "leaning", "params": {"p_even": 0.7}, "seed": 12},
//	    {"strategy": "always_odd"},
//	    {"url": "http://127.0.0.1:8101/mcp", "name": "Rita"},
//	    {"league": {"data_root": "leagues/autumn", "seat": "P03"}}
//	  ]
//	}
type Pool struct {
	// Name names the pool in reports; default the file's base name.
	Name string `json:"name,omitempty"`
	// Seed is the seed of the runs against the pool (the drawn numbers,
	// and the opponents without a seed of their own); 0: the run's.
	Seed uint64 `json:"seed,omitempty"`
	// Opponents are the pool's entries, at least one.
	Opponents []PoolEntry `json:"opponents"`

	dir string // the file's folder, which relative data roots start from
}

// PoolEntry is one opponent of a [Pool]: set exactly one of Strategy,
// URL and League.
type PoolEntry struct {
	// Name labels the opponent; default the strategy's name or the URL.
	Name string `json:"name,omitempty"`
	// Strategy names a ready strategy: "random", "always_even",
	// "always_odd", "history" (parameter "prior", see
	// [strategies.NewOpponentModel]), "leaning" (parameter "p_even", see
	// [strategies.Leaning]), or another name the caller's resolver knows
	// (see [Pool.Entries]).
	Strategy string `json:"strategy,omitempty"`
	// Params are the strategy's parameters, by name.
	Params map[string]float64 `json:"params,omitempty"`
	// Seed seeds the opponent's random sources; 0: derived from the
	// run's seed and the opponent's place in the pool.
	Seed uint64 `json:"seed,omitempty"`
	// URL is a running player's /mcp endpoint.
	URL string `json:"url,omitempty"`
	// League is a seat of a finished league: its opponents' recorded
	// choices and numbers. A relative data root is read from the pool
	// file's folder.
	League *RecordedSeat `json:"league,omitempty"`
}

// PoolError is the error of a pool that cannot be read or used.
type PoolError struct {
	// Path is the pool's file, if it came from one.
	Path string
	// Problems says what is wrong, one sentence each.
	Problems []string
}

// Error lists the problems.
func (e *PoolError) Error() string {
	where := "pool"
	if e.Path != "" {
		where = "pool " + e.Path
	}
	return "arena: " + where + ": " + strings.Join(e.Problems, "; ")
}

// ReadPool reads a pool file (JSON, unknown members refused) and checks
// it.
func ReadPool(path string) (*Pool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Pool
	if err := dec.Decode(&p); err != nil {
		return nil, &PoolError{Path: path, Problems: []string{err.Error()}}
	}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	p.dir = filepath.Dir(path)
	if problems := p.check(); len(problems) > 0 {
		return nil, &PoolError{Path: path, Problems: problems}
	}
	return &p, nil
}

// params each ready strategy takes.
var poolParams = map[string][]string{"random": nil, "always_even": nil, "always_odd": nil, "history": {"prior"}, "leaning": {"p_even"}}

func (p *Pool) check() []string {
	var problems []string
	if len(p.Opponents) == 0 {
		problems = append(problems, "no opponents")
	}
	for i, o := range p.Opponents {
		set := 0
		for _, b := range []bool{o.Strategy != "", o.URL != "", o.League != nil} {
			if b {
				set++
			}
		}
		if set != 1 {
			problems = append(problems, fmt.Sprintf("opponent %d must set exactly one of strategy, url and league", i+1))
		}
		if o.League != nil && (o.League.DataRoot == "" || o.League.Seat == "") {
			problems = append(problems, fmt.Sprintf("opponent %d: a league needs its data_root and the seat", i+1))
		}
		if o.URL != "" && (len(o.Params) > 0 || o.Seed != 0) {
			problems = append(problems, fmt.Sprintf("opponent %d: a player at a URL takes no params or seed", i+1))
		}
		if known, ok := poolParams[o.Strategy]; ok {
			for k := range o.Params {
				if !slices.Contains(known, k) {
					problems = append(problems, fmt.Sprintf("opponent %d: %s takes no parameter %q", i+1, o.Strategy, k))
				}
			}
		}
	}
	return problems
}

// Hash returns the hex SHA-256 of the pool's canonical content: its JSON
// as this package writes it (members in a fixed order, parameters sorted
// by name, no spaces), so that the same pool hashes the same however its
// file is laid out; then, for each recorded league, the players, choices,
// numbers and scores of its matches, so that a league whose files changed
// hashes differently.
func (p *Pool) Hash() string {
	b, err := json.Marshal(p)
	if err != nil { // a Pool always marshals
		panic(err)
	}
	h := sha256.New()
	h.Write(b)
	for _, r := range p.Recorded() {
		l, err := readLeague(r.DataRoot, r.LeagueID)
		if err != nil {
			fmt.Fprintf(h, "\n%s: %v", r.Seat, err)
			continue
		}
		for _, t := range l.matches {
			line, _ := json.Marshal([]any{t.MatchID, t.RoundID, roles(t), t.Result.Choices, t.Result.DrawnNumber, t.Result.Score})
			h.Write([]byte("\n"))
			h.Write(line)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Recorded returns the pool's seats of recorded leagues, their data roots
// read from the pool file's folder when relative.
func (p *Pool) Recorded() []RecordedSeat {
	var out []RecordedSeat
	for _, o := range p.Opponents {
		if o.League == nil {
			continue
		}
		r := *o.League
		if !filepath.IsAbs(r.DataRoot) && p.dir != "" {
			r.DataRoot = filepath.Join(p.dir, r.DataRoot)
		}
		out = append(out, r)
	}
	return out
}

// Ref returns the pool's reference for reports.
func (p *Pool) Ref() *PoolRef { return &PoolRef{Name: p.Name, SHA256: p.Hash()} }

// Entries returns the pool's opponents as entries, but for the recorded
// leagues (see [Pool.Recorded]). resolve builds the strategies whose names
// the pool does not know itself (a model strategy, say); nil knows none.
func (p *Pool) Entries(resolve func(name string, r io.Reader) (player.Strategy, error)) ([]Entry, error) {
	if problems := p.check(); len(problems) > 0 {
		return nil, &PoolError{Problems: problems}
	}
	out := make([]Entry, 0, len(p.Opponents))
	for _, o := range p.Opponents {
		if o.League != nil {
			continue
		}
		if o.URL != "" {
			out = append(out, Entry{Name: o.Name, URL: o.URL})
			continue
		}
		name := o.Strategy
		if o.Name != "" {
			name = o.Name
		}
		params := o.Params
		var build func(io.Reader) (player.Strategy, error)
		switch o.Strategy {
		case "history":
			build = func(r io.Reader) (player.Strategy, error) {
				return strategies.NewOpponentModel(params["prior"], r), nil
			}
		case "leaning":
			pEven, ok := params["p_even"]
			if !ok {
				return nil, &PoolError{Problems: []string{fmt.Sprintf("%s: leaning needs the parameter p_even", name)}}
			}
			build = func(r io.Reader) (player.Strategy, error) { return strategies.Leaning(pEven, r), nil }
		default:
			s := o.Strategy
			if _, ok := poolParams[s]; ok {
				build = func(r io.Reader) (player.Strategy, error) { return strategies.ByName(s, r) }
			} else if len(params) > 0 {
				return nil, &PoolError{Problems: []string{fmt.Sprintf("%s: %q takes no parameters in a pool", name, s)}}
			} else if resolve != nil {
				build = func(r io.Reader) (player.Strategy, error) { return resolve(s, r) }
			} else {
				return nil, &PoolError{Problems: []string{fmt.Sprintf("%s: unknown strategy %q", name, s)}}
			}
		}
		out = append(out, Entry{Name: name, NewStrategy: build, Seed: o.Seed})
	}
	return out, nil
}
