package json_test

import (
	"bytes"
	stdjson "encoding/json"
	"math"
	"testing"
	"time"

	"github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// encodeCases are values whose encodings must be encoding/json's, byte for
// byte: the files and records the agents write are read by people and by
// other programs, and compared with what was written before.
func encodeCases() map[string]any {
	at := time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("X", 3600))
	type inner struct {
		A string         `json:"a,omitempty"`
		B *int           `json:"b"`
		C []string       `json:"c"`
		D map[string]int `json:"d,omitempty"`
	}
	type record struct {
		Name  string             `json:"name"`
		At    time.Time          `json:"at"`
		Raw   stdjson.RawMessage `json:"raw"`
		Score map[string]int     `json:"score"`
		F     float64            `json:"f"`
		Small float64            `json:"small"`
		N     int64              `json:"n,string"`
		In    inner              `json:"in"`
		Any   any                `json:"any"`
		Skip  string             `json:"-"`
	}
	return map[string]any{
		"record": record{Name: "<b>Tom & \"Jerry\"</b>\u2028\t\x01é", At: at, Raw: stdjson.RawMessage(" { \"z\" : [1, 2 ,3] , \"a\":\"<\" } "),
			Score: map[string]int{"P10": 1, "P02": 3, "P01": 0}, F: 1e21, Small: 1e-7, N: math.MinInt64,
			In: inner{C: nil, D: map[string]int{}}, Any: []any{1.5, "x", nil, map[string]any{"b": true, "a": false}}},
		"result": leaguesdk.MatchResult{Winner: leaguesdk.OptionalString("P01"), Score: map[string]int{"P01": 3, "P02": 0},
			Details: leaguesdk.MatchDetails{DrawnNumber: 7, Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Odd, "P02": leaguesdk.Even}, Reason: "P01 chose odd"}},
		"rows":  []leaguesdk.StandingRow{{Rank: 1, PlayerID: "P01", Points: 9}, {Rank: 2, PlayerID: "P02"}},
		"empty": struct{}{},
		"nil":   nil,
	}
}

func TestEncodingIsEncodingJSONs(t *testing.T) {
	for name, v := range encodeCases() {
		want, err := stdjson.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := json.Marshal(v)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Marshal = %s, %v\nwant %s", name, got, err, want)
		}
		prefix := []byte("kept,")
		appended, err := json.Append(bytes.Clone(prefix), v)
		if err != nil || !bytes.Equal(appended, append(prefix, want...)) {
			t.Errorf("%s: Append = %s, %v", name, appended, err)
		}
		wantIndent, _ := stdjson.MarshalIndent(v, "  ", "\t")
		if got, err := json.MarshalIndent(v, "  ", "\t"); err != nil || !bytes.Equal(got, wantIndent) {
			t.Errorf("%s: MarshalIndent = %s, %v\nwant %s", name, got, err, wantIndent)
		}
		var dst bytes.Buffer
		dst.WriteString("before ")
		scratch := []byte("stale scratch")
		if _, err := json.AppendIndent(&dst, scratch, v, "  ", "\t"); err != nil || dst.String() != "before "+string(wantIndent) {
			t.Errorf("%s: AppendIndent = %s, %v", name, dst.Bytes(), err)
		}
	}
}

func TestEncodingRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for name, v := range map[string]any{"channel": make(chan int), "NaN": math.NaN(), "bad raw": stdjson.RawMessage("{")} {
		if _, err := stdjson.Marshal(v); err == nil {
			t.Fatalf("%s: encoding/json encodes it", name)
		}
		if b, err := json.Marshal(v); err == nil {
			t.Errorf("%s: Marshal = %s, want an error", name, b)
		}
	}
}
