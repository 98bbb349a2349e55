package player

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
)

// A table read from a message has the rows of the array, byte for byte,
// and holding finds what a row by row search finds: a needle across two
// rows belongs to neither.
func TestHoldingFindsWhatARowByRowSearchFinds(t *testing.T) {
	msg := []byte(`{"standings":[`)
	var want [][]byte
	for i := range 60 {
		if i > 0 {
			msg = append(msg, ", "...)
		}
		row := fmt.Appendf(nil, `{"player_id":"P%02d","display_name":"P%02d P%02d"}`, i, i%7, (i*3)%11)
		want = append(want, row)
		msg = append(msg, row...)
	}
	msg = append(msg, `]}`...)
	u := new(standingsUpdate)
	if err := json.Unmarshal(msg, u); err != nil {
		t.Fatal(err)
	}
	table := u.Standings
	if len(table) != 60 {
		t.Fatalf("%d rows, want 60", len(table))
	}
	for i, w := range want {
		if got := table[i]; !bytes.Equal(got, w) {
			t.Fatalf("row %d = %s, want %s", i, got, w)
		}
	}
	for _, needle := range []string{`"P03"`, `P03`, `P0`, `"}, {"`, `player_id`, `P99`, `}`, `{"player_id":"P59"`} {
		var each []int
		for i, w := range want {
			if bytes.Contains(w, []byte(needle)) {
				each = append(each, i)
			}
		}
		if got := table.holding([]byte(needle)); !slices.Equal(got, each) {
			t.Errorf("holding(%s) = %v, row by row %v", needle, got, each)
		}
	}
	if row, ok := table.standing("P07"); !ok || row.PlayerID != "P07" || row.DisplayName != "P00 P10" {
		t.Errorf("standing(P07) = %+v, %v", row, ok)
	}
	if _, ok := table.standing("P60"); ok {
		t.Error("standing(P60) found a row")
	}
}

// A message naming its table twice keeps the last one, as encoding/json
// does, and an empty or absent table has no rows.
func TestTableNamedTwiceKeepsTheLast(t *testing.T) {
	u := new(standingsUpdate)
	msg := `{"standings":[{"player_id":"P01"},{"player_id":"P02"}],"league_id":"L","Standings":[ {"player_id":"P03"} ]}`
	if err := json.Unmarshal([]byte(msg), u); err != nil {
		t.Fatal(err)
	}
	if len(u.Standings) != 1 || string(u.Standings[0]) != `{"player_id":"P03"}` || u.LeagueID != "L" {
		t.Errorf("table %s (%d rows), league %q; want the last table, one row", u.Standings, len(u.Standings), u.LeagueID)
	}
	for _, msg := range []string{`{"standings":[]}`, `{"standings":null}`, `{"league_id":"L"}`} {
		u := new(standingsUpdate)
		if err := json.Unmarshal([]byte(msg), u); err != nil {
			t.Fatal(err)
		}
		if len(u.Standings) != 0 || u.Standings.rows() == nil {
			t.Errorf("%s: %d rows", msg, len(u.Standings))
		}
	}
}
