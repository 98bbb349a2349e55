package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// tokenShape matches an auth token as this module issues them.
var tokenShape = regexp.MustCompile(`tok_[0-9a-f]{32}`)

// addReferee starts one referee whose calls to players wait up to
// moveTimeout, and waits until it has registered.
func (l *league) addReferee(name string, moveTimeout time.Duration) *referee.Referee {
	l.t.Helper()
	ref, err := referee.New(referee.Config{Name: name, League: l.url(), Listener: listen(l.t), DataRoot: l.data,
		JoinTimeout: 2 * time.Second, MoveTimeout: moveTimeout, RetryDelay: 100 * time.Millisecond})
	if err != nil {
		l.t.Fatal(err)
	}
	l.run(name, ref.Run)
	l.await(ref.Registered(), name+" to register")
	return ref
}

// rawPost sends body to url and returns the answer's body.
func rawPost(t *testing.T, url string, body []byte) []byte {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func rpc(method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	return b
}

// TestForgedReportWithAStolenTokenIsRefused is the attack of an outsider
// on the league's network: while a match runs, it asks the referee for the
// match's state without any credentials, takes whatever token the answer
// carries, and reports a result of its own for the match. The manager
// must refuse it, and the league must end with the result the referee
// reported.
func TestForgedReportWithAStolenTokenIsRefused(t *testing.T) {
	l := newLeague(t, 2)
	ref := l.addReferee("Referee Alpha", 30*time.Second)
	asked, release := make(chan struct{}, 1), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	slow := player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return leaguesdk.Even, nil
	})
	even := player.StrategyFunc(func(context.Context, player.ParityCall) (leaguesdk.Parity, error) { return leaguesdk.Even, nil })
	p1 := l.addPlayer("Slow Sam", slow)
	p2 := l.addPlayer("Even Eve", even)
	l.await(p1.Registered(), "P01 to register")
	l.await(p2.Registered(), "P02 to register")
	l.await(asked, "the match to ask its players")

	// The attacker: one anonymous call to the referee.
	state := rawPost(t, ref.Endpoint(), rpc(leaguesdk.MethodGetMatchState, &leaguesdk.StateQuery{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStateQuery, "player:attacker", "", "", time.Now()), MatchID: "R1M1"}))
	var answer struct {
		Result struct {
			AuthToken string          `json:"auth_token"`
			State     json.RawMessage `json:"state"`
		} `json:"result"`
	}
	if err := json.Unmarshal(state, &answer); err != nil || len(answer.Result.State) == 0 {
		t.Fatalf("get_match_state answered %s", state)
	}
	if stolen := tokenShape.FindString(string(state)); stolen != "" || answer.Result.AuthToken != "" {
		t.Errorf("an anonymous get_match_state carries a token: %s", state)
	}
	// Both players chose even: the true result is a draw. The forged
	// report gives P02 the win, with the stolen token (if any).
	forged := rpc(leaguesdk.MethodReportMatchResult, &leaguesdk.MatchResultReport{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgMatchResultReport, leaguesdk.RefereeSender(ref.ID()), answer.Result.AuthToken, "", time.Now()),
		LeagueID: "league_e2e", RoundID: 1, MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd,
		Result: leaguesdk.MatchResult{Winner: "P02", Status: leaguesdk.ResultWin, Score: map[string]int{"P01": 0, "P02": 3},
			Details: leaguesdk.MatchDetails{DrawnNumber: 5, Choices: map[string]leaguesdk.Parity{"P01": "even", "P02": "odd"}}}})
	reply := rawPost(t, l.url(), forged)
	if !bytes.Contains(reply, []byte(`"error"`)) || bytes.Contains(reply, []byte(leaguesdk.AckRecorded)) {
		t.Errorf("the forged report was answered %s, want a refusal", reply)
	}

	free()
	l.await(l.mgr.Done(), "the league to complete")
	res := l.mgr.Results()
	if len(res) != 1 || res[0].Result.Winner != "" || res[0].Result.Status != leaguesdk.ResultDraw || res[0].RefereeID != ref.ID() {
		t.Fatalf("results %+v, want the referee's draw", res)
	}
}

// TestNoTokenLeavesAnAgentToAStranger runs a league to its end, then calls
// every tool of every agent as a stranger would — each complete example
// message of the protocol, under every tool name, in the spec form and
// through MCP tools/call, with a made-up token and without, plus empty,
// malformed and unknown requests — and reads /api/state and /health. No
// answer may carry a token the caller did not send, and no log file may
// hold any token at all.
func TestNoTokenLeavesAnAgentToAStranger(t *testing.T) {
	l := newLeague(t, 4)
	refs := []*referee.Referee{l.addReferee("Referee Alpha", 3*time.Second), l.addReferee("Referee Beta", 3*time.Second)}
	var players []*player.Agent
	for i, s := range []player.Strategy{player.Random(nil), player.Random(nil), player.Random(nil), player.Random(nil)} {
		players = append(players, l.addPlayer(fmt.Sprintf("Player %d", i+1), s))
	}
	l.await(l.mgr.Done(), "the league to complete")

	endpoints := []string{l.url()}
	for _, r := range refs {
		endpoints = append(endpoints, r.Endpoint())
	}
	for _, p := range players {
		endpoints = append(endpoints, p.Endpoint())
	}
	examples := exampleMessages(t)
	madeUp := leaguesdk.NewToken()
	check := func(what string, body []byte) {
		t.Helper()
		for _, tok := range tokenShape.FindAllString(string(body), -1) {
			if tok != madeUp {
				t.Errorf("%s answered a token: %s", what, body)
				return
			}
		}
	}
	for _, ep := range endpoints {
		var list struct {
			Result struct {
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"result"`
		}
		if err := json.Unmarshal(rawPost(t, ep, rpc("tools/list", map[string]any{})), &list); err != nil || len(list.Result.Tools) == 0 {
			t.Fatalf("tools/list of %s: %v", ep, err)
		}
		for _, tool := range list.Result.Tools {
			for _, params := range []any{map[string]any{}, map[string]any{"auth_token": madeUp, "match_id": "R1M1"}} {
				check(ep+" "+tool.Name, rawPost(t, ep, rpc(tool.Name, params)))
				check(ep+" tools/call "+tool.Name, rawPost(t, ep, rpc("tools/call", map[string]any{"name": tool.Name, "arguments": params})))
			}
			for name, msg := range examples {
				for _, tok := range []string{madeUp, ""} {
					msg["auth_token"] = tok
					check(ep+" "+tool.Name+" "+name, rawPost(t, ep, rpc(tool.Name, msg)))
					check(ep+" tools/call "+tool.Name+" "+name, rawPost(t, ep, rpc("tools/call", map[string]any{"name": tool.Name, "arguments": msg})))
				}
			}
		}
		for name, msg := range examples { // routed by message type
			check(ep+" "+name, rawPost(t, ep, rpc(msg["message_type"].(string), msg)))
			check(ep+" handle_message "+name, rawPost(t, ep, rpc("handle_message", map[string]any{"message": msg})))
		}
		for _, body := range []string{`{`, `[]`, `{"jsonrpc":"2.0","id":1}`, `{"jsonrpc":"2.0","id":1,"method":"no_such_method","params":{}}`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool"}}`} {
			check(ep+" "+body, rawPost(t, ep, []byte(body)))
		}
		base := strings.TrimSuffix(ep, "/mcp")
		for _, path := range []string{"/health", "/mcp", "/api/state", "/"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			check("GET "+base+path, b)
		}
	}

	// No log line holds a token, neither the agents' logs nor the league's,
	// and no file of the data root does but the three that must, each
	// readable by its owner only: the manager's state, a player's history
	// and a referee's registration file.
	err := filepath.WalkDir(l.data, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if name := filepath.Base(path); !strings.Contains(path, "logs") && (name == "state.json" || name == "history.json" || name == "registration.json") {
			if info, err := d.Info(); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("%s holds tokens and is not mode 0600 (%v)", path, err)
			}
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if toks := tokenShape.FindAllString(string(b), -1); len(toks) > 0 {
			t.Errorf("%s holds tokens %v", path, slices.Compact(toks))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// exampleMessages returns the complete example messages of the protocol,
// by file name.
func exampleMessages(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "message-examples", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example messages: %v", err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if _, ok := m["message_type"].(string); ok {
			out[filepath.Base(f)] = m
		}
	}
	return out
}
