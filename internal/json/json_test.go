package json_test

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentleague/league/internal/json"
)

type message struct {
	MessageType string               `json:"message_type"`
	LeagueID    string               `json:"league_id"`
	RoundID     int                  `json:"round_id"`
	Standings   []stdjson.RawMessage `json:"standings"`
}

type request struct {
	JSONRPC string             `json:"jsonrpc"`
	ID      stdjson.RawMessage `json:"id"`
	Method  *string            `json:"method"`
	Params  stdjson.RawMessage `json:"params"`
}

// tableRequest is an update_standings request with an n-row table.
func tableRequest(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":12,"method":"update_standings","params":{"protocol":"league.v2",` +
		`"message_type":"LEAGUE_STANDINGS_UPDATE","sender":"league_manager","league_id":"league_2026","round_id":5,"standings":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"rank":%d,"player_id":"P%04d","display_name":"Player \"%d\"","played":5,"wins":3,"points":10}`, i+1, i+1, i)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

// Unmarshal reads what encoding/json reads, and refuses what it refuses.
func TestUnmarshalAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		string(tableRequest(3)),
		`{"jsonrpc":"2.0","id":"a","method":null}`,
		`{"JSONRPC":"2.0","Method":"x"}`,
		`{"jsonrpc":"2.0","id":1} x`,
		`{"jsonrpc":2}`,
		`{"jsonrpc":"2.0",}`,
		`[1,2]`,
		``,
		`  {"params":{"a":[1,{"b":"\u00e9\"]"}]}}  `,
	} {
		var got, want request
		gotErr, wantErr := json.Unmarshal([]byte(in), &got), stdjson.Unmarshal([]byte(in), &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, encoding/json %v", in, gotErr, wantErr)
			continue
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, encoding/json %+v", in, got, want)
		}
	}
}

// Raw parts are slices of the input, not copies.
func TestRawMessagesAreSlicesOfTheInput(t *testing.T) {
	in := tableRequest(2)
	var r request
	if err := json.Unmarshal(in, &r); err != nil {
		t.Fatal(err)
	}
	var m message
	if err := json.Unmarshal(r.Params, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Standings) != 2 || !bytes.Contains(in, m.Standings[1]) {
		t.Fatalf("rows %q", m.Standings)
	}
	at := bytes.Index(in, m.Standings[0])
	if &in[at] != &m.Standings[0][0] {
		t.Error("a row is a copy of the input, not a slice of it")
	}
}

// An input nested deeper than MaxDepth is refused at once; brackets in
// strings do not count.
func TestDeepInputIsRefused(t *testing.T) {
	deep := append(bytes.Repeat([]byte("["), 1<<20), bytes.Repeat([]byte("]"), 1<<20)...)
	var v any
	if err := json.Unmarshal(deep, &v); err == nil {
		t.Fatal("a million nested arrays decoded")
	}
	ok := []byte(`{"a":"` + strings.Repeat("[", 5000) + `","b":[[[1]]]}`)
	if err := json.Unmarshal(ok, &v); err != nil {
		t.Fatalf("brackets inside a string refused: %v", err)
	}
	edge := append(bytes.Repeat([]byte("["), json.MaxDepth), bytes.Repeat([]byte("]"), json.MaxDepth)...)
	if err := json.Unmarshal(edge, &v); err != nil {
		t.Fatalf("%d levels refused: %v", json.MaxDepth, err)
	}
	over := append([]byte(`{"a":[`), edge...)
	over = append(over, `,{"b":1}]}`...)
	if err := json.Unmarshal(over, &v); err == nil {
		t.Fatalf("%d levels read", json.MaxDepth+2)
	}
}

// BenchmarkUnmarshalTable reads a request carrying a 1000-row standings
// table as the agents do (the request, then its message, the rows kept
// raw), with this package and with encoding/json.
func BenchmarkUnmarshalTable(b *testing.B) {
	in := tableRequest(1000)
	for _, c := range []struct {
		name      string
		unmarshal func([]byte, any) error
	}{{"internal-json", json.Unmarshal}, {"encoding-json", stdjson.Unmarshal}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				var r request
				if err := c.unmarshal(in, &r); err != nil {
					b.Fatal(err)
				}
				var m message
				if err := c.unmarshal(r.Params, &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzUnmarshalAgreesWithEncodingJSON holds the drop-in to encoding/json on
// what the agents read first of every request: its envelope.
func FuzzUnmarshalAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{
		string(tableRequest(2)),
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"x","params":[1,"a",{"b":null}]}`,
		`{"JSONRPC":"2.0","Method":"x","method":"y"}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"\u0070ing"}`,
		`{"jsonrpc":"2.0"} {}`,
		`[{"jsonrpc":"2.0"}]`,
		`{"params":"\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var got, want request
		gotErr, wantErr := json.Unmarshal(in, &got), stdjson.Unmarshal(in, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: error %v, encoding/json %v", in, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %+v, encoding/json %+v", in, got, want)
		}
	})
}
