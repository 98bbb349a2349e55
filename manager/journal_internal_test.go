package manager

import (
	"os"
	"testing"
	"time"
)

// TestJournalSurvivesATornLine: assignments appended to the journal are
// read back in order; the torn last line of a crashed run is skipped, and
// the next run's lines after it are read whole.
func TestJournalSurvivesATornLine(t *testing.T) {
	s := store{root: t.TempDir(), league: "league_j"}
	j, err := openJournal(s.assignmentsPath())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, a := range []assignment{{"R1M1", "REF01", 1, now}, {"R1M2", "REF02", 1, now}} {
		if err := j.append(a); err != nil {
			t.Fatal(err)
		}
	}
	j.close()
	// A crash in the middle of an append.
	f, err := os.OpenFile(s.assignmentsPath(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"match_id":"R1M3","refe`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	j, err = openJournal(s.assignmentsPath())
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	if err := j.append(assignment{"R1M2", "REF01", 2, now}); err != nil {
		t.Fatal(err)
	}
	got, err := s.loadAssignments()
	if err != nil {
		t.Fatal(err)
	}
	want := []assignment{{"R1M1", "REF01", 1, now}, {"R1M2", "REF02", 1, now}, {"R1M2", "REF01", 2, now}}
	if len(got) != len(want) {
		t.Fatalf("read %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// BenchmarkJournalAppend measures the cost of making one assignment
// durable: one JSON line appended and flushed to disk. It does not grow
// with the number of assignments already in the journal.
func BenchmarkJournalAppend(b *testing.B) {
	s := store{root: b.TempDir(), league: "league_bench"}
	j, err := openJournal(s.assignmentsPath())
	if err != nil {
		b.Fatal(err)
	}
	defer j.close()
	now := time.Now().UTC()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := j.append(assignment{MatchID: "R1M1", RefereeID: "REF01", Attempt: i + 1, AssignedAt: now}); err != nil {
			b.Fatal(err)
		}
	}
}
