package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentleague/league/internal/jsonscan"
)

var corpus = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+3`, `-12.25E-2`, `true`, `false`, `null`, ` {"a" : [1, 2, {"b": null}] } `,
	`{"jsonrpc":"2.0","id":7,"method":"choose_parity","params":{"message_type":"CHOOSE_PARITY_CALL","context":{"round_id":1}}}`,
	`"\u00e9\n\t\"\\\/"`, "\"caf\xc3\xa9\"", "\"\xff\xfe\"",
	// malformed
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`,
	`tru`, `nul`, `"abc`, `"\x"`, `"\u12g4"`, "\"a\x01b\"", `[1 2]`, `{"a":1}{}`, `{"a":1} x`, `[`, `{"a":}`,
	`NaN`, `Infinity`, `'a'`, `[1,,2]`, `{"a":1,"b"}`,
	// a member named a, last or not, and the faults after it that Head's tail must show
	`{"b":1,"a":[1,{"c":"}"}]}`, `{"a":{"x":1},"b":2}`, `{"a":1} }`, `{"a":1 ,}`, `{"a":[1]`, `{"b":[],"a":"x"} x`,
	// numbers inside containers, where integers take a shorter way
	`{"a":12.5,"b":3e2,"c":7E-1,"d":0,"e":-4,"f":120}`, `[10.25,1E+2,0.5,-0,7]`, `{"a":1.}`, `{"a":12e}`, `[1e+,2]`,
	`{"a":01}`, `[12a]`, `{"a":9`, `[123`, `{"a":1x}`, `{"a":-}`,
	// strings ending on either side of an eight-byte word, with a
	// backslash or a control character before or after the quote
	`["1234567","12345678","123456789",""]`, `{"1234567":"abcdefgh","k":"x"}`, `["ab\"cd","\\","a\\\\"]`,
	"[\"ab\x1f\"]", "[\"ab\",\"\x1f\"]", "[\"1234567\x01\"]", "{\"abcdefgh\x7f\":1}", `["1234567\u00e9","abc\/defghij\n"]`,
	`["abcdefg`, `{"abcdefg`, `{"abcdefgh":`, `["abc\`, `["abcdefghij\q"]`, `{"abcdefg\"":1,"abcdefgh\u":2}`,
	// rows of a table written with white space
	"[ {\n\t\"rank\" : 1 ,\r\n \"name\" : \"Agent Alpha\" } , {\"rank\":2} ]",
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range corpus {
		if got, want := jsonscan.Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", s, got, want)
		}
	}
}

func TestNestingLimitIsEncodingJSONs(t *testing.T) {
	for _, depth := range []int{10000, 10001} {
		b := []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
		if got, want := jsonscan.Valid(b), json.Valid(b); got != want {
			t.Errorf("depth %d: Valid = %v, encoding/json says %v", depth, got, want)
		}
	}
}

func TestObjectWalksMembersInOrder(t *testing.T) {
	in := ` { "a" : 1 , "b\u0041" : {"x":[1,2]}, "c":"s" } `
	var got []string
	err := jsonscan.Object([]byte(in), func(key []byte, escaped bool, value []byte) error {
		got = append(got, string(key)+"|"+string(value)+"|"+map[bool]string{true: "esc", false: "plain"}[escaped])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`a|1|plain`, `b\u0041|{"x":[1,2]}|esc`, `c|"s"|plain`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("members:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestObjectAndArrayRefuseOtherKindsAndBadText(t *testing.T) {
	noop := func([]byte, bool, []byte) error { return nil }
	if err := jsonscan.Object([]byte(`[1]`), noop); !errors.Is(err, jsonscan.ErrNotObject) {
		t.Errorf("Object([1]) = %v, want ErrNotObject", err)
	}
	if err := jsonscan.Array([]byte(`{}`), func([]byte) error { return nil }); !errors.Is(err, jsonscan.ErrNotArray) {
		t.Errorf("Array({}) = %v, want ErrNotArray", err)
	}
	var se *jsonscan.SyntaxError
	for _, s := range []string{`{"a":1,}`, `{"a":1} x`, `{"a":tru}`, `{`} {
		if err := jsonscan.Object([]byte(s), noop); !errors.As(err, &se) {
			t.Errorf("Object(%q) = %v, want a *SyntaxError", s, err)
		}
	}
	for _, s := range []string{`[1,]`, `[1] 2`, `[`} {
		if err := jsonscan.Array([]byte(s), func([]byte) error { return nil }); !errors.As(err, &se) {
			t.Errorf("Array(%q) = %v, want a *SyntaxError", s, err)
		}
	}
	stop := errors.New("stop")
	n := 0
	err := jsonscan.Array([]byte(`[1,2,3]`), func([]byte) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Array stopped with %v after %d elements, want stop after 1", err, n)
	}
}

func TestArrayElements(t *testing.T) {
	var got [][]byte
	if err := jsonscan.Array([]byte(` [ 1 , "two" , {"three":3} , [4] ] `), func(e []byte) error {
		got = append(got, e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := [][]byte{[]byte(`1`), []byte(`"two"`), []byte(`{"three":3}`), []byte(`[4]`)}; !equal(got, want) {
		t.Fatalf("elements %q, want %q", got, want)
	}
}

func TestString(t *testing.T) {
	for in, want := range map[string]string{`"abc"`: "abc", `""`: ""} {
		if got, ok := jsonscan.String([]byte(in)); !ok || string(got) != want {
			t.Errorf("String(%s) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{`"a\nb"`, `1`, `"`, `null`, "\"\xff\""} {
		if _, ok := jsonscan.String([]byte(in)); ok {
			t.Errorf("String(%s) ok, want not", in)
		}
	}
}

func equal(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// FuzzValid checks that Valid, Object and Array accept exactly what
// encoding/json accepts, and that Object hands out every member.
func FuzzValid(f *testing.F) {
	for _, s := range corpus {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := json.Valid(b)
		if got := jsonscan.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
		// The walks that trust their input never fail on it when it is
		// well-formed, agree with the checking ones, and never panic.
		var checked, trusted []string
		collect := func(to *[]string) func([]byte, bool, []byte) error {
			return func(k []byte, esc bool, v []byte) error {
				*to = append(*to, fmt.Sprintf("%s|%v|%s", k, esc, v))
				return nil
			}
		}
		errChecked := jsonscan.Object(b, collect(&checked))
		errTrusted := jsonscan.Members(b, collect(&trusted))
		if want && (errChecked == nil) != (errTrusted == nil) || errChecked == nil && !slices.Equal(checked, trusted) {
			t.Fatalf("Members(%q) = %q, %v; Object gives %q, %v", b, trusted, errTrusted, checked, errChecked)
		}
		checked, trusted = nil, nil
		elem := func(to *[]string) func([]byte) error {
			return func(e []byte) error { *to = append(*to, string(e)); return nil }
		}
		errChecked = jsonscan.Array(b, elem(&checked))
		errTrusted = jsonscan.Elements(b, elem(&trusted))
		if want && (errChecked == nil) != (errTrusted == nil) || errChecked == nil && !slices.Equal(checked, trusted) {
			t.Fatalf("Elements(%q) = %q, %v; Array gives %q, %v", b, trusted, errTrusted, checked, errChecked)
		}
		var m map[string]json.RawMessage
		objErr := json.Unmarshal(b, &m)
		members := map[string]json.RawMessage{}
		walked := 0
		err := jsonscan.Object(b, func(key []byte, escaped bool, value []byte) error {
			// encoding/json unquotes every key (invalid UTF-8 becomes U+FFFD).
			var k string
			if json.Unmarshal([]byte(`"`+string(key)+`"`), &k) != nil {
				t.Fatalf("key %q does not unquote", key)
			}
			if _, plain := jsonscan.String([]byte(`"` + string(key) + `"`)); utf8.Valid(key) && plain == escaped {
				t.Fatalf("key %q: escaped = %v", key, escaped)
			}
			members[k] = value
			walked++
			return nil
		})
		if (err == nil) != (objErr == nil && m != nil) {
			t.Fatalf("Object(%q) = %v, encoding/json says %v", b, err, objErr)
		}
		// Cut checks what it cuts as Object does.
		if _, _, cutErr := jsonscan.Cut(b, "a", nil); (cutErr == nil) != (err == nil) {
			t.Fatalf("Cut(%q) = %v, Object gives %v", b, cutErr, err)
		}
		checkHead(t, b, err)
		if err == nil {
			var elems []string
			rest, value, cutErr := jsonscan.Cut(b, "a", func(e []byte) error { elems = append(elems, string(e)); return nil })
			var want []string
			_ = jsonscan.Elements(value, func(e []byte) error { want = append(want, string(e)); return nil })
			if walked == 1 && !slices.Equal(elems, want) { // one member, named a: its elements only
				t.Fatalf("Cut(%q) handed out %q, Elements gives %q", b, elems, want)
			}
			var rm map[string]json.RawMessage
			if cutErr != nil || json.Unmarshal(rest, &rm) != nil || len(rm) != len(m)-count(m, "a") {
				t.Fatalf("Cut(%q) = %s, %v: not the object without a", b, rest, cutErr)
			}
			for k, v := range m {
				if !bytes.Equal(bytes.TrimSpace(v), members[k]) && json.Valid(v) {
					var x, y any
					_ = json.Unmarshal(v, &x)
					_ = json.Unmarshal(members[k], &y)
					xb, _ := json.Marshal(x)
					yb, _ := json.Marshal(y)
					if !bytes.Equal(xb, yb) {
						t.Fatalf("member %q = %s, encoding/json says %s", k, members[k], v)
					}
				}
			}
		}
	})
}

func BenchmarkValid(b *testing.B) {
	row := `{"rank":1,"player_id":"P001","display_name":"Agent Alpha","played":10,"wins":6,"draws":2,"losses":2,"points":20},`
	msg := []byte(`{"message_type":"LEAGUE_STANDINGS_UPDATE","standings":[` + strings.Repeat(row, 200) + `{}]}`)
	b.Run("jsonscan", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if !jsonscan.Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(msg)))
		for b.Loop() {
			if !json.Valid(msg) {
				b.Fatal("invalid")
			}
		}
	})
}

func TestCut(t *testing.T) {
	for _, c := range []struct{ in, name, rest, value string }{
		{`{"a":1,"standings":[1,2],"b":{"c":2}}`, "standings", `{"a":1,"b":{"c":2}}`, `[1,2]`},
		{`{"Standings":[1],"a":1}`, "standings", `{"a":1}`, `[1]`},
		{`{"st\u0061ndings":[1],"a":1}`, "standings", `{"a":1}`, `[1]`},
		{`{"standings":[1],"standings":[2]}`, "standings", `{}`, `[2]`},
		{` { "a" : 1 } `, "standings", `{"a" : 1}`, ``},
	} {
		rest, value, err := jsonscan.Cut([]byte(c.in), c.name, nil)
		if err != nil || string(rest) != c.rest || string(value) != c.value {
			t.Errorf("Cut(%s) = %s, %s, %v; want %s, %s", c.in, rest, value, err, c.rest, c.value)
		}
	}
	if _, _, err := jsonscan.Cut([]byte(`[1]`), "a", nil); !errors.Is(err, jsonscan.ErrNotObject) {
		t.Errorf("Cut([1]) = %v, want ErrNotObject", err)
	}
}

// count is the number of keys of m that encoding/json matches with name.
func count(m map[string]json.RawMessage, name string) int {
	n := 0
	for k := range m {
		if strings.EqualFold(k, name) {
			n++
		}
	}
	return n
}

func BenchmarkTable(b *testing.B) {
	row := `{"rank":1,"player_id":"P001","display_name":"Agent Alpha","played":10,"wins":6,"draws":2,"losses":2,"points":20}`
	table := []byte(`[` + strings.Repeat(row+",", 999) + row + `]`)
	count := func([]byte) error { return nil }
	b.Run("Array", func(b *testing.B) {
		b.SetBytes(int64(len(table)))
		for b.Loop() {
			_ = jsonscan.Array(table, count)
		}
	})
	b.Run("Elements", func(b *testing.B) {
		b.SetBytes(int64(len(table)))
		for b.Loop() {
			_ = jsonscan.Elements(table, count)
		}
	})
}

// Cut hands out the elements of the array it takes in the same pass.
func TestCutHandsOutTheElements(t *testing.T) {
	var got []string
	collect := func(e []byte) error { got = append(got, string(e)); return nil }
	rest, value, err := jsonscan.Cut([]byte(`{"a":1,"rows":[{"x":"]"}, 2 ,[3]],"b":[4]}`), "rows", collect)
	if err != nil || string(rest) != `{"a":1,"b":[4]}` || string(value) != `[{"x":"]"}, 2 ,[3]]` ||
		strings.Join(got, "|") != `{"x":"]"}|2|[3]` {
		t.Fatalf("Cut = %s, %s, %v, elements %q", rest, value, err, got)
	}
	got = nil
	if _, value, err := jsonscan.Cut([]byte(`{"rows":"none"}`), "rows", collect); err != nil || string(value) != `"none"` || got != nil {
		t.Fatalf("Cut of a string member = %s, %v, elements %q; want the string and no elements", value, err, got)
	}
	stop := errors.New("stop")
	if _, _, err := jsonscan.Cut([]byte(`{"rows":[1,2]}`), "rows", func([]byte) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("Cut with a failing element function = %v, want its error", err)
	}
}

// checkHead checks Head on b, whose Object walk returned objErr: it hands
// out the members before the first one named a as Object does, and its
// tail is one JSON value exactly when b is well formed and that member is
// the last.
func checkHead(t *testing.T, b []byte, objErr error) {
	t.Helper()
	var before, all []string
	collect := func(to *[]string) func([]byte, bool, []byte) error {
		return func(k []byte, esc bool, v []byte) error {
			*to = append(*to, fmt.Sprintf("%s|%v|%s", k, esc, v))
			return nil
		}
	}
	_ = jsonscan.Object(b, collect(&all))
	tail, err := jsonscan.Head(b, func(key []byte) bool { return string(key) == "a" }, collect(&before))
	if tail == nil {
		// No member named a (or b is not an object): Head is Object.
		if (err == nil) != (objErr == nil) || err == nil && !slices.Equal(before, all) {
			t.Fatalf("Head(%q) = %v, %q; Object gives %v, %q", b, err, before, objErr, all)
		}
		return
	}
	if err != nil {
		t.Fatalf("Head(%q) = %q, %v: a tail and an error", b, tail, err)
	}
	if objErr == nil && !slices.Equal(before, all[:len(before)]) {
		t.Fatalf("Head(%q) handed out %q, Object %q", b, before, all)
	}
	last := objErr == nil && len(all) > 0 && strings.HasPrefix(all[len(all)-1], "a|false|")
	if got := jsonscan.Valid(tail); got != last {
		t.Fatalf("Head(%q): tail %q, Valid = %v; want %v (the object well formed and a its last member)", b, tail, got, last)
	}
	if last && !strings.HasSuffix(all[len(all)-1], "|"+string(tail)) {
		t.Fatalf("Head(%q): tail %q, Object's last member %q", b, tail, all[len(all)-1])
	}
}

func TestHead(t *testing.T) {
	for _, c := range []struct {
		in, tail string
		keys     string // the keys handed out before the tail, or all of them
		stops    bool   // whether Head stops at params (else no tail at all)
	}{
		{`{"jsonrpc":"2.0","id":1,"params":{"x":[1,"}"]}}`, `{"x":[1,"}"]}`, "jsonrpc,id", true},
		{` { "id" : 1 , "params" : [ 2 ] } ` + "\n", `[ 2 ]`, "id", true},
		{`{"params":{},"id":1}`, `{},"id":1`, "", true},             // not the last member: not one value
		{`{"id":1,"params":{"a":1}`, `{"a":1`, "id", true},          // no closing brace of its own
		{`{"id":1,"params":`, ``, "id", true},                       // truncated
		{`{"id":1,"Params":{},"params":2}`, `2`, "id,Params", true}, // another case is another key
		{`{"id":1,"p\u0061rams":{}}`, ``, `id,p\u0061rams`, false},  // escaped: never a stop
	} {
		var keys []string
		tail, err := jsonscan.Head([]byte(c.in), func(k []byte) bool { return string(k) == "params" },
			func(k []byte, _ bool, _ []byte) error { keys = append(keys, string(k)); return nil })
		if err != nil || string(tail) != c.tail || (tail != nil) != c.stops || strings.Join(keys, ",") != c.keys {
			t.Errorf("Head(%s) = %q, %v, keys %q; want %q (a tail: %v), keys %q", c.in, tail, err, keys, c.tail, c.stops, c.keys)
		}
	}
	if _, err := jsonscan.Head([]byte(`{"id":1,,"params":{}}`), func(k []byte) bool { return string(k) == "params" },
		func([]byte, bool, []byte) error { return nil }); err == nil {
		t.Error("Head of an object malformed before its tail: no error")
	}
	if tail, err := jsonscan.Head([]byte(`[1]`), func([]byte) bool { return true },
		func([]byte, bool, []byte) error { return nil }); !errors.Is(err, jsonscan.ErrNotObject) || tail != nil {
		t.Errorf("Head([1]) = %q, %v; want ErrNotObject", tail, err)
	}
}

// Cut refuses what is not one well-formed object, as Object does.
func TestCutChecks(t *testing.T) {
	for _, in := range []string{`{"a":[1,]}`, `{"a":1} x`, `{"b":"\x","a":[]}`, `{"a":[1,2]`, `{"b":tru}`} {
		if _, _, err := jsonscan.Cut([]byte(in), "a", func([]byte) error { return nil }); err == nil {
			t.Errorf("Cut(%s): no error", in)
		} else if e := new(jsonscan.SyntaxError); !errors.As(err, &e) {
			t.Errorf("Cut(%s) = %v, want a *SyntaxError", in, err)
		}
	}
}

// BenchmarkCut is a player reading a standings update of a 200-player
// league: the table is cut out of the message and its rows handed out in
// the one pass that checks the whole text.
func BenchmarkCut(b *testing.B) {
	var rows []string
	for i := range 200 {
		rows = append(rows, fmt.Sprintf(`{"rank":%d,"player_id":"P%03d","display_name":"Agent %03d","played":%d,"wins":%d,"draws":%d,"losses":%d,"points":%d}`,
			i+1, i+1, i+1, 10+i%3, 6+i%5, i%3, i%4, 20+i%17))
	}
	msg := []byte(`{"protocol":"league.v2","message_type":"LEAGUE_STANDINGS_UPDATE","sender":"league_manager",` +
		`"timestamp":"2025-01-15T10:30:00Z","conversation_id":"conv-r3-standings","auth_token":"tok-0123456789abcdef",` +
		`"league_id":"league_2025_even_odd","round_id":3,"standings":[` + strings.Join(rows, ",") + `]}`)
	n := 0
	count := func([]byte) error { n++; return nil }
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		n = 0
		if _, _, err := jsonscan.Cut(msg, "standings", count); err != nil || n != 200 {
			b.Fatal(err, n)
		}
	}
}
