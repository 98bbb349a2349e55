package broadcast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	wirejson "github.com/agentleague/league/internal/json"
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
	u := new(StandingsUpdate)
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
		if got := table.Holding([]byte(needle)); !slices.Equal(got, each) {
			t.Errorf("Holding(%s) = %v, row by row %v", needle, got, each)
		}
	}
	if row, ok := table.Standing("P07"); !ok || row.PlayerID != "P07" || row.DisplayName != "P00 P10" {
		t.Errorf("Standing(P07) = %+v, %v", row, ok)
	}
	if _, ok := table.Standing("P60"); ok {
		t.Error("Standing(P60) found a row")
	}
}

// A message naming its table twice keeps the last one, as encoding/json
// does, and an empty or absent table has no rows.
func TestTableNamedTwiceKeepsTheLast(t *testing.T) {
	u := new(StandingsUpdate)
	msg := `{"standings":[{"player_id":"P01"},{"player_id":"P02"}],"league_id":"L","Standings":[ {"player_id":"P03"} ]}`
	if err := json.Unmarshal([]byte(msg), u); err != nil {
		t.Fatal(err)
	}
	if len(u.Standings) != 1 || string(u.Standings[0]) != `{"player_id":"P03"}` || u.LeagueID != "L" {
		t.Errorf("table %s (%d rows), league %q; want the last table, one row", u.Standings, len(u.Standings), u.LeagueID)
	}
	for _, msg := range []string{`{"standings":[]}`, `{"standings":null}`, `{"league_id":"L"}`} {
		u := new(StandingsUpdate)
		if err := json.Unmarshal([]byte(msg), u); err != nil {
			t.Fatal(err)
		}
		if len(u.Standings) != 0 || u.Standings.Rows() == nil {
			t.Errorf("%s: %d rows", msg, len(u.Standings))
		}
	}
}

// holding finds the same rows whether the table lies in one message's
// body (searched at once) or in rows of their own (searched one by one).
func TestHoldingAgreesWithARowByRowSearch(t *testing.T) {
	body := []byte(`{"standings":[{"player_id":"P1"} , {"player_id":"P10","display_name":"P1"},7,"P1",` +
		`{"player_id":"P2"},{"x":"P1"}]}`)
	var decoded struct {
		Standings Table `json:"standings"`
	}
	if err := wirejson.Unmarshal(body, &decoded); err != nil {
		t.Fatal(err)
	}
	if _, ok := decoded.Standings.span(); !ok {
		t.Fatal("rows decoded from one body are not seen as one span")
	}
	var apart Table
	for _, row := range decoded.Standings {
		apart = append(apart, json.RawMessage(bytes.Clone(row)))
	}
	if _, ok := apart.span(); ok {
		t.Fatal("rows of their own are seen as one span")
	}
	for _, needle := range []string{`"P1"`, `"P10"`, `P1`, `},{`, `"P2"`, `"P3"`, `7`} {
		var want []int
		for i, row := range decoded.Standings {
			if bytes.Contains(row, []byte(needle)) {
				want = append(want, i)
			}
		}
		for name, table := range map[string]Table{"one body": decoded.Standings, "apart": apart} {
			if got := table.Holding([]byte(needle)); !slices.Equal(got, want) {
				t.Errorf("%s: Holding(%s) = %v, want %v", name, needle, got, want)
			}
		}
	}
	// A row that is a copy among slices of the body breaks the span.
	mixed := slices.Clone(decoded.Standings)
	mixed[2] = json.RawMessage(bytes.Clone(mixed[2]))
	if _, ok := mixed.span(); ok {
		t.Fatal("a table with a copied row is seen as one span")
	}
}
