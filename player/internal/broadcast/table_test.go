package broadcast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"unsafe"

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

// A table is decoded into room made once, for as many rows as its text
// holds objects, whichever way it is read: the rows' headers of a
// 1000-row table are not allocated again and again as the slice doubles.
func TestTableIsDecodedIntoRoomMadeOnce(t *testing.T) {
	msg := []byte(`{"message_type":"LEAGUE_STANDINGS_UPDATE","league_id":"L","round_id":3,"standings":[`)
	for i := range 1000 {
		if i > 0 {
			msg = append(msg, ',')
		}
		msg = fmt.Appendf(msg, `{"rank":%d,"player_id":"P%04d","points":%d}`, i+1, i, 1000-i)
	}
	msg = append(msg, `]}`...)
	read := map[string]func(v any) error{
		"Unmarshal": func(v any) error { return wirejson.Unmarshal(msg, v) },
		"Next": func(v any) error {
			rest, err := wirejson.Next(append(slices.Clone(msg), `,"id":1}`...), v)
			if err == nil && string(rest) != `,"id":1}` {
				err = fmt.Errorf("text after the value %q", rest)
			}
			return err
		},
	}
	for name, f := range read {
		t.Run(name, func(t *testing.T) {
			u := new(StandingsUpdate)
			if err := f(u); err != nil {
				t.Fatal(err)
			}
			if len(u.Standings) != 1000 || cap(u.Standings) != 1001 {
				t.Fatalf("%d rows in room for %d, want 1000 in room for 1001 (the text's objects)", len(u.Standings), cap(u.Standings))
			}
			if row, ok := u.Standings.Standing("P0999"); !ok || row.Rank != 1000 || row.Points != 1 {
				t.Fatalf("row of P0999: %+v, %v", row, ok)
			}
		})
	}
	a := new(RoundAnnouncement)
	if err := wirejson.Unmarshal([]byte(`{"matches":[{"match_id":"R1M1"},{"match_id":"R1M2"}]}`), a); err != nil {
		t.Fatal(err)
	}
	if len(a.Matches) != 2 || cap(a.Matches) != 3 {
		t.Fatalf("%d matches in room for %d, want 2 in room for 3", len(a.Matches), cap(a.Matches))
	}
}

// A table kept after its message is its rows' text, one copy for every
// equal table: two players given the same table in two message bodies
// keep one string, and it reads as the table did.
func TestSharedTablesOfEqualTextAreOneCopy(t *testing.T) {
	body := func() []byte {
		return []byte(`{"standings":[{"rank":1,"player_id":"P01","points":3}, {"rank":2,"player_id":"P02","points":0},{"rank":3}]}`)
	}
	var kept [2]Shared
	for i := range kept {
		u := new(StandingsUpdate)
		if err := wirejson.Unmarshal(body(), u); err != nil {
			t.Fatal(err)
		}
		s, ok := u.Standings.Share()
		if !ok {
			t.Fatal("a table decoded from one message is not shared")
		}
		if got, want := s.Rows(), u.Standings.Rows(); !slices.Equal(got, want) || len(got) != 2 {
			t.Fatalf("shared rows %+v, the table's %+v", got, want)
		}
		kept[i] = s
	}
	if kept[0] != kept[1] || unsafe.StringData(kept[0].text.Value()) != unsafe.StringData(kept[1].text.Value()) {
		t.Fatal("two equal tables are kept as two copies")
	}
	other := new(StandingsUpdate)
	if err := wirejson.Unmarshal([]byte(`{"standings":[{"rank":1,"player_id":"P02"}]}`), other); err != nil {
		t.Fatal(err)
	}
	if s, _ := other.Standings.Share(); s == kept[0] || len(s.Rows()) != 1 || s.Rows()[0].PlayerID != "P02" {
		t.Fatalf("another table shares the first's copy, or reads %+v", s.Rows())
	}
	if _, ok := (Table{json.RawMessage(`{"player_id":"P01"}`), json.RawMessage(`{"player_id":"P02"}`)}).Share(); ok {
		t.Fatal("a table made row by row, not one span of a message, is shared")
	}
	if s, ok := (Table{}).Share(); !ok || len(s.Rows()) != 0 {
		t.Fatalf("an empty table: %v, %+v", ok, s.Rows())
	}
}

// LEAGUE_COMPLETED is read with its final standings as they came, into
// room made once; final standings that are not an array read as none.
func TestLeagueCompletedKeepsItsFinalStandingsAsTheyCame(t *testing.T) {
	var c LeagueCompleted
	msg := `{"message_type":"LEAGUE_COMPLETED","league_id":"L1","total_rounds":3,"champion":{"player_id":"P02","points":9},` +
		`"final_standings":[{"rank":1,"player_id":"P02","points":9},{"rank":2,"player_id":"P01","points":0}]}`
	if err := wirejson.Unmarshal([]byte(msg), &c); err != nil {
		t.Fatal(err)
	}
	if c.LeagueID != "L1" || c.TotalRounds != 3 || c.Champion == nil || c.Champion.PlayerID != "P02" ||
		len(c.FinalStandings) != 2 || cap(c.FinalStandings) != 4 {
		t.Fatalf("read %+v (room for %d rows)", c, cap(c.FinalStandings))
	}
	if row, ok := c.FinalStandings.Standing("P01"); !ok || row.Rank != 2 {
		t.Fatalf("row of P01: %+v, %v", row, ok)
	}
	var odd LeagueCompleted
	if err := wirejson.Unmarshal([]byte(`{"league_id":"L1","total_matches":6,"final_standings":{"P01":1}}`), &odd); err != nil {
		t.Fatal(err)
	}
	if odd.LeagueID != "L1" || odd.TotalMatches != 6 || len(odd.FinalStandings) != 0 {
		t.Fatalf("final standings not an array: read %+v", odd)
	}
}
