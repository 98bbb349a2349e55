package player

import (
	"fmt"
	"slices"
	"testing"
)

// holding searches a table at once and finds the rows searching row by
// row finds, a needle across two rows belonging to neither.
func TestHoldingFindsWhatARowByRowSearchFinds(t *testing.T) {
	msg := []byte(`{"standings":[`)
	for i := range 60 {
		if i > 0 {
			msg = append(msg, ", "...)
		}
		msg = fmt.Appendf(msg, `{"player_id":"P%02d","display_name":"P%02d P%02d"}`, i, i%7, (i*3)%11)
	}
	msg = append(msg, `]}`...)
	var table rawTable
	u := new(standingsUpdate)
	if err := u.UnmarshalJSON(msg); err != nil {
		t.Fatal(err)
	}
	table = u.Standings
	if len(table) != 60 {
		t.Fatalf("%d rows, want 60", len(table))
	}
	for _, needle := range []string{`"P03"`, `P03`, `P0`, `"}, {"`, `player_id`, `P99`, `}`, `{"player_id":"P59"`} {
		got, want := table.holding([]byte(needle)), table.holdingEach([]byte(needle))
		if !slices.Equal(got, want) {
			t.Errorf("holding(%s) = %v, row by row %v", needle, got, want)
		}
	}
	// Rows not laid out as one message are searched one by one.
	odd := rawTable{[]byte(`{"player_id":"P01"}`), []byte(`{"player_id":"P02"}`)}
	if got := odd.holding([]byte(`P02`)); !slices.Equal(got, []int{1}) {
		t.Errorf("holding over separate rows = %v, want [1]", got)
	}
}

func TestHoldingOverRowsOfDifferentArrays(t *testing.T) {
	a := make([]byte, 0, 100)
	a = append(a, `{"player_id":"P01"}`...)
	b := []byte(`{"player_id":"P02"}`)
	if got := (rawTable{a, b}).holding([]byte(`P02`)); !slices.Equal(got, []int{1}) {
		t.Errorf("holding = %v, want [1]", got)
	}
}
