package player

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
)

// history.json is written from the records' encodings kept since the last
// rewrite: the file is byte for byte what json.MarshalIndent writes for
// the whole history, whichever records were encoded before.
func TestHistoryFileEncodesAsMarshalIndent(t *testing.T) {
	var matches []MatchRecord
	for i := range 5 {
		matches = append(matches, MatchRecord{MatchID: fmt.Sprintf("R%dM1", i+1), LeagueID: "L1", RoundID: i + 1,
			OpponentID: "P<2>&", Role: "PLAYER_A", Result: "WIN", MyChoice: "even", DrawnNumber: 4, Reason: "a \"quoted\" reason"})
	}
	f := historyFile{SchemaVersion: historySchemaVersion, LastUpdated: "2026-01-01T00:00:00Z", PlayerID: "P01",
		DisplayName: "Me", LeagueID: "L1", Manager: "http://m/mcp", Registration: &registration{League: "http://m/mcp", AuthToken: "tok_x"}}
	for n := range len(matches) + 1 {
		want := f
		want.Matches = matches[:n]
		if n == 0 {
			want.Matches = []MatchRecord{}
		}
		wantText, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		wantText = append(wantText, '\n')
		var cache [][]byte
		for known := range n + 1 {
			got, enc, err := f.encode(matches[:n], cache[:min(known, len(cache))])
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(wantText) {
				t.Fatalf("%d records (%d encoded before):\n%s\nwant:\n%s", n, known, got, wantText)
			}
			if len(enc) != n {
				t.Fatalf("%d encodings kept for %d records", len(enc), n)
			}
			cache = enc
		}
	}
}

// A player keeps the encodings of its records between rewrites only for a
// history short enough to be rewritten every round; the file is the same
// either way.
func TestHistoryEncodingsKeptForShortHistories(t *testing.T) {
	for _, n := range []int{encodedLimit, encodedLimit + 1} {
		path := filepath.Join(t.TempDir(), "history.json")
		s := &historyStore{path: path, id: "P01", league: "L1", now: time.Now}
		for i := range n {
			s.addLocked(MatchRecord{MatchID: fmt.Sprintf("R%dM1", i+1), LeagueID: "L1", OpponentID: "P02", Result: "WIN"})
		}
		if err := s.persist(time.Now()); err != nil {
			t.Fatal(err)
		}
		if kept := len(s.encoded); (n <= encodedLimit) != (kept == n) || n > encodedLimit && kept != 0 {
			t.Errorf("%d records: %d encodings kept", n, kept)
		}
		var f historyFile
		if err := atomicfile.ReadJSON(path, &f); err != nil || len(f.Matches) != n {
			t.Fatalf("%d records: the file holds %d (%v)", n, len(f.Matches), err)
		}
	}
}
