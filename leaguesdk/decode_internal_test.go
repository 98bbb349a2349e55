package leaguesdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The reference decodings below are this package's decodings as they were
// before decodeFast: encoding/json throughout. The fast decodings must give
// exactly what they give, errors included.

// refJoinAck is GameJoinAck.UnmarshalJSON by encoding/json alone.
func refJoinAck(a *GameJoinAck, b []byte) error {
	*a = GameJoinAck{noAccept: true}
	if !isObject(b) {
		return nil
	}
	type plain GameJoinAck
	w := struct {
		*plain
		Accept   json.RawMessage `json:"accept"`
		Accepted json.RawMessage `json:"accepted"`
	}{plain: (*plain)(a)}
	err := json.Unmarshal(b, &w)
	raw := w.Accept
	if raw == nil {
		raw = w.Accepted
	}
	a.noAccept, a.invalidAccept = false, ""
	switch {
	case isNull(raw):
		a.noAccept = true
	case strings.EqualFold(strings.Trim(string(raw), `"`), "true"):
		a.Accept = true
	case strings.EqualFold(strings.Trim(string(raw), `"`), "false"):
		a.Accept = false
	default:
		a.invalidAccept = string(raw)
	}
	return err
}

// refParity is ChooseParityResponse.UnmarshalJSON by encoding/json alone.
func refParity(r *ChooseParityResponse, b []byte) error {
	*r = ChooseParityResponse{noChoice: true}
	if !isObject(b) {
		return nil
	}
	type plain ChooseParityResponse
	if !refContainsFold(b, "move_data") && !bytes.Contains(b, []byte(`\u`)) {
		if json.Unmarshal(b, (*plain)(r)) == nil && r.ParityChoice != "" {
			r.noChoice = false
			return nil
		}
		*r = ChooseParityResponse{noChoice: true}
	}
	w := struct {
		*plain
		ParityChoice json.RawMessage `json:"parity_choice"`
		Choice       json.RawMessage `json:"choice"`
		MoveData     *struct {
			Choice json.RawMessage `json:"choice"`
		} `json:"move_data"`
	}{plain: (*plain)(r)}
	err := json.Unmarshal(b, &w)
	raw := w.ParityChoice
	if raw == nil {
		raw = w.Choice
	}
	if w.MoveData != nil && !isNull(w.MoveData.Choice) {
		raw = w.MoveData.Choice
	}
	r.noChoice = isNull(raw)
	if !r.noChoice {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(bytes.TrimSpace(raw))
		}
		r.ParityChoice = Parity(s)
	}
	return err
}

// refContainsFold is containsFold with a call at every byte.
func refContainsFold(b []byte, word string) bool {
	for i := 0; i+len(word) <= len(b); i++ {
		if strings.EqualFold(string(b[i:i+len(word)]), word) {
			return true
		}
	}
	return false
}

// refRoundID is RoundID.UnmarshalJSON with strconv.ParseFloat alone.
func refRoundID(r *RoundID, b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	if b[0] != '"' {
		n, err := strconv.ParseFloat(string(b), 64)
		if err != nil || n != float64(int(n)) {
			return fmt.Errorf("round_id: %s is not an integer", b)
		}
		*r = RoundID(int(n))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return fmt.Errorf("round_id: %q holds no round number", s)
	}
	*r = RoundID(n)
	return nil
}

// refOptional is OptionalString.UnmarshalJSON by encoding/json alone.
func refOptional(s *OptionalString, b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*s = ""
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = OptionalString(v)
	return nil
}

// refDecodeRenamed is decodeRenamed by encoding/json alone.
func refDecodeRenamed(raw []byte, v any) error {
	if len(raw) > 0 && raw[0] == '{' {
		switch x := v.(type) {
		case *GameJoinAck:
			return refJoinAck(x, raw)
		case *ChooseParityResponse:
			return refParity(x, raw)
		}
	}
	return refUnmarshal(raw, v)
}

// refUnmarshal is json.Unmarshal with the reference decodings of the
// tolerant types: encoding/json checks the text, then hands them the value
// without its white space, as it hands it to a json.RawMessage.
func refUnmarshal(raw []byte, v any) error {
	switch x := v.(type) {
	case *GameJoinAck:
		var m json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		return refJoinAck(x, m)
	case *ChooseParityResponse:
		var m json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		return refParity(x, m)
	}
	return json.Unmarshal(raw, v)
}

// tricky has what decodeFast must read as encoding/json does, or leave to
// it: pointers, maps, slices of structs, fields that decode themselves,
// embedded structs, small integers, names in another case.
type tricky struct {
	Envelope
	inner
	Small    int8                      `json:"small"`
	Big      int64                     `json:"big"`
	Flag     bool                      `json:"flag"`
	Ptr      *int                      `json:"ptr"`
	PtrS     *RoundSummary             `json:"ptr_s"`
	Round    *RoundID                  `json:"round"`
	Rows     []StandingRow             `json:"rows"`
	PtrRows  []*Champion               `json:"ptr_rows"`
	Records  map[string]PlayerRecord   `json:"records"`
	Nested   map[string]map[string]int `json:"nested"`
	Raw      json.RawMessage           `json:"raw"`
	Optional OptionalString            `json:"optional"`
	CamelKey string                    // named by its Go name
	Skipped  string                    `json:"-"`
	hidden   string                    //lint:ignore U1000 an unexported field, which is not decoded
}

type inner struct {
	InnerField string `json:"inner_field"`
}

// Types decodeFast leaves to encoding/json.
type (
	quoted struct {
		N int `json:"n,string"`
	}
	embedsPointer struct {
		*Envelope
		X string `json:"x"`
	}
	foldTwins struct {
		A string `json:"name"`
		B string `json:"NAME"`
	}
	shadowed struct {
		Envelope
		Sender int `json:"sender"`
	}
	withTime struct {
		At time.Time `json:"at"`
	}
	withFloat struct {
		F float64 `json:"f"`
	}
	withAny struct {
		V any `json:"v"`
	}
	recursive struct {
		Next *recursive `json:"next"`
	}
)

// decodeTargets returns every message type of the package (MessageTypes,
// NewMessage), with the other types its decodings read and the test types.
func decodeTargets() []reflect.Type {
	var ts []reflect.Type
	for _, mt := range MessageTypes() {
		ts = append(ts, reflect.TypeOf(NewMessage(mt)).Elem())
	}
	for _, v := range []any{joinAckFields{}, Envelope{}, StandingsData{}, ScheduleData{}, NextMatchData{}, PlayerStatsData{},
		tricky{}, quoted{}, embedsPointer{}, foldTwins{}, shadowed{}, withTime{}, withFloat{}, withAny{}, recursive{}} {
		ts = append(ts, reflect.TypeOf(v))
	}
	return ts
}

// decodeSeeds are the example messages of docs/message-examples and the
// inputs of TestDecodeFast.
func decodeSeeds(tb testing.TB) [][]byte {
	files, err := filepath.Glob("../docs/message-examples/*.json")
	if err != nil || len(files) == 0 {
		tb.Fatalf("no example messages: %v", err)
	}
	var seeds [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	for _, c := range decodeCases {
		seeds = append(seeds, []byte(c.in))
	}
	return seeds
}

// checkDecode decodes b into a fresh value of every target type by the
// package's decodings and by the reference ones and fails on any
// difference in value, error type or error text.
func checkDecode(t *testing.T, b []byte) {
	t.Helper()
	for _, typ := range decodeTargets() {
		for _, via := range []struct {
			name      string
			got, want func([]byte, any) error
		}{
			{"decodeRenamed", func(b []byte, v any) error { return decodeRenamed(b, v) }, refDecodeRenamed},
			{"json.Unmarshal", json.Unmarshal, refUnmarshal},
		} {
			got, want := reflect.New(typ), reflect.New(typ)
			gotErr := via.got(b, got.Interface())
			wantErr := via.want(b, want.Interface())
			if !sameError(gotErr, wantErr) {
				t.Fatalf("%s(%q) into %v: error %T %v, want %T %v", via.name, b, typ, gotErr, gotErr, wantErr, wantErr)
			}
			if !reflect.DeepEqual(got.Interface(), want.Interface()) {
				t.Fatalf("%s(%q) into %v:\n got %#v\nwant %#v", via.name, b, typ, got.Elem(), want.Elem())
			}
		}
		// decodeFast keeps its promise on its own: what encoding/json
		// gives when it answers, a zero value when it does not.
		v := reflect.New(typ)
		if decodeFast(b, v.Interface()) {
			want := reflect.New(typ)
			if err := refUnmarshal(b, want.Interface()); err != nil || !reflect.DeepEqual(v.Interface(), want.Interface()) {
				t.Fatalf("decodeFast(%q) into %v = %#v, encoding/json: %#v, %v", b, typ, v.Elem(), want.Elem(), err)
			}
		} else if !v.Elem().IsZero() {
			t.Fatalf("decodeFast(%q) into %v gave up and left %#v", b, typ, v.Elem())
		}
	}
	for _, w := range []string{"move_data", "k", "S", "_x"} {
		if got, want := containsFold(b, w), refContainsFold(b, w); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, want %v", b, w, got, want)
		}
	}
	var r1, r2 RoundID
	if e1, e2 := r1.UnmarshalJSON(b), refRoundID(&r2, b); !sameError(e1, e2) || r1 != r2 {
		t.Fatalf("RoundID.UnmarshalJSON(%q) = %d, %v; want %d, %v", b, r1, e1, r2, e2)
	}
	var o1, o2 OptionalString
	if e1, e2 := o1.UnmarshalJSON(b), refOptional(&o2, b); !sameError(e1, e2) || o1 != o2 {
		t.Fatalf("OptionalString.UnmarshalJSON(%q) = %q, %v; want %q, %v", b, o1, e1, o2, e2)
	}
}

func sameError(a, b error) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return a == nil || reflect.TypeOf(a) == reflect.TypeOf(b) && a.Error() == b.Error()
}

// decodeCases are inputs that take decodeFast's every path; fast tells
// whether decodeFast must answer them itself for the type named.
var decodeCases = []struct {
	in   string
	typ  any
	fast bool
}{
	// The profile's shapes, read without encoding/json.
	{`{"protocol":"league.v2","message_type":"CHOOSE_PARITY_CALL","sender":"referee:REF01","timestamp":"2025-01-15T10:15:30Z","conversation_id":"c","auth_token":"t","match_id":"R1M1","player_id":"P01","game_type":"even_odd","context":{"opponent_id":"P02","round_id":1,"your_standings":{"wins":1,"losses":0,"draws":2}},"deadline":"2025-01-15T10:15:35Z"}`, ChooseParityCall{}, true},
	{`{"message_type":"GAME_INVITATION","match_id":"R1M1","round_id":"ROUND_3","role_in_match":"PLAYER_A"}`, GameInvitation{}, true},
	{`{"message_type":"ROUND_COMPLETED","round_id":1,"next_round_id":null,"summary":{"wins":2}}`, RoundCompleted{}, true},
	{`{"message_type":"ROUND_COMPLETED","next_round_id":2,"summary":null}`, RoundCompleted{}, true},
	{`{"result":{"winner":null,"score":{"P01":1,"P02":1},"status":"DRAW","details":{"choices":{"P01":"even","P02":"odd"},"unresponsive":[]}}}`, MatchResultReport{}, true},
	{`{"standings":{"P01":{"wins":1},"P02":null},"shutdown_players":["P02",null,"P03"],"attempt":2}`, StartMatch{}, true},
	{`{"game_result":{"status":"WIN","winner_player_id":"P01","choices":{}}}`, GameOver{}, true},
	{`{"status":"OK","acknowledged":"GAME_OVER","unknown":{"a":[1,2,{"b":null}]}}`, Ack{}, true},
	{`{"MATCH_ID":"R1M1","Status":"ACCEPTED","reason":"x"}`, StartMatchResponse{}, true},
	{`{"match_id":"a","match_id":"b"}`, GameInvitation{}, true},
	{` {"match_id":"caf` + "\u00e9" + `"} `, GameInvitation{}, true},
	{`{"accept":"TRUE","match_id":"R1M1"}`, joinAckFields{}, true},
	{`{"state":{"a":1},"message_type":"STATE_RESPONSE"}`, StateResponse{}, true},
	{`{"small":-128,"big":-123456789012345678,"flag":false,"ptr":7,"ptr_s":{"wins":1},"round":"4","camelkey":"c","Skipped":"e","hidden":"f","inner_field":"g"}`, tricky{}, true},
	{`{"rows":[{"rank":1},{"rank":2}],"rows":[{"player_id":"x"}],"rows":[{},{}]}`, tricky{}, true},
	{`{"ptr_rows":[{"points":1},null],"records":{"a":{"wins":1}},"records":{"b":{}},"nested":{"x":{"y":1}},"raw":[1, 2]}`, tricky{}, true},
	{`{"ptr_s":{"wins":1},"ptr_s":{"draws":2},"round":null,"optional":null}`, tricky{}, true},
	{`{"rows":[],"records":{},"ptr_rows":null}`, tricky{}, true},
	// Left to encoding/json, which answers them.
	{`{"match_\u0069d":"R1M1"}`, GameInvitation{}, false},
	{`{"match_id":"a\u00e9\n"}`, GameInvitation{}, true}, // an escaped string value is unquoted on the side
	{`{"match_id":5}`, GameInvitation{}, false},
	{`{"match_id":"a",}`, GameInvitation{}, false},
	{`{"match_id":"a"} x`, GameInvitation{}, false},
	{`["match_id"]`, GameInvitation{}, false},
	{`null`, GameInvitation{}, false},
	{`{"matches_completed":1.0}`, RoundCompleted{}, false},
	{`{"matches_completed":1e2}`, RoundCompleted{}, false},
	{`{"matches_completed":99999999999999999999}`, RoundCompleted{}, false},
	{`{"small":128}`, tricky{}, false},
	{`{"flag":"true"}`, tricky{}, false},
	{`{"round":"ROUND"}`, tricky{}, false},
	{`{"round_id":1.5,"match_id":"x"}`, RoundCompleted{}, false},
	{`{"records":{"\u0061":{"wins":1}}}`, tricky{}, false},
	{"{\"records\":{\"\xff\":{}}}", tricky{}, false},
	{"{\"\xe2\x84\xaaey\":1}", tricky{}, false}, // the Kelvin sign folds to K
	{`{"summary":[1]}`, RoundCompleted{}, false},
	{`{"standings":[]}`, StartMatch{}, false},
	{`{"n":"5"}`, quoted{}, false},
	{`{"x":"a","sender":"s"}`, embedsPointer{}, false},
	{`{"name":"a"}`, foldTwins{}, false},
	{`{"sender":1}`, shadowed{}, false},
	{`{"at":"2025-01-15T10:15:30Z"}`, withTime{}, true}, // a field that decodes itself
	{`{"at":"x"}`, withTime{}, false},
	{`{"f":1.5}`, withFloat{}, false},
	{`{"v":[1]}`, withAny{}, false},
	{`{"next":{"next":null}}`, recursive{}, false},
	{`{"context":{"a":1}}`, LeagueError{}, false},
}

// TestDecodeFast checks every case against encoding/json, and that the
// fast path is taken, or not, where it must be.
func TestDecodeFast(t *testing.T) {
	for _, c := range decodeCases {
		checkDecode(t, []byte(c.in))
		v := reflect.New(reflect.TypeOf(c.typ))
		if got := decodeFast([]byte(c.in), v.Interface()); got != c.fast {
			t.Errorf("decodeFast(%q) into %T = %v, want %v", c.in, c.typ, got, c.fast)
		}
	}
	// The example message of every type the league sends most is read
	// without encoding/json.
	for _, mt := range []MessageType{MsgGameInvitation, MsgChooseParityCall, MsgGameOver, MsgRoundCompleted, MsgStartMatch,
		MsgStartMatchResponse, MsgMatchResultReport, MsgAck, MsgRoundAnnouncement, MsgLeagueStandingsUpdate} {
		b, err := os.ReadFile(filepath.Join("../docs/message-examples", string(mt)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !decodeFast(b, NewMessage(mt)) {
			t.Errorf("decodeFast does not read the example %s", mt)
		}
	}
	// A value that is not zero is left to encoding/json, which merges.
	v := &GameInvitation{PlayerID: "P01"}
	if decodeFast([]byte(`{"match_id":"R1M1"}`), v) || v.PlayerID != "P01" {
		t.Errorf("decodeFast decoded into a value that is not zero: %+v", v)
	}
}

// TestDecodeExamples checks the example messages against encoding/json.
func TestDecodeExamples(t *testing.T) {
	for _, b := range decodeSeeds(t) {
		checkDecode(t, b)
	}
}

// FuzzDecodeMatchesEncodingJSON decodes arbitrary text into every message
// type by the package's decodings (decodeFast, the tolerant types') and
// by encoding/json, and fails on any difference.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, s := range decodeSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecode(t, b)
	})
}

// BenchmarkDecode decodes three messages of the league's hot path by
// decodeFast (unmarshal) and by encoding/json.
func BenchmarkDecode(b *testing.B) {
	benchDecode(b, []MessageType{MsgChooseParityCall, MsgGameInvitation, MsgMatchResultReport},
		unmarshal, json.Unmarshal)
}

// BenchmarkDecodeTolerant decodes the players' two answers, as the referee
// reads them, by their UnmarshalJSON and by the reference decodings.
func BenchmarkDecodeTolerant(b *testing.B) {
	benchDecode(b, []MessageType{MsgGameJoinAck, MsgChooseParityResponse},
		func(b []byte, v any) error { return v.(json.Unmarshaler).UnmarshalJSON(b) }, refDecodeRenamed)
}

// benchDecode decodes the example message of each of types, compacted, by
// fast and by reference, as sub-benchmarks of each type.
func benchDecode(b *testing.B, types []MessageType, fast, reference func([]byte, any) error) {
	for _, mt := range types {
		raw, err := os.ReadFile(filepath.Join("../docs/message-examples", string(mt)+".json"))
		if err != nil {
			b.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil {
			b.Fatal(err)
		}
		raw = compact.Bytes()
		for _, path := range []struct {
			name string
			fn   func([]byte, any) error
		}{{"fast", fast}, {"encoding-json", reference}} {
			b.Run(string(mt)+"/"+path.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(raw)))
				for b.Loop() {
					if err := path.fn(raw, NewMessage(mt)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A field that decodes itself is decoded on the fast path only when its
// type is this package's or the standard library's: when it fails, the
// fallback to encoding/json calls it a second time.
func TestSelfDecodingKnown(t *testing.T) {
	for pkg, want := range map[string]bool{
		reflect.TypeFor[Envelope]().PkgPath():  true,
		"encoding/json":                        true,
		"time":                                 true,
		"github.com/agentleague/league/player": false,
		"github.com/google/uuid":               false,
		"example.com/game":                     false,
	} {
		if got := selfDecodingKnown(pkg); got != want {
			t.Errorf("selfDecodingKnown(%q) = %v, want %v", pkg, got, want)
		}
	}
}
