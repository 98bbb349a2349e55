package leaguesdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// fuzzServer is the server FuzzServeRequest feeds: tools for the common
// messages, one that needs a token, and one that panics on demand.
func fuzzServer() *leaguesdk.Server {
	var tokens agentkit.Tokens
	tokens.Bind("REF01", exTokREF01)
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{
		Sender: func() string { return "player:P01" },
		Now:    func() time.Time { return fixedNow },
		Authorize: func(ctx context.Context, tool string, env *leaguesdk.Envelope) error {
			_, err := tokens.Verify(env.Sender, env.AuthToken)
			return err
		},
	})
	ack := func(in leaguesdk.Message) *leaguesdk.Ack {
		return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:P01", exTokP01, in.Header().ConversationID, fixedNow), Status: leaguesdk.AckOK}
	}
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity, Aliases: []string{"parity_choose"}},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			if in.MatchID == "panic" {
				panic("fuzz panic")
			}
			return &leaguesdk.ChooseParityResponse{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", exTokP01, in.ConversationID, fixedNow),
				MatchID: in.MatchID, PlayerID: "P01", ParityChoice: leaguesdk.Odd}, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodHandleGameInvitation},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameInvitation) (*leaguesdk.GameJoinAck, error) {
			return &leaguesdk.GameJoinAck{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameJoinAck, "player:P01", exTokP01, in.ConversationID, fixedNow),
				MatchID: in.MatchID, PlayerID: "P01", Accept: true}, nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
			return ack(in), nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyRound},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.RoundAnnouncement) (*leaguesdk.Ack, error) {
			return ack(in), nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodReportMatchResult},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.MatchResultReport) (*leaguesdk.Ack, error) {
			return ack(in), nil
		})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			return nil, &leaguesdk.Error{Code: leaguesdk.CodeLeagueNotFound, Message: "registration closed"}
		})
	return srv
}

var rpcErrorCodes = map[int]bool{
	leaguesdk.RPCParseError: true, leaguesdk.RPCInvalidRequest: true, leaguesdk.RPCMethodNotFound: true,
	leaguesdk.RPCInvalidParams: true, leaguesdk.RPCInternalError: true, leaguesdk.RPCServerError: true,
}

// FuzzServeRequest sends arbitrary bodies through a Server: it never
// panics, and answers either 202 with no body or valid JSON-RPC.
func FuzzServeRequest(f *testing.F) {
	for _, seed := range serveSeeds() {
		f.Add(seed.body)
	}
	srv := fuzzServer()
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body))
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		out := rec.Body.Bytes()
		switch rec.Code {
		case http.StatusAccepted:
			if len(out) != 0 {
				t.Fatalf("202 with a body: %q", out)
			}
			return
		case http.StatusOK, http.StatusBadRequest, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("status %d for %q", rec.Code, body)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("content type %q", ct)
		}
		var reply rpcReply
		if err := json.Unmarshal(out, &reply); err != nil {
			t.Fatalf("reply %q to %q is not JSON: %v", out, body, err)
		}
		if reply.JSONRPC != "2.0" || len(reply.ID) == 0 || (reply.Error == nil) == (reply.Result == nil) {
			t.Fatalf("reply %s to %q is not a JSON-RPC response", out, body)
		}
		if reply.Error != nil {
			if !rpcErrorCodes[reply.Error.Code] || reply.Error.Message == "" {
				t.Fatalf("error %s to %q", out, body)
			}
			if reply.Error.Code == leaguesdk.RPCServerError {
				var data struct {
					MessageType leaguesdk.MessageType `json:"message_type"`
					ErrorCode   leaguesdk.Code        `json:"error_code"`
				}
				if json.Unmarshal(reply.Error.Data, &data) != nil || data.MessageType != leaguesdk.MsgLeagueError || data.ErrorCode.Name() == "UNKNOWN_ERROR" {
					t.Fatalf("protocol error %s to %q", out, body)
				}
			}
		}
		// The id of a request object goes back as it came.
		var in struct {
			ID json.RawMessage `json:"id"`
		}
		if rec.Code == http.StatusOK && json.Unmarshal(body, &in) == nil && len(in.ID) > 0 && !bytes.Equal(reply.ID, []byte("null")) {
			var compact bytes.Buffer
			if json.Compact(&compact, in.ID) == nil && !bytes.Equal(reply.ID, compact.Bytes()) {
				t.Fatalf("id %s answered as %s", in.ID, reply.ID)
			}
		}
	})
}

// FuzzValidate decodes arbitrary JSON into every message type and
// validates it: it never panics, and every refusal is an *Error with a
// catalog code. A message that validates still validates after a round
// trip through its JSON form.
func FuzzValidate(f *testing.F) {
	for _, seed := range validateSeeds() {
		f.Add(seed.body)
	}
	types := leaguesdk.MessageTypes()
	catalog := map[leaguesdk.Code]bool{}
	for _, c := range leaguesdk.Codes() {
		catalog[c] = true
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mt := range types {
			m := leaguesdk.NewMessage(mt)
			if json.Unmarshal(data, m) != nil {
				continue
			}
			err := leaguesdk.Validate(m)
			if err != nil {
				var e *leaguesdk.Error
				if !errors.As(err, &e) || !catalog[e.Code] || e.Field == "" {
					t.Fatalf("%s: %T %v", mt, err, err)
				}
				continue
			}
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("%s: valid message does not encode: %v", mt, err)
			}
			again := leaguesdk.NewMessage(mt)
			if err := json.Unmarshal(b, again); err != nil {
				t.Fatalf("%s: %s does not decode: %v", mt, b, err)
			}
			if err := leaguesdk.Validate(again); err != nil {
				t.Fatalf("%s: %s no longer validates: %v", mt, b, err)
			}
		}
	})
}

type fuzzSeed struct {
	name string
	body []byte
}

// methodFor is the method this project sends each example with.
var methodFor = map[leaguesdk.MessageType]string{
	leaguesdk.MsgRefereeRegisterRequest: leaguesdk.MethodRegisterReferee,
	leaguesdk.MsgLeagueRegisterRequest:  leaguesdk.MethodRegisterPlayer,
	leaguesdk.MsgRoundAnnouncement:      leaguesdk.MethodNotifyRound,
	leaguesdk.MsgStartMatch:             leaguesdk.MethodStartMatch,
	leaguesdk.MsgGameInvitation:         leaguesdk.MethodHandleGameInvitation,
	leaguesdk.MsgChooseParityCall:       leaguesdk.MethodChooseParity,
	leaguesdk.MsgGameOver:               leaguesdk.MethodNotifyMatchResult,
	leaguesdk.MsgGameError:              leaguesdk.MethodNotifyGameError,
	leaguesdk.MsgMatchResultReport:      leaguesdk.MethodReportMatchResult,
	leaguesdk.MsgLeagueStandingsUpdate:  leaguesdk.MethodUpdateStandings,
	leaguesdk.MsgRoundCompleted:         leaguesdk.MethodNotifyRoundCompleted,
	leaguesdk.MsgLeagueCompleted:        leaguesdk.MethodNotifyLeagueCompleted,
	leaguesdk.MsgLeagueQuery:            leaguesdk.MethodLeagueQuery,
	leaguesdk.MsgStartLeague:            leaguesdk.MethodStartLeague,
	leaguesdk.MsgGameMoveCall:           leaguesdk.MethodMakeMove,
	leaguesdk.MsgStateQuery:             leaguesdk.MethodGetMatchState,
}

func exampleJSON(mt leaguesdk.MessageType) []byte {
	for _, m := range exampleMessages() {
		if m.Header().MessageType == mt {
			b, _ := json.Marshal(m)
			return b
		}
	}
	panic("no example of " + string(mt))
}

// serveSeeds are realistic requests in every wire form, plus the usual
// malformed ones.
func serveSeeds() []fuzzSeed {
	var seeds []fuzzSeed
	add := func(name, body string) { seeds = append(seeds, fuzzSeed{name, []byte(body)}) }
	id := 1
	for _, m := range exampleMessages() {
		mt := m.Header().MessageType
		method, ok := methodFor[mt]
		if !ok {
			continue
		}
		msg := string(exampleJSON(mt))
		add("spec-"+string(mt), `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"`+method+`","params":`+msg+`}`)
		id++
	}
	call := string(exampleJSON(leaguesdk.MsgChooseParityCall))
	add("message-type-method", `{"jsonrpc":"2.0","id":"a-1","method":"CHOOSE_PARITY_CALL","params":`+call+`}`)
	add("lower-case-message-type", `{"jsonrpc":"2.0","id":0,"method":"choose_parity_call","params":`+call+`}`)
	add("alias", `{"jsonrpc":"2.0","id":7,"method":"parity_choose","params":`+call+`}`)
	add("params-message", `{"jsonrpc":"2.0","id":8,"method":"handle_message","params":{"message":`+call+`}}`)
	add("params-arguments", `{"jsonrpc":"2.0","id":9,"method":"mcp_message","params":{"arguments":`+call+`}}`)
	add("params-payload", `{"jsonrpc":"2.0","id":10,"method":"mcp_message","params":{"payload":`+call+`}}`)
	add("tools-call", `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"choose_parity","arguments":`+call+`}}`)
	add("tools-call-unknown", `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	add("panic", `{"jsonrpc":"2.0","id":13,"method":"choose_parity","params":`+strings.Replace(call, `"R1M1"`, `"panic"`, 1)+`}`)
	add("timestamp-offset", `{"jsonrpc":"2.0","id":14,"method":"choose_parity","params":`+strings.Replace(call, `"timestamp":"2025-01-15T10:15:05Z"`, `"timestamp":"2025-01-15T12:15:05+02:00"`, 1)+`}`)
	add("choice-alias", `{"jsonrpc":"2.0","id":15,"method":"handle_message","params":{"message":{"message_type":"CHOOSE_PARITY_RESPONSE","choice":"even"}}}`)
	add("round-id-string", `{"jsonrpc":"2.0","id":16,"method":"notify_round","params":`+strings.Replace(string(exampleJSON(leaguesdk.MsgRoundAnnouncement)), `"round_id":1`, `"round_id":"ROUND_1"`, 1)+`}`)
	add("initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	add("initialized", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	add("ping", `{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	add("tools-list", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	add("server-discover", `{"jsonrpc":"2.0","id":3,"method":"server/discover"}`)
	add("notification", `{"jsonrpc":"2.0","method":"notify_match_result","params":`+string(exampleJSON(leaguesdk.MsgGameOver))+`}`)
	add("batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	add("no-version", `{"id":1,"method":"ping"}`)
	add("method-number", `{"jsonrpc":"2.0","id":1,"method":5}`)
	add("truncated", `{"jsonrpc":"2.0","id":1,"method":"choose_par`)
	add("empty", ``)
	add("null", `null`)
	add("id-html", `{"jsonrpc":"2.0","id":"<&>","method":"ping"}`)
	return seeds
}

// validateSeeds are the example messages and broken variants of them.
func validateSeeds() []fuzzSeed {
	var seeds []fuzzSeed
	for _, m := range exampleMessages() {
		mt := m.Header().MessageType
		seeds = append(seeds, fuzzSeed{string(mt), exampleJSON(mt)})
	}
	resp := string(exampleJSON(leaguesdk.MsgChooseParityResponse))
	call := string(exampleJSON(leaguesdk.MsgChooseParityCall))
	for name, body := range map[string]string{
		"parity-EVEN":        strings.Replace(resp, `"even"`, `"EVEN"`, 1),
		"parity-1":           strings.Replace(resp, `"even"`, `"1"`, 1),
		"parity-number":      strings.Replace(resp, `"even"`, `0`, 1),
		"timestamp-no-zone":  strings.Replace(resp, `10:15:10Z`, `10:15:10`, 1),
		"timestamp-offset":   strings.Replace(resp, `10:15:10Z`, `12:15:10+02:00`, 1),
		"timestamp-fraction": strings.Replace(resp, `10:15:10Z`, `10:15:10.250+00:00`, 1),
		"protocol-v1":        strings.Replace(resp, `league.v2`, `league.v1`, 1),
		"no-sender":          strings.Replace(resp, `"sender":"player:P01",`, ``, 1),
		"deadline-offset":    strings.Replace(call, `"deadline":"2025-01-15T10:15:35Z"`, `"deadline":"2025-01-15T10:15:35-05:00"`, 1),
		"old-protocol-version": strings.Replace(string(exampleJSON(leaguesdk.MsgLeagueRegisterRequest)),
			`"protocol_version":"2.1.0"`, `"protocol_version":"1.0.0"`, 1),
		"round-id-string": strings.Replace(string(exampleJSON(leaguesdk.MsgMatchResultReport)), `"round_id":1`, `"round_id":"ROUND_1"`, 1),
		"empty-object":    `{}`,
		"array":           `[]`,
	} {
		seeds = append(seeds, fuzzSeed{name, []byte(body)})
	}
	return seeds
}

// TestFuzzCorpus keeps the committed seed corpora in testdata/fuzz: with
// -update it writes them from serveSeeds and validateSeeds; without, it
// checks that every seed is there, in the corpus file format.
func TestFuzzCorpus(t *testing.T) {
	for target, seeds := range map[string][]fuzzSeed{"FuzzServeRequest": serveSeeds(), "FuzzValidate": validateSeeds()} {
		dir := filepath.Join("testdata", "fuzz", target)
		for _, s := range seeds {
			want := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(s.body)))
			path := filepath.Join(dir, s.name)
			if *update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != want {
				t.Errorf("%s is missing or stale (run go test ./leaguesdk -run 'TestMessageExamples|TestFuzzCorpus' -update): %v", path, err)
			}
		}
	}
}

// FuzzReadRequestAgreesWithEncodingJSON holds the server's one reading of
// a request to encoding/json: the JSON-RPC request and the message it
// carries read the same, the params decoded as the body is read (as the
// server decodes a typed tool's message) are what encoding/json decodes
// from the params it finds, and the message decodes into its Go type as
// encoding/json decodes it, re-encoded by the drop-in as by encoding/json.
func FuzzReadRequestAgreesWithEncodingJSON(f *testing.F) {
	for _, seed := range serveSeeds() {
		f.Add(seed.body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var early *leaguesdk.GameOver
		req, _, read, bad := leaguesdk.ReadRequest(body, func(method string, params []byte) ([]byte, bool) {
			early = new(leaguesdk.GameOver)
			rest, err := wirejson.Next(params, early)
			return rest, err == nil
		})
		plain, _, _, plainBad := leaguesdk.ReadRequest(body, nil)
		if (bad == nil) != (plainBad == nil) || req.Method != plain.Method || !bytes.Equal(req.ID, plain.ID) ||
			!bytes.Equal(req.Params, plain.Params) {
			t.Fatalf("%q: read %+v (%v) with params decoded, %+v (%v) without", body, req, bad, plain, plainBad)
		}
		var std struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		stdErr := json.Unmarshal(body, &std)
		stdOK := stdErr == nil && std.JSONRPC == "2.0" && std.Method != nil && *std.Method != ""
		if (bad == nil) != stdOK {
			t.Fatalf("%q: read %v, encoding/json %v %+v", body, bad, stdErr, std)
		}
		if bad != nil {
			return
		}
		if req.Method != *std.Method || !bytes.Equal(req.ID, std.ID) || !bytes.Equal(req.Params, std.Params) {
			t.Fatalf("%q: read %q %s %s, encoding/json %q %s %s", body, req.Method, req.ID, req.Params, *std.Method, std.ID, std.Params)
		}
		if read {
			var want leaguesdk.GameOver
			if err := json.Unmarshal(std.Params, &want); err != nil {
				t.Fatalf("%q: params decoded as the body was read, encoding/json refuses them: %v", body, err)
			}
			b1, e1 := json.Marshal(early)
			b2, e2 := json.Marshal(&want)
			if e1 != nil || e2 != nil || !bytes.Equal(b1, b2) {
				t.Fatalf("%q: params decoded as the body was read %s (%v), by encoding/json %s (%v)", body, b1, e1, b2, e2)
			}
		}
		call, bad := leaguesdk.LocateCall(req.Method, req.Params)
		if bad != nil || call.MessageType == "" {
			return
		}
		m1, m2 := leaguesdk.NewMessage(leaguesdk.MessageType(call.MessageType)), leaguesdk.NewMessage(leaguesdk.MessageType(call.MessageType))
		if m1 == nil {
			return
		}
		err1, err2 := wirejson.Unmarshal(call.Message, m1), json.Unmarshal(call.Message, m2)
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: decoded with error %v, encoding/json %v", call.Message, err1, err2)
		}
		if err1 != nil {
			return
		}
		b1, e1 := wirejson.Marshal(m1)
		b2, e2 := json.Marshal(m2)
		if (e1 == nil) != (e2 == nil) || !bytes.Equal(b1, b2) {
			t.Fatalf("%s: reads as %s (%v), by encoding/json as %s (%v)", call.Message, b1, e1, b2, e2)
		}
	})
}
