package manager

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestAssignmentsSurviveATornLine: assignments appended to the journal are
// read back in order by the next run; the torn last line of a crashed run
// is dropped, and the lines appended after it are read whole.
func TestAssignmentsSurviveATornLine(t *testing.T) {
	ctx := context.Background()
	s := store{root: t.TempDir(), league: "league_j"}
	j, as, err := s.openAssignments()
	if err != nil || len(as) != 0 {
		t.Fatalf("new journal: %v, %v", as, err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, a := range []assignment{{"R1M1", "REF01", 1, now}, {"R1M2", "REF02", 1, now}} {
		if err := j.Append(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	// A crash in the middle of an append.
	f, err := os.OpenFile(s.assignmentsPath(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"match_id":"R1M3","refe`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	if j, _, err = s.openAssignments(); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(ctx, assignment{"R1M2", "REF01", 2, now}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j, got, err := s.openAssignments()
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
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
