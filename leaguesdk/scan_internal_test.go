package leaguesdk

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/agentleague/league/internal/jsonscan"
)

var scanSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"choose_parity","params":{"message_type":"CHOOSE_PARITY_CALL","match_id":"R1M1"}}`,
	`{"jsonrpc":"2.0","id":"a","method":null}`, `{"jsonrpc":"2.0","method":"x","params":[1]}`,
	`{"JSONRPC":"2.0","Method":"x"}`, `{"jsonrpc":"2.0","me\u0074hod":"x"}`, `{"jsonrpc":2,"method":"x"}`,
	`{"jsonrpc":"2.0","method":5}`, `{"jsonrpc":"2.0","method":"a\"b"}`, "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}",
	`{"jsonrpc":"2.0","method":"x","method":"y","id":1,"id":2}`, `[]`, `{"a":1,}`, `"x"`, `{}`,
	`{"message":{"message_type":"GAME_INVITATION"}}`, `{"arguments":{"message_type":"A"},"message_type":"B"}`,
	`{"message_type":7}`, `{"message_type":"\u0041"}`, `{"payload":{"message_type":null},"message":{"message_type":"X"}}`,
	`{"result":{"message_type":"ACK"}}`, `{"error":{"code":-32000,"message":"m"}}`, `{"result":null,"params":{"a":1}}`,
	// params last, taken as the rest of the body, and what must send the server back to the whole body
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,"}"]} }`, `{"jsonrpc":"2.0","id":1,"method":"m","params":{},"method":"n"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1}`, `{"jsonrpc":"2.0","id":1,"method":"m","params":{}} x`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{},"Params":[]}`, `{"jsonrpc":"2.0","id":1,"method":"m","params":{}}}`,
}

// FuzzScanMatchesEncodingJSON checks that the one-pass readers of a
// request, of a message's place and type, and of a reply answer what
// encoding/json answers.
func FuzzScanMatchesEncodingJSON(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want rpcRequest
		wantErr := json.Unmarshal(b, &want)
		for _, tail := range []bool{false, true} {
			got, ok := parseRequest(b, tail)
			if got.tail && !tail {
				t.Fatalf("parseRequest(%q, false) took the params unchecked", b)
			}
			if got.tail && !jsonscan.Valid(got.Params) {
				continue // the server reads the body again, whole
			}
			if !ok {
				continue
			}
			if wantErr != nil {
				t.Fatalf("parseRequest(%q, %v) read what encoding/json refuses: %v", b, tail, wantErr)
			}
			if got.JSONRPC != want.JSONRPC || !bytes.Equal(got.ID, want.ID) || !bytes.Equal(got.Params, want.Params) ||
				(got.Method == nil) != (want.Method == nil) || (got.Method != nil && *got.Method != *want.Method) {
				t.Fatalf("parseRequest(%q, %v) = %+v, encoding/json reads %+v", b, tail, got, want)
			}
		}

		var wantP paramsProbe
		wantPErr := probeParamsJSON(b, &wantP)
		if got, ok := scanParams(b); ok && (wantPErr != nil || got.MessageType != wantP.MessageType ||
			!bytes.Equal(got.Message, wantP.Message) || !bytes.Equal(got.Arguments, wantP.Arguments) || !bytes.Equal(got.Payload, wantP.Payload)) {
			t.Fatalf("scanParams(%q) = %+v, encoding/json reads %+v (%v)", b, got, wantP, wantPErr)
		}

		var wantTop replyTop
		wantTopErr := json.Unmarshal(b, &wantTop)
		if got, ok := scanReply(b); ok && (wantTopErr != nil || wantTop.Error != nil || got.MessageType != wantTop.MessageType ||
			!bytes.Equal(got.Result, wantTop.Result) || !bytes.Equal(got.Params, wantTop.Params)) {
			t.Fatalf("scanReply(%q) = %+v, encoding/json reads %+v (%v)", b, got, wantTop, wantTopErr)
		}
	})
}

func TestReadAllWhateverTheSizeHint(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 300)
	for _, hint := range []int64{-1, 0, 10, 2999, 3000, 3001, 100000, 1 << 30} {
		got, err := readAll(iotest.OneByteReader(bytes.NewReader(body)), hint, -1)
		if err != nil || !bytes.Equal(got, body) {
			t.Errorf("hint %d: read %d bytes (%v), want %d", hint, len(got), err, len(body))
		}
	}
	if _, err := readAll(iotest.ErrReader(iotest.ErrTimeout), 10, -1); err != iotest.ErrTimeout {
		t.Errorf("error %v, want the reader's", err)
	}
}

// A body of the size announced is read into a buffer of about that size,
// once: the buffer does not grow to find the body's end.
func TestReadAllTakesTheSizeAnnounced(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 30)
	var got []byte
	allocs := testing.AllocsPerRun(20, func() {
		var err error
		if got, err = readAll(bytes.NewReader(body), int64(len(body)), -1); err != nil {
			t.Fatal(err)
		}
	})
	if !bytes.Equal(got, body) || cap(got) > len(body)+32 || allocs > 2 { // the buffer, and the reader escaping
		t.Errorf("read %d bytes into a buffer of %d, %v allocations; want %d, no more than 32 bytes more, at most 2", len(got), cap(got), allocs, len(body))
	}
}

// Alias fields are renamed only for the types that read the renamed field:
// the others are decoded without a search of the whole message for them.
func TestReadsAliasedOnlyWhereATypeReadsTheRenamedField(t *testing.T) {
	type withReason struct {
		Envelope
		Why string `json:"REASON,omitempty"`
	}
	type broadcast struct {
		Envelope
		LeagueID string          `json:"league_id"`
		Table    json.RawMessage `json:"standings"`
		Role     string          `json:"role"` // the alias itself, not its target
		Skipped  string          `json:"-"`
	}
	for _, tc := range []struct {
		t    reflect.Type
		want bool
	}{
		{reflect.TypeFor[GameInvitation](), true},      // role_in_match
		{reflect.TypeFor[*StartMatchResponse](), true}, // reason
		{reflect.TypeFor[withReason](), true},          // named so, in another case
		{reflect.TypeFor[broadcast](), false},          // neither
		{reflect.TypeFor[map[string]any](), true},      // reads everything
		{reflect.TypeFor[ChooseParityCall](), false},   // neither
	} {
		if got := readsAliased(tc.t); got != tc.want {
			t.Errorf("readsAliased(%v) = %v, want %v", tc.t, got, tc.want)
		}
	}
}

// With a limit, readAll stops at it without an error, as it would reading
// from an io.LimitReader, whatever the size hint.
func TestReadAllStopsAtItsLimit(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 300)
	for _, limit := range []int64{0, 1, 10, 2999, 3000, 3001, 1 << 20} {
		for _, hint := range []int64{-1, 0, 10, min(limit, 3000), 3000, 1 << 30} {
			want, _ := io.ReadAll(io.LimitReader(bytes.NewReader(body), limit))
			got, err := readAll(iotest.OneByteReader(bytes.NewReader(body)), hint, limit)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("limit %d, hint %d: read %d bytes (%v), want %d", limit, hint, len(got), err, len(want))
			}
		}
	}
}
