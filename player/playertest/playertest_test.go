package playertest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/playertest"
)

// opts are the options of the tests: deadlines short enough to keep the
// suite fast, long enough for a loaded machine.
var opts = playertest.Options{Timeout: time.Second, ChoiceDeadline: time.Second}

// deviations returns the status of every check that did not pass.
func deviations(rep *playertest.Report) map[string]playertest.Status {
	out := map[string]playertest.Status{}
	for _, c := range rep.Checks {
		if c.Status != playertest.Pass {
			out[c.ID] = c.Status
		}
	}
	return out
}

func check(t *testing.T, endpoint string, o playertest.Options) *playertest.Report {
	t.Helper()
	rep, err := playertest.Check(t.Context(), endpoint, o)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return rep
}

func dump(t *testing.T, rep *playertest.Report) {
	t.Helper()
	for _, c := range rep.Checks {
		if c.Status != playertest.Pass {
			t.Logf("%s\n%s", c, c.Details())
		}
	}
}

func TestTestPlayerPassesEveryCheck(t *testing.T) {
	srv := serve(t, newTestPlayer().handler())
	rep := check(t, srv.URL+"/mcp", opts)
	if got := deviations(rep); len(got) != 0 {
		dump(t, rep)
		t.Fatalf("deviations of a conforming player: %v", got)
	}
	var ids []string
	for _, c := range rep.Checks {
		ids = append(ids, c.ID)
		if c.Rule == "" || !strings.HasPrefix(c.Rule, "PROFILE §") || c.Title == "" {
			t.Errorf("check %s cites no profile section or has no title: %+v", c.ID, c)
		}
	}
	if !slices.Equal(ids, playertest.CheckIDs()) {
		t.Errorf("checks ran as\n%v\nCheckIDs says\n%v", ids, playertest.CheckIDs())
	}
	if rep.Passed != len(ids) || rep.Failed+rep.Warned+rep.Skipped != 0 || !rep.OK() {
		t.Errorf("counts: passed %d warned %d failed %d skipped %d of %d", rep.Passed, rep.Warned, rep.Failed, rep.Skipped, len(ids))
	}
	if rep.Elapsed > 3*time.Second {
		t.Errorf("a run against a healthy loopback player took %s", rep.Elapsed)
	}
	// A player answering only in the spec shape is told which shape it offers.
	if r, _ := rep.Find("reply.shapes"); r.Detail != "shapes: game_invitation → result; choose_parity → result (referees that read only bare or request-shaped replies do not see these)" {
		t.Errorf("reply.shapes = %q", r.Detail)
	}
}

// Each broken player is caught by the check that owns its defect, and by
// no other.
func TestBrokenPlayersAreCaughtByTheirCheckOnly(t *testing.T) {
	const (
		pass = playertest.Pass
		warn = playertest.Warn
		fail = playertest.Fail
		skip = playertest.Skip
	)
	type want = map[string]playertest.Status
	tests := []struct {
		name  string
		opts  playertest.Options
		build func(t *testing.T, p *testPlayer) string // returns the endpoint
		want  want
	}{
		{
			name: "upper-case parity",
			build: func(t *testing.T, p *testPlayer) string {
				p.editChoice = func(m map[string]any) { m["parity_choice"] = "EVEN" }
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"choice.parity": fail},
		},
		{
			name: "missing fields",
			build: func(t *testing.T, p *testPlayer) string {
				p.editAck = func(m map[string]any) { delete(m, "match_id"); delete(m, "accept") }
				p.editChoice = func(m map[string]any) { delete(m, "match_id") }
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"reply.shape": fail, "envelope.match_id": skip},
		},
		{
			name: "slow ack",
			opts: playertest.Options{Timeout: 100 * time.Millisecond, ChoiceDeadline: time.Second},
			build: func(t *testing.T, p *testPlayer) string {
				p.ackDelay = 150 * time.Millisecond
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"timing.join_ack": fail},
		},
		{
			name: "request-shaped replies",
			build: func(t *testing.T, p *testPlayer) string {
				return serve(t, requestShaped(p.handler())).URL + "/mcp"
			},
			want: want{"reply.shape": warn},
		},
		{
			name: "spec methods only",
			build: func(t *testing.T, p *testPlayer) string {
				return serve(t, specMethodsOnly(p.handler())).URL + "/mcp"
			},
			want: want{"mcp.initialize": warn, "mcp.initialized": warn, "mcp.tools_list": warn,
				"tool.handle_game_invitation.tools_call": warn, "tool.handle_game_invitation.message_type": warn,
				"tool.handle_game_invitation.generic": warn, "tool.choose_parity.tools_call": warn,
				"tool.choose_parity.message_type": warn, "tool.choose_parity.generic": warn},
		},
		{
			name: "SSE replies in an MCP session",
			build: func(t *testing.T, p *testPlayer) string {
				return serve(t, sseWithSession(p.handler())).URL + "/mcp"
			},
			want: want{"reply.shape": warn},
		},
		{
			name: "crash on an unknown method",
			build: func(t *testing.T, p *testPlayer) string {
				return crashOnUnknownMethod(t, p.handler()).URL + "/mcp"
			},
			want: want{"robust.malformed": fail, "notify.notify_league_completed": skip},
		},
		{
			name: "wrong match_id",
			build: func(t *testing.T, p *testPlayer) string {
				p.editAck = func(m map[string]any) { m["match_id"] = "R1M1" }
				p.editChoice = func(m map[string]any) { m["match_id"] = "R1M1" }
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"envelope.match_id": fail},
		},
		{
			name: "timestamps without a zone",
			build: func(t *testing.T, p *testPlayer) string {
				p.editChoice = func(m map[string]any) { m["timestamp"] = "2025-01-15T10:15:10.123456" }
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"envelope.timestamp": fail},
		},
		{
			name: "the referee's token echoed",
			opts: playertest.Options{AuthToken: "tok_00000000000000000000000000000001"},
			build: func(t *testing.T, p *testPlayer) string {
				p.token = "tok_00000000000000000000000000000001"
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"envelope.auth_token": fail},
		},
		{
			name: "another player id",
			build: func(t *testing.T, p *testPlayer) string {
				p.id = "P07"
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"envelope.player_id": warn},
		},
		{
			name: "the player id set",
			opts: playertest.Options{PlayerID: "P07"},
			build: func(t *testing.T, p *testPlayer) string {
				p.id = "P07"
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{},
		},
		{
			name: "parity calls only after an invitation",
			build: func(t *testing.T, p *testPlayer) string {
				p.needInvitation = true
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"receive.choice_without_invitation": fail},
		},
		{
			name: "one current match for all calls",
			build: func(t *testing.T, p *testPlayer) string {
				p.singleMatch = true
				return serve(t, p.handler()).URL + "/mcp"
			},
			want: want{"concurrency.two_matches": fail},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := tt.opts
			if o.Timeout == 0 {
				o.Timeout = opts.Timeout
			}
			if o.ChoiceDeadline == 0 {
				o.ChoiceDeadline = opts.ChoiceDeadline
			}
			rep := check(t, tt.build(t, newTestPlayer()), o)
			got := deviations(rep)
			if !maps.Equal(got, tt.want) {
				dump(t, rep)
				t.Fatalf("deviations %v, want %v", got, tt.want)
			}
			for _, c := range rep.Checks {
				if c.Status != pass && c.Status != skip && (c.Detail == "" || c.Received == "") {
					t.Errorf("%s: %s without detail or reply: %+v", c.ID, c.Status, c)
				}
			}
		})
	}
}

func TestReportSaysWhatWasSentAndWhatCameBack(t *testing.T) {
	p := newTestPlayer()
	p.editChoice = func(m map[string]any) { m["parity_choice"] = "EVEN" }
	rep := check(t, serve(t, p.handler()).URL+"/mcp", opts)
	c, ok := rep.Find("choice.parity")
	if !ok {
		t.Fatal("no choice.parity result")
	}
	for _, want := range []string{`"method":"choose_parity"`, `"message_type":"CHOOSE_PARITY_CALL"`, `"sender":"referee:REF01"`} {
		if !strings.Contains(c.Sent, want) {
			t.Errorf("Sent lacks %s: %s", want, c.Sent)
		}
	}
	if !strings.Contains(c.Received, `HTTP 200`) || !strings.Contains(c.Received, `"parity_choice":"EVEN"`) {
		t.Errorf("Received: %s", c.Received)
	}
	if !strings.Contains(c.Detail, "E004") {
		t.Errorf("Detail names no error code: %s", c.Detail)
	}
	if strings.Contains(c.Sent+c.Received, p.token) {
		t.Error("the report shows a token")
	}
	line := c.String()
	if !strings.HasPrefix(line, "FAIL  choice.parity  ") || !strings.HasSuffix(line, "[PROFILE §Envelope (E004), §Game and scoring]") {
		t.Errorf("line: %s", line)
	}
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back playertest.Report
	if err := json.Unmarshal(b, &back); err != nil || back.Failed != 1 || len(back.Checks) != len(rep.Checks) {
		t.Fatalf("JSON round trip: %v, %s", err, b)
	}
	if !strings.Contains(string(b), `"status":"fail"`) {
		t.Errorf("JSON has no status fail: %s", b)
	}
}

func TestSkip(t *testing.T) {
	p := newTestPlayer()
	p.editChoice = func(m map[string]any) { m["parity_choice"] = "EVEN" }
	o := opts
	o.Skip = []string{"choice.parity", "notify", "robust.malformed"}
	rep := check(t, serve(t, p.handler()).URL+"/mcp", o)
	want := map[string]playertest.Status{"choice.parity": playertest.Skip, "robust.malformed": playertest.Skip}
	for _, id := range playertest.CheckIDs() {
		if strings.HasPrefix(id, "notify.") {
			want[id] = playertest.Skip
		}
	}
	if got := deviations(rep); !maps.Equal(got, want) {
		t.Fatalf("deviations %v, want %v", got, want)
	}
	if !rep.OK() || rep.Skipped != len(want) {
		t.Errorf("OK %v, skipped %d", rep.OK(), rep.Skipped)
	}
}

func TestUnreachablePlayerFailsWithoutHanging(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	start := time.Now()
	rep := check(t, "http://"+addr+"/mcp", opts)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %s", took)
	}
	if rep.OK() || rep.Passed != 0 {
		t.Fatalf("an unreachable player: passed %d, failed %d", rep.Passed, rep.Failed)
	}
	for _, id := range []string{"health", "tool.handle_game_invitation.spec", "timing.join_ack", "robust.malformed"} {
		if c, _ := rep.Find(id); c.Status != playertest.Fail || !strings.Contains(c.Received, "no answer") {
			t.Errorf("%s: %+v", id, c)
		}
	}
	for _, id := range []string{"reply.shape", "envelope.protocol", "choice.parity", "notify.notify_league_completed"} {
		if c, _ := rep.Find(id); c.Status != playertest.Skip {
			t.Errorf("%s: %s, want skip: %+v", id, c.Status, c)
		}
	}
}

func TestCheckRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := playertest.Check(ctx, "http://127.0.0.1:1/mcp", opts, opts); !errors.Is(err, playertest.ErrOptions) {
		t.Errorf("two Options: %v", err)
	}
	for _, ep := range []string{"", "127.0.0.1:8101/mcp", "ftp://host/mcp", "http:///mcp"} {
		if _, err := playertest.Check(ctx, ep); err == nil {
			t.Errorf("endpoint %q accepted", ep)
		}
	}
}

func TestCheckStopsWithItsContext(t *testing.T) {
	p := newTestPlayer()
	p.ackDelay = time.Minute
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	rep, err := playertest.Check(ctx, serve(t, p.handler()).URL+"/mcp", playertest.Options{Timeout: 10 * time.Second})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("took %s after its context ended", took)
	}
	if rep == nil || len(rep.Checks) == 0 || len(rep.Checks) == len(playertest.CheckIDs()) {
		t.Errorf("report of a run cut short: %+v", rep)
	}
}

// recorder is a testing.TB that keeps what Run reports instead of failing.
type recorder struct {
	testing.TB
	errors, logs, skips []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}
func (r *recorder) Log(args ...any) { r.logs = append(r.logs, fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any) {
	r.skips = append(r.skips, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }

func TestRunReportsFailuresOnTheTest(t *testing.T) {
	p := newTestPlayer()
	p.editAck = func(m map[string]any) { m["match_id"] = "R1M1" }
	rec := &recorder{TB: t}
	rep := playertest.Run(rec, serve(t, p.handler()).URL+"/mcp", opts)
	if len(rec.errors) != 1 || rep.Failed != 1 {
		t.Fatalf("errors %q, report failed %d", rec.errors, rep.Failed)
	}
	for _, want := range []string{"FAIL  envelope.match_id", "sent:", "received:", `match_id "R1M1"`} {
		if !strings.Contains(rec.errors[0], want) {
			t.Errorf("error lacks %q: %s", want, rec.errors[0])
		}
	}
	if len(rec.logs) != len(rep.Checks)-1 {
		t.Errorf("%d passing checks logged, want %d", len(rec.logs), len(rep.Checks)-1)
	}
}

func TestRunAsSubtests(t *testing.T) {
	rep := playertest.Run(t, serve(t, newTestPlayer().handler()).URL+"/mcp", opts)
	if !rep.OK() {
		t.Fatalf("failed %d", rep.Failed)
	}
}

// The kit sends strictly: every message it sends passes the protocol's
// validation, which the test player's server applies to what it receives.
// A message refused for its form would show as a failed check in
// TestTestPlayerPassesEveryCheck; this test pins the wire details the
// validation does not cover.
func TestKitSendsTheSpecForm(t *testing.T) {
	var (
		mu   sync.Mutex
		seen []map[string]json.RawMessage
	)
	inner := newTestPlayer().handler()
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				t.Error(err)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req map[string]json.RawMessage
			if json.Unmarshal(body, &req) == nil {
				mu.Lock()
				seen = append(seen, req)
				mu.Unlock()
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if a := r.Header.Get("Accept"); !strings.Contains(a, "application/json") || !strings.Contains(a, "text/event-stream") {
				t.Errorf("Accept %q", a)
			}
		}
		inner.ServeHTTP(w, r)
	}))
	check(t, srv.URL+"/mcp", playertest.Options{Timeout: time.Second, ChoiceDeadline: time.Second, Skip: []string{"robust"}})
	methods := map[string]bool{}
	mu.Lock()
	defer mu.Unlock()
	for _, req := range seen {
		var method string
		_ = json.Unmarshal(req["method"], &method)
		methods[method] = true
		if id, ok := req["id"]; ok {
			var n int64
			if json.Unmarshal(id, &n) != nil {
				t.Errorf("id %s is not an integer", id)
			}
		}
		var env struct {
			leaguesdk.Envelope
			MessageType string `json:"message_type"`
		}
		if json.Unmarshal(req["params"], &env) == nil && env.MessageType != "" {
			if env.Protocol != leaguesdk.Protocol || env.AuthToken == "" || !strings.HasSuffix(env.Timestamp, "Z") {
				t.Errorf("%s: envelope %+v", method, env.Envelope)
			}
			kind, _ := leaguesdk.SplitSender(env.Sender)
			if kind != "referee" && env.Sender != leaguesdk.LeagueManagerSender {
				t.Errorf("%s: sender %q", method, env.Sender)
			}
		}
	}
	for _, m := range []string{"initialize", "tools/list", "handle_game_invitation", "choose_parity", "notify_match_result",
		"notify_game_error", "notify_round", "update_standings", "notify_round_completed", "notify_league_completed",
		"tools/call", "GAME_INVITATION", "CHOOSE_PARITY_CALL", "mcp_message"} {
		if !methods[m] {
			t.Errorf("the kit never sent %s", m)
		}
	}
}
