package leaguesdk

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The checks of validcheck.go must pass exactly the values validator finds
// nothing wrong with.

// ruleTypes has every rule and kind the checks are built for, beyond what
// the message types use.
type ruleTypes struct {
	ruleInner
	S    string            `validate:"min=2"`
	I    int               `validate:"omitempty,min=3"`
	U    uint8             `validate:"required"`
	B    bool              `validate:"required"`
	L    []string          `validate:"omitempty,min=2,dive,omitempty,utc"`
	M    map[string]int    `validate:"required"`
	P    *PlayerMeta       // descended into when not nil
	O    string            `validate:"omitempty,oneof=a b  c"`
	Rows []*ScheduledMatch `validate:"dive"`
	N    *int
	Skip string `validate:"-"`
	priv string //lint:ignore U1000 an unexported field, which validator skips
}

// ruleInner is embedded unexported: validator checks its fields all the same.
type ruleInner struct {
	X string `validate:"required,sender"`
}

// Types validator alone decides.
type (
	quotedOneOf struct {
		O string `validate:"oneof='a b' c"`
	}
	alternatives struct {
		O string `validate:"utc|parity"`
	}
	requiredPointer struct {
		P *string `validate:"required"`
	}
	requiredStruct struct {
		R RoundSummary `validate:"required"`
	}
	diveMap struct {
		M map[string]string `validate:"dive,required"`
	}
	interfaceField struct {
		V any
	}
	floatRule struct {
		F float64 `validate:"required"`
	}
)

// checkTargets are the types the checks are compared with validator on:
// every message type, the other types Validate is given, and the test
// types above.
func checkTargets() []reflect.Type {
	var ts []reflect.Type
	for _, mt := range MessageTypes() {
		ts = append(ts, reflect.TypeOf(NewMessage(mt)).Elem())
	}
	for _, v := range []any{ScheduledMatch{}, StandingsData{}, ScheduleData{}, NextMatchData{}, PlayerStatsData{},
		ruleTypes{}, tricky{}, quotedOneOf{}, alternatives{}, requiredPointer{}, requiredStruct{}, diveMap{},
		interfaceField{}, floatRule{}, recursive{}, withTime{}} {
		ts = append(ts, reflect.TypeOf(v))
	}
	return ts
}

// TestValidateChecks checks which types have a check: every type of the
// package Validate is given does, and with it every example message is
// found valid without validator; a type with a rule the checks do not
// know does not.
func TestValidateChecks(t *testing.T) {
	for _, mt := range MessageTypes() {
		m := exampleMessage(t, mt)
		if checkFor(reflect.TypeOf(m).Elem()) == nil {
			t.Errorf("%s has no check", mt)
		} else if !passes(m) {
			t.Errorf("the example %s does not pass its check: %v", mt, validate.Struct(m))
		}
	}
	for _, m := range hotMessages(t) {
		if !passes(m) {
			t.Errorf("%s does not pass its check", m.Header().MessageType)
		}
	}
	if rules := ruleSeed(); !passes(&rules) {
		t.Errorf("ruleSeed does not pass its check: %v", validate.Struct(&rules))
	}
	for _, v := range []any{ScheduledMatch{}, ruleTypes{}, tricky{}} {
		if checkFor(reflect.TypeOf(v)) == nil {
			t.Errorf("%T has no check", v)
		}
	}
	for _, v := range []any{quotedOneOf{}, alternatives{}, requiredPointer{}, requiredStruct{}, diveMap{},
		interfaceField{}, floatRule{}, recursive{}, withTime{}} {
		if checkFor(reflect.TypeOf(v)) != nil {
			t.Errorf("%T has a check", v)
		}
	}
	for _, v := range []any{nil, 5, "x", (*ChooseParityResponse)(nil), new(*ChooseParityResponse), withTime{}} {
		if passes(v) {
			t.Errorf("passes(%#v)", v)
		}
	}
}

// sameAsValidator fails when the check of v's type, if it has one, and
// validator disagree on v, given as a pointer and as a struct.
func sameAsValidator(t *testing.T, v reflect.Value, what string) {
	t.Helper()
	if checkFor(v.Type().Elem()) == nil {
		return
	}
	for _, msg := range []any{v.Interface(), v.Elem().Interface()} {
		err := validate.Struct(msg)
		if got := passes(msg); got != (err == nil) {
			b, _ := json.Marshal(msg)
			t.Fatalf("%s: check passes %T %s: %v; validator: %v", what, msg, b, got, err)
		}
	}
}

// strangeStrings are the values a string field is set to: what the rules
// accept and what they refuse.
var strangeStrings = []string{"", "x", " ", "\x00", "é", "even", "odd", "EVEN", "league.v2", "league.v1",
	"2025-01-15T10:15:05Z", "2025-01-15T10:15:05.5+00:00", "2025-01-15T12:15:05+02:00", "2025-01-15T10:15:05",
	"http://localhost:8001/mcp", "https://h", "ftp://h/mcp", "http://", "2.1.0", "1.0.0", "v9", "player:P01",
	"player P01", strings.Repeat("p", 129), "WIN", "DRAW", "TECHNICAL_LOSS", "win", "WI", "WINS", "a", "b", "c", "ab"}

var strangeInts = []int64{0, 1, -1, 2, 3, 255, math.MaxInt64, math.MinInt64}

// slots lists the values inside v that mutate can set: v itself, the
// fields of structs, what non-nil pointers point to and slice elements.
func slots(v reflect.Value, out []reflect.Value) []reflect.Value {
	if v.CanSet() {
		out = append(out, v)
	}
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			out = slots(v.Field(i), out)
		}
	case reflect.Pointer:
		if !v.IsNil() {
			out = slots(v.Elem(), out)
		}
	case reflect.Slice:
		for i := range v.Len() {
			out = slots(v.Index(i), out)
		}
	}
	return out
}

// mutations is the number of different values mutate sets a slot to.
func mutations(v reflect.Value) int {
	switch v.Kind() {
	case reflect.String:
		return len(strangeStrings)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return len(strangeInts)
	case reflect.Bool, reflect.Pointer:
		return 2
	case reflect.Slice:
		return 5
	case reflect.Map:
		return 4
	}
	return 1
}

// mutate sets v to its k-th strange value (k < mutations(v)).
func mutate(v reflect.Value, k int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strangeStrings[k])
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n := strangeInts[k]
		if v.OverflowInt(n) {
			n = -n % 100
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := uint64(strangeInts[k])
		if v.OverflowUint(n) {
			n %= 7
		}
		v.SetUint(n)
	case reflect.Bool:
		v.SetBool(k == 0)
	case reflect.Pointer:
		if k == 0 {
			v.SetZero()
		} else {
			v.Set(reflect.New(v.Type().Elem()))
		}
	case reflect.Slice:
		switch k {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
		case 2:
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
		case 3:
			if v.Len() > 0 {
				v.Set(reflect.Append(v, v.Index(0)))
			}
		case 4:
			if v.Len() > 1 {
				v.SetLen(1)
			}
		}
	case reflect.Map:
		switch k {
		case 0:
			v.SetZero()
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
		default:
			m := reflect.MakeMap(v.Type())
			key := reflect.New(v.Type().Key()).Elem()
			mutate(key, k%mutations(key))
			m.SetMapIndex(key, reflect.Zero(v.Type().Elem()))
			v.Set(m)
		}
	default:
		v.SetZero()
	}
}

// decodeInto decodes b into a new value of typ, tolerantly: what a failed
// decoding leaves is as good a value as any.
func decodeInto(typ reflect.Type, b []byte) reflect.Value {
	v := reflect.New(typ)
	_ = json.Unmarshal(b, v.Interface())
	return v
}

// ruleSeed is a value of ruleTypes that validator finds nothing wrong with.
func ruleSeed() ruleTypes {
	return ruleTypes{ruleInner: ruleInner{X: "player:P01"}, S: "ab", I: 3, U: 1, B: true,
		L: []string{"2025-01-15T10:15:05Z", ""}, M: map[string]int{}, O: "b",
		P:    &PlayerMeta{DisplayName: "Alpha", Version: "1", GameTypes: []string{"g"}, ContactEndpoint: "http://h/mcp"},
		Rows: []*ScheduledMatch{nil, {MatchID: "m", GameType: "g", PlayerAID: "a", PlayerBID: "b"}}}
}

// typedSeed is a value of a target type as JSON.
type typedSeed struct {
	typ reflect.Type
	b   []byte
}

// typedSeeds are the example message of every message type, a scheduled
// match, ruleSeed and the inputs of TestDecodeFast for tricky, each with
// its type.
func typedSeeds(tb testing.TB) []typedSeed {
	var seeds []typedSeed
	add := func(v any) {
		b, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, typedSeed{reflect.TypeOf(v).Elem(), b})
	}
	for _, mt := range MessageTypes() {
		add(exampleMessage(tb, mt))
	}
	add(&exampleMessage(tb, MsgRoundAnnouncement).(*RoundAnnouncement).Matches[0])
	rules := ruleSeed()
	add(&rules)
	for _, c := range decodeCases {
		if _, ok := c.typ.(tricky); ok {
			seeds = append(seeds, typedSeed{reflect.TypeFor[tricky](), []byte(c.in)})
		}
	}
	return seeds
}

// checkSeeds are the example messages, the inputs of TestDecodeFast and
// typedSeeds.
func checkSeeds(tb testing.TB) [][]byte {
	seeds := decodeSeeds(tb)
	for _, s := range typedSeeds(tb) {
		seeds = append(seeds, s.b)
	}
	return seeds
}

// TestValidateChecksMatchValidator decodes every seed into every target
// type and compares the check with validator on it; then it sets each
// value inside each typed seed in turn to each strange value, and compares
// them on each result.
func TestValidateChecksMatchValidator(t *testing.T) {
	for _, b := range checkSeeds(t) {
		for _, typ := range checkTargets() {
			sameAsValidator(t, decodeInto(typ, b), "decoded")
		}
	}
	for _, seed := range typedSeeds(t) {
		n := len(slots(decodeInto(seed.typ, seed.b), nil))
		for i := range n {
			for k := 0; ; k++ {
				v := decodeInto(seed.typ, seed.b)
				s := slots(v, nil)[i]
				if k >= mutations(s) {
					break
				}
				mutate(s, k)
				sameAsValidator(t, v, seed.typ.String()+" slot "+strconv.Itoa(i)+" mutation "+strconv.Itoa(k))
			}
		}
	}
}

// FuzzValidateMatchesValidator decodes arbitrary text into every target
// type, changes values inside it as edits says (pairs of bytes: which
// value, which strange value), and fails when the check of the type and
// validator disagree on any result.
func FuzzValidateMatchesValidator(f *testing.F) {
	for _, s := range checkSeeds(f) {
		f.Add(s, []byte{})
		f.Add(s, []byte{3, 0, 5, 1})
		f.Add(s, []byte{9, 2, 1, 7, 12, 4})
	}
	f.Fuzz(func(t *testing.T, b, edits []byte) {
		for _, typ := range checkTargets() {
			v := decodeInto(typ, b)
			sameAsValidator(t, v, "decoded")
			for e := 0; e+1 < len(edits); e += 2 {
				s := slots(v, nil)
				if len(s) == 0 {
					break
				}
				slot := s[int(edits[e])%len(s)]
				mutate(slot, int(edits[e+1])%mutations(slot))
				sameAsValidator(t, v, "edited")
			}
		}
	})
}

// exampleMessage decodes the example message of type mt in
// docs/message-examples.
func exampleMessage(tb testing.TB, mt MessageType) Message {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("../docs/message-examples", string(mt)+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	m := NewMessage(mt)
	if err := unmarshal(b, m); err != nil {
		tb.Fatalf("%s: %v", mt, err)
	}
	return m
}

// hotMessages are the messages a league validates most, as it sends them:
// a round of 100 matches and a table of 200 players among them.
func hotMessages(tb testing.TB) []Message {
	var out []Message
	for _, mt := range []MessageType{MsgChooseParityCall, MsgChooseParityResponse, MsgGameInvitation, MsgGameJoinAck,
		MsgGameOver, MsgMatchResultReport} {
		out = append(out, exampleMessage(tb, mt))
	}
	round := exampleMessage(tb, MsgRoundAnnouncement).(*RoundAnnouncement)
	for len(round.Matches) < 100 {
		n := strconv.Itoa(len(round.Matches) + 1)
		round.Matches = append(round.Matches, ScheduledMatch{MatchID: "R1M" + n, GameType: GameEvenOdd,
			PlayerAID: "P" + n + "a", PlayerBID: "P" + n + "b", RefereeEndpoint: "http://localhost:8001/mcp"})
	}
	table := exampleMessage(tb, MsgLeagueStandingsUpdate).(*LeagueStandingsUpdate)
	for len(table.Standings) < 200 {
		n := len(table.Standings) + 1
		table.Standings = append(table.Standings, StandingRow{Rank: n, PlayerID: "P" + strconv.Itoa(n), DisplayName: "Agent",
			Played: 1, Wins: 1, Points: 3})
	}
	return append(out, round, table)
}

// BenchmarkValidate validates each of the hot messages.
func BenchmarkValidate(b *testing.B) {
	for _, m := range hotMessages(b) {
		b.Run(string(m.Header().MessageType), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := Validate(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
