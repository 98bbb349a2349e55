package playerstore

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testRecord is a match record as a player keeps it, in short.
type testRecord struct {
	MatchID    string `json:"match_id"`
	LeagueID   string `json:"league_id,omitempty"`
	OpponentID string `json:"opponent_id"`
	Result     string `json:"result"`
	Reason     string `json:"reason,omitempty"`
	Attempt    int    `json:"attempt,omitempty"`
}

var testKind = Kind[testRecord]{
	Key:     func(r *testRecord) (string, string) { return r.LeagueID, r.MatchID },
	Attempt: func(r *testRecord) int { return r.Attempt },
	Stats:   func(rs []testRecord) any { return map[string]int{"total_matches": len(rs)} },
}

// history.json is what json.MarshalIndent writes for the whole history,
// with a final newline, whatever the records hold.
func TestHistoryFileEncodesAsMarshalIndent(t *testing.T) {
	var matches []testRecord
	for i := range 5 {
		matches = append(matches, testRecord{MatchID: fmt.Sprintf("R%dM1", i+1), LeagueID: "L1",
			OpponentID: "P<2>&", Result: "WIN", Reason: "a \"quoted\" reason"})
	}
	f := historyFile[testRecord]{SchemaVersion: historySchemaVersion, LastUpdated: "2026-01-01T00:00:00Z", PlayerID: "P01",
		DisplayName: "Me", LeagueID: "L1", Manager: "http://m/mcp", Stats: testKind.Stats(matches),
		Registration: &Registration{League: "http://m/mcp", AuthToken: "tok_x"}}
	for n := range len(matches) + 1 {
		want := f
		want.Matches = matches[:n]
		if n == 0 {
			want.Matches = []testRecord{}
		}
		wantText, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.encode(matches[:n])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(wantText)+"\n" {
			t.Fatalf("%d records:\n%s\nwant:\n%s", n, got, wantText)
		}
	}
}

// A journal line is the record's members after the player's id (and the
// league's directory), as one object, and reads back as the record.
func TestJournalRecordHoldsThePlayerAndTheRecord(t *testing.T) {
	m := testRecord{MatchID: "R1M1", LeagueID: "L1", OpponentID: "P02", Result: "WIN", Attempt: 2}
	line, err := storeRecord{PlayerID: "P01", LeagueDir: "unnamed_x"}.encode(m)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"player_id":"P01","league_dir":"unnamed_x","match_id":"R1M1","league_id":"L1","opponent_id":"P02","result":"WIN","attempt":2}`
	if string(line) != want {
		t.Fatalf("journal line %s, want %s", line, want)
	}
	var back testRecord
	if err := json.Unmarshal(line, &back); err != nil || back != m {
		t.Fatalf("read back %+v (%v), want %+v", back, err, m)
	}
}

// A journal left by a crashed store is merged into the history files of
// its players: a missing result added, a later attempt replacing the
// earlier, a result the file holds not repeated.
func TestRecoverJournalMergesIntoHistoryFiles(t *testing.T) {
	root := t.TempDir()
	h := NewHistory(testKind, Hooks[testRecord]{})
	store, err := Open(root, testKind)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Open(store, root, "P01", "Ada", Registration{League: "http://m/mcp", LeagueID: "L1", AuthToken: "tok_a"}, time.Now); err != nil {
		t.Fatal(err)
	}
	for _, m := range []testRecord{{MatchID: "R1M1", LeagueID: "L1", Result: "WIN"}, {MatchID: "R2M1", LeagueID: "L1", Result: "LOSS"}} {
		if _, err := h.Add(m, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// The process dies: its journal stays, its lock is released.
	orphan := filepath.Join(journalDir(root), "crashed.jsonl")
	var data []byte
	for _, m := range []testRecord{{MatchID: "R1M1", LeagueID: "L1", Result: "WIN"},
		{MatchID: "R2M1", LeagueID: "L1", Result: "WIN", Attempt: 2}, {MatchID: "R3M1", LeagueID: "L1", Result: "DRAW"}} {
		line, err := storeRecord{PlayerID: "P01"}.encode(m)
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, line...), '\n')
	}
	if err := os.WriteFile(orphan, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := recoverJournal(root, orphan, testKind); err != nil {
		t.Fatal(err)
	}
	f, err := readHistory[testRecord](historyPath(root, "L1", "P01"))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(f.Matches); got != "[{R1M1 L1  WIN  0} {R2M1 L1  WIN  2} {R3M1 L1  DRAW  0}]" {
		t.Fatalf("history.json after the merge holds %s", got)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
}
