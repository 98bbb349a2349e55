package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
)

// The stand-ins below speak the dialect of an MCP-native implementation
// of the exercise: every call is tools/call {name, arguments}, every reply
// a tool result {"content":[{"type":"text","text":"<json>"}]}, and its
// server knows initialize, tools/list (names only) and tools/call, nothing
// else: any other method is -32601 "Method not found", a tool it does not
// have -32603 "Unknown tool: <name>". Its names for the spec messages are
// its own (receive_game_invitation, receive_game_over, notify_standings),
// it registers with its *_meta alone, no envelope, and it acknowledges an
// invitation with {"status":"ACK"}.

// nativeTool serves one tool of a stand-in: it gets the arguments and
// returns the reply message.
type nativeTool func(args json.RawMessage) (any, error)

// nativeServer is the MCP-only server of a stand-in.
type nativeServer struct {
	tools map[string]nativeTool

	mu    sync.Mutex
	calls []string // every method received, tools/call as "tools/call <name>"
}

func (n *nativeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/health" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"status":"healthy"}`)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	seen := req.Method
	if req.Method == "tools/call" {
		seen += " " + req.Params.Name
	}
	n.mu.Lock()
	n.calls = append(n.calls, seen)
	n.mu.Unlock()
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var result any
	var rpcErr *leaguesdk.RPCError
	switch req.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]string{"name": "native", "version": "1.0.0"}}
	case "tools/list":
		tools := []map[string]string{}
		for _, name := range slices.Sorted(mapKeys(n.tools)) {
			tools = append(tools, map[string]string{"name": name})
		}
		result = map[string]any{"tools": tools}
	case "tools/call":
		tool, ok := n.tools[req.Params.Name]
		if !ok {
			rpcErr = &leaguesdk.RPCError{Code: leaguesdk.RPCInternalError, Message: "Unknown tool: " + req.Params.Name}
			break
		}
		out, err := tool(req.Params.Arguments)
		if err != nil {
			rpcErr = &leaguesdk.RPCError{Code: leaguesdk.RPCInternalError, Message: err.Error()}
			break
		}
		text, _ := json.Marshal(out)
		result = map[string]any{"content": []map[string]string{{"type": "text", "text": string(text)}}}
	default:
		rpcErr = &leaguesdk.RPCError{Code: leaguesdk.RPCMethodNotFound, Message: "Method not found"}
	}
	resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
	if rpcErr != nil {
		resp["error"] = map[string]any{"code": rpcErr.Code, "message": rpcErr.Message}
	} else {
		resp["result"] = result
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// methods returns the methods the server received.
func (n *nativeServer) methods() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.calls)
}

// serve serves n on a loopback listener until the test ends and returns
// its /mcp endpoint.
func serveNative(t *testing.T, n *nativeServer) string {
	t.Helper()
	ln := listen(t)
	srv := &http.Server{Handler: n, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// nativeCall is how a stand-in calls a peer: tools/call name with the
// message as arguments; it reads the reply's content[0].text, and nothing
// else.
func nativeCall(ctx context.Context, endpoint, name string, args any) (map[string]any, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rand.IntN(1 << 30), "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var r struct {
		Result struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("%s: reply %q: %w", name, raw, err)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: error %d: %s", name, r.Error.Code, r.Error.Message)
	}
	if len(r.Result.Content) == 0 || r.Result.Content[0].Type != "text" {
		return nil, fmt.Errorf("%s: reply %s has no text content", name, raw)
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(r.Result.Content[0].Text), &msg); err != nil {
		return nil, fmt.Errorf("%s: content %q: %w", name, r.Result.Content[0].Text, err)
	}
	return msg, nil
}

// nativePlayer is a player of the MCP-native implementation.
type nativePlayer struct {
	name     string
	endpoint string
	srv      *nativeServer

	mu          sync.Mutex
	id, token   string
	invitations []string // match ids
	choices     []string // match ids asked for a parity
	over        []string // match ids of GAME_OVERs
	standings   int      // LEAGUE_STANDINGS_UPDATEs
	ended       bool     // LEAGUE_COMPLETED came
}

func startNativePlayer(t *testing.T, name string) *nativePlayer {
	t.Helper()
	p := &nativePlayer{name: name}
	ack := func(args json.RawMessage) (any, error) { return map[string]any{"status": "ACK"}, nil }
	matchID := func(args json.RawMessage) string {
		var m struct {
			MatchID string `json:"match_id"`
		}
		_ = json.Unmarshal(args, &m)
		return m.MatchID
	}
	p.srv = &nativeServer{tools: map[string]nativeTool{
		"receive_game_invitation": func(args json.RawMessage) (any, error) {
			p.mu.Lock()
			p.invitations = append(p.invitations, matchID(args))
			p.mu.Unlock()
			return map[string]any{"status": "ACK"}, nil
		},
		"choose_parity": func(args json.RawMessage) (any, error) {
			p.mu.Lock()
			p.choices = append(p.choices, matchID(args))
			id := p.id
			p.mu.Unlock()
			choice := "even"
			if rand.IntN(2) == 1 {
				choice = "odd"
			}
			return map[string]any{"protocol": "league.v2", "message_type": "CHOOSE_PARITY_RESPONSE", "sender": "player:" + id,
				"timestamp": leaguesdk.FormatTime(time.Now()), "match_id": matchID(args), "parity_choice": choice}, nil
		},
		"receive_game_over": func(args json.RawMessage) (any, error) {
			p.mu.Lock()
			p.over = append(p.over, matchID(args))
			p.mu.Unlock()
			return map[string]any{"status": "ACK", "received": true}, nil
		},
		"notify_round": ack,
		"notify_standings": func(args json.RawMessage) (any, error) {
			p.mu.Lock()
			p.standings++
			p.mu.Unlock()
			return map[string]any{"status": "ACK"}, nil
		},
		"receive_round_completed": ack,
		"receive_league_completed": func(args json.RawMessage) (any, error) {
			p.mu.Lock()
			p.ended = true
			p.mu.Unlock()
			return map[string]any{"status": "ACK"}, nil
		},
	}}
	p.endpoint = serveNative(t, p.srv)
	return p
}

// register registers p with the manager at managerURL as that
// implementation does: tools/call register_player with player_meta alone.
func (p *nativePlayer) register(ctx context.Context, managerURL string) error {
	reply, err := nativeCall(ctx, managerURL, "register_player", map[string]any{"player_meta": map[string]any{
		"protocol_version": "2.1.0", "display_name": p.name, "game_types": []string{"even_odd"}, "contact_endpoint": p.endpoint}})
	if err != nil {
		return err
	}
	if reply["status"] != "ACCEPTED" {
		return fmt.Errorf("registration answered %v", reply)
	}
	p.mu.Lock()
	p.id, _ = reply["player_id"].(string)
	p.token, _ = reply["auth_token"].(string)
	p.mu.Unlock()
	return nil
}

// TestLeagueOfMCPNativePlayers: four players of the MCP-native
// implementation register themselves with this module's manager and play
// a whole league refereed by this module's referees: every match is
// played, none is a technical loss, and each player hears of each of its
// matches and of the standings under its own tool names.
func TestLeagueOfMCPNativePlayers(t *testing.T) {
	var mu sync.Mutex
	var suspended []string
	l := newLeagueWith(t, 4, func(cfg *manager.Config) {
		cfg.OnEvent = func(e manager.Event) {
			if e.Kind == manager.EventAgentState && e.Transition != nil && e.Transition.To == manager.StateSuspended {
				mu.Lock()
				suspended = append(suspended, e.Message)
				mu.Unlock()
			}
		}
	})
	l.addReferees(2)
	players := make([]*nativePlayer, 4)
	for i := range players {
		players[i] = startNativePlayer(t, fmt.Sprintf("Native %d", i+1))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := players[i].register(ctx, l.url())
		cancel()
		if err != nil {
			t.Fatalf("%s did not register: %v", players[i].name, err)
		}
	}
	l.await(l.mgr.Done(), "the league to complete")
	results := l.mgr.Results()
	if len(results) != 6 {
		t.Fatalf("%d results, want 6", len(results))
	}
	for _, r := range results {
		if r.Result.Status == leaguesdk.ResultTechnicalLoss || len(r.Result.Details.Unresponsive) > 0 {
			t.Errorf("%s: %+v, want it played", r.MatchID, r.Result)
		}
	}
	for _, p := range players {
		p.mu.Lock()
		inv, ch, over, st := len(p.invitations), len(p.choices), len(p.over), p.standings
		p.mu.Unlock()
		if inv != 3 || ch != 3 || over != 3 || st != 3 {
			t.Errorf("%s (%s): %d invitations, %d parity calls, %d GAME_OVERs, %d standings; want 3 of each", p.name, p.id, inv, ch, over, st)
		}
		// Its tools/list is read by each peer that called it under a name
		// it does not have: the manager and at most two referees.
		lists := 0
		for _, m := range p.srv.methods() {
			if m == "tools/list" {
				lists++
			}
		}
		if lists == 0 || lists > 3 {
			t.Errorf("%s: tools/list read %d times, want once per caller", p.name, lists)
		}
	}
	// LEAGUE_COMPLETED reaches them too, sent after Done: wait for it.
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range players {
		for {
			p.mu.Lock()
			ended := p.ended
			p.mu.Unlock()
			if ended {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no LEAGUE_COMPLETED", p.name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// No call of the manager to them failed.
	mu.Lock()
	defer mu.Unlock()
	if len(suspended) > 0 {
		t.Errorf("agents suspended: %v", suspended)
	}
}

// nativeLeague is the manager and referee of the MCP-native
// implementation in one: it registers players through tools/call
// register_player and runs a four-player round robin, calling each
// player only through tools/call under its own names.
type nativeLeague struct {
	nativeReferee
	url string

	mu      sync.Mutex
	players []nativeEntry
	full    chan struct{}
}

type nativeEntry struct {
	id, name, endpoint, token string
}

const nativeLeagueID = "league_native"

func startNativeLeague(t *testing.T) *nativeLeague {
	t.Helper()
	l := &nativeLeague{nativeReferee: nativeReferee{sender: leaguesdk.RefereeSender("REF01"), token: leaguesdk.NewToken(),
		leagueID: nativeLeagueID}, full: make(chan struct{})}
	srv := &nativeServer{tools: map[string]nativeTool{
		"register_player": func(args json.RawMessage) (any, error) {
			var req leaguesdk.LeagueRegisterRequest
			if err := json.Unmarshal(args, &req); err != nil || req.PlayerMeta.ContactEndpoint == "" {
				return nil, errors.New("Missing required fields")
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			if len(l.players) == 4 {
				return map[string]any{"status": "REJECTED", "reason": "league full"}, nil
			}
			e := nativeEntry{id: fmt.Sprintf("P%02d", len(l.players)+1), name: req.PlayerMeta.DisplayName,
				endpoint: req.PlayerMeta.ContactEndpoint, token: leaguesdk.NewToken()}
			l.players = append(l.players, e)
			if len(l.players) == 4 {
				close(l.full)
			}
			return map[string]any{"protocol": "league.v2", "message_type": "LEAGUE_REGISTER_RESPONSE", "sender": "league_manager",
				"timestamp": leaguesdk.FormatTime(time.Now()), "status": "ACCEPTED", "player_id": e.id, "auth_token": e.token,
				"league_id": nativeLeagueID}, nil
		},
	}}
	l.url = serveNative(t, srv)
	return l
}

// nativeResult is one match as the stand-in referee played it.
type nativeResult struct {
	matchID string
	choices map[string]string
	winner  string
	err     error
}

// play runs the league: for each round, the announcement to every
// player, then each match (invitation, parity call, GAME_OVER), then the
// standings.
func (l *nativeLeague) play(ctx context.Context) []nativeResult {
	l.mu.Lock()
	ps := slices.Clone(l.players)
	l.mu.Unlock()
	rounds := [][][2]int{{{0, 1}, {2, 3}}, {{0, 2}, {1, 3}}, {{0, 3}, {1, 2}}}
	points := map[string]int{}
	var out []nativeResult
	env := func(t leaguesdk.MessageType, sender, token string) leaguesdk.Envelope {
		return leaguesdk.NewEnvelope(t, sender, token, "", time.Now())
	}
	for r, pairs := range rounds {
		round := leaguesdk.RoundID(r + 1)
		var sched []leaguesdk.ScheduledMatch
		for k, pr := range pairs {
			sched = append(sched, leaguesdk.ScheduledMatch{MatchID: fmt.Sprintf("R%dM%d", r+1, k+1), GameType: leaguesdk.GameEvenOdd,
				PlayerAID: ps[pr[0]].id, PlayerBID: ps[pr[1]].id, RefereeEndpoint: l.url})
		}
		for _, p := range ps {
			_, _ = nativeCall(ctx, p.endpoint, "notify_round", &leaguesdk.RoundAnnouncement{
				Envelope: env(leaguesdk.MsgRoundAnnouncement, leaguesdk.LeagueManagerSender, p.token),
				LeagueID: nativeLeagueID, RoundID: round, Matches: sched})
		}
		for k, pr := range pairs {
			res := l.match(ctx, fmt.Sprintf("R%dM%d", r+1, k+1), round, ps[pr[0]], ps[pr[1]])
			out = append(out, res)
			switch {
			case res.err != nil:
			case res.winner == "":
				points[ps[pr[0]].id]++
				points[ps[pr[1]].id]++
			default:
				points[res.winner] += 3
			}
		}
		var rows []leaguesdk.StandingRow
		for _, p := range ps {
			rows = append(rows, leaguesdk.StandingRow{PlayerID: p.id, DisplayName: p.name, Points: points[p.id]})
		}
		for _, p := range ps {
			_, _ = nativeCall(ctx, p.endpoint, "notify_standings", &leaguesdk.LeagueStandingsUpdate{
				Envelope: env(leaguesdk.MsgLeagueStandingsUpdate, leaguesdk.LeagueManagerSender, p.token),
				LeagueID: nativeLeagueID, RoundID: round, Standings: rows})
		}
	}
	return out
}

// nativeReferee is the referee of the MCP-native implementation: its
// sender, the token it sends, the league it plays in.
type nativeReferee struct {
	sender, token, leagueID string
}

// match plays one match between a and b as the stand-in referee does.
func (l *nativeReferee) match(ctx context.Context, matchID string, round leaguesdk.RoundID, a, b nativeEntry) nativeResult {
	res := nativeResult{matchID: matchID, choices: map[string]string{}}
	sender := l.sender
	conv := leaguesdk.NewConversationID()
	pair := [2]nativeEntry{a, b}
	for i, p := range pair {
		role, opp := leaguesdk.PlayerA, pair[1-i]
		if i == 1 {
			role = leaguesdk.PlayerB
		}
		reply, err := nativeCall(ctx, p.endpoint, "receive_game_invitation", &leaguesdk.GameInvitation{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameInvitation, sender, l.token, conv, time.Now()),
			LeagueID: l.leagueID, RoundID: round, MatchID: matchID, GameType: leaguesdk.GameEvenOdd,
			RoleInMatch: role, OpponentID: opp.id, PlayerID: p.id})
		if err == nil && reply["accept"] != true && reply["status"] != "ACK" {
			err = fmt.Errorf("%s did not accept: %v", p.id, reply)
		}
		if err != nil {
			res.err = err
			return res
		}
	}
	for i, p := range pair {
		reply, err := nativeCall(ctx, p.endpoint, "choose_parity", &leaguesdk.ChooseParityCall{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, sender, l.token, conv, time.Now()),
			MatchID:  matchID, PlayerID: p.id, GameType: leaguesdk.GameEvenOdd,
			Context:  leaguesdk.ParityContext{OpponentID: pair[1-i].id, RoundID: round},
			Deadline: leaguesdk.FormatTime(time.Now().Add(30 * time.Second))})
		choice, _ := reply["parity_choice"].(string)
		if err == nil && !leaguesdk.Parity(choice).Valid() {
			err = fmt.Errorf("%s chose %q: %v", p.id, choice, reply)
		}
		if err != nil {
			res.err = err
			return res
		}
		res.choices[p.id] = choice
	}
	n := 1 + rand.IntN(10)
	parity := leaguesdk.Odd
	if n%2 == 0 {
		parity = leaguesdk.Even
	}
	status := leaguesdk.ResultDraw
	for _, p := range pair {
		if leaguesdk.Parity(res.choices[p.id]) == parity && res.choices[a.id] != res.choices[b.id] {
			res.winner, status = p.id, leaguesdk.ResultWin
		}
	}
	choices := map[string]leaguesdk.Parity{a.id: leaguesdk.Parity(res.choices[a.id]), b.id: leaguesdk.Parity(res.choices[b.id])}
	for _, p := range pair {
		_, err := nativeCall(ctx, p.endpoint, "receive_game_over", &leaguesdk.GameOver{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, sender, l.token, conv, time.Now()),
			MatchID:  matchID, GameType: leaguesdk.GameEvenOdd,
			GameResult: leaguesdk.GameResult{Status: status, WinnerPlayerID: leaguesdk.OptionalString(res.winner),
				DrawnNumber: n, NumberParity: parity, Choices: choices, Reason: fmt.Sprintf("the number was %d", n)}})
		if err != nil && res.err == nil {
			res.err = err
		}
	}
	return res
}

// TestOurPlayersInAnMCPNativeLeague: four players of this module register
// with the MCP-native implementation's manager and play every match its
// referee runs, called only through tools/call under that
// implementation's names (receive_game_invitation, receive_game_over,
// notify_standings) and read only through the tool result's text.
func TestOurPlayersInAnMCPNativeLeague(t *testing.T) {
	nl := startNativeLeague(t)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	data := t.TempDir()
	agents := make([]*player.Agent, 4)
	for i := range agents {
		a, err := player.New(player.Config{Name: fmt.Sprintf("Ours %d", i+1), League: nl.url, Listener: listen(t), DataRoot: data})
		if err != nil {
			t.Fatal(err)
		}
		agents[i] = a
		wg.Go(func() {
			if err := a.Run(ctx); err != nil {
				t.Errorf("player %d stopped with an error: %v", i+1, err)
			}
		})
	}
	select {
	case <-nl.full:
	case <-time.After(30 * time.Second):
		t.Fatal("our players did not all register")
	}
	for _, a := range agents {
		select {
		case <-a.Registered():
		case <-time.After(10 * time.Second):
			t.Fatal("a player did not learn it was registered")
		}
	}
	pctx, pcancel := context.WithTimeout(ctx, 60*time.Second)
	results := nl.play(pctx)
	pcancel()
	if len(results) != 6 {
		t.Fatalf("%d matches, want 6", len(results))
	}
	for _, r := range results {
		if r.err != nil || len(r.choices) != 2 {
			t.Errorf("%s not played: %v (choices %v)", r.matchID, r.err, r.choices)
		}
	}
	for _, a := range agents {
		if n := a.History().Len(); n != 3 {
			t.Errorf("%s: history holds %d matches, want 3", a.ID(), n)
		}
		if !strings.HasPrefix(a.ID(), "P0") {
			t.Errorf("player id %q, want the one the league assigned", a.ID())
		}
	}
}

// TestMCPNativeRefereeInOurLeague: a referee of the MCP-native
// implementation registers itself with this module's manager (tools/call
// register_referee, referee_meta alone), answers start_match with
// {"status":"STARTED"} as it starts the match, plays it and reports it;
// the manager takes that reply for an accepted start (no match is taken
// back as refused), and the league of four of this module's players
// completes with every match played by that referee.
func TestMCPNativeRefereeInOurLeague(t *testing.T) {
	var mu sync.Mutex
	var refused []string
	l := newLeagueWith(t, 4, func(cfg *manager.Config) {
		cfg.OnEvent = func(e manager.Event) {
			if e.Kind == manager.EventWarning && e.MatchID != "" {
				mu.Lock()
				refused = append(refused, e.Message)
				mu.Unlock()
			}
		}
	})
	var ref *nativeReferee
	var started int
	var games sync.WaitGroup
	t.Cleanup(games.Wait)
	play := func(r *nativeReferee, sm leaguesdk.StartMatch) error {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res := r.match(ctx, sm.MatchID, sm.RoundID, nativeEntry{id: sm.PlayerAID, endpoint: sm.PlayerAEndpoint},
			nativeEntry{id: sm.PlayerBID, endpoint: sm.PlayerBEndpoint})
		if res.err != nil {
			return res.err
		}
		score := map[string]int{sm.PlayerAID: 1, sm.PlayerBID: 1}
		status := leaguesdk.ResultDraw
		if res.winner != "" {
			score = map[string]int{sm.PlayerAID: 0, sm.PlayerBID: 0}
			score[res.winner], status = 3, leaguesdk.ResultWin
		}
		choices := map[string]leaguesdk.Parity{}
		for id, c := range res.choices {
			choices[id] = leaguesdk.Parity(c)
		}
		reply, err := nativeCall(ctx, l.url(), "report_match_result", &leaguesdk.MatchResultReport{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgMatchResultReport, r.sender, r.token, "", time.Now()),
			LeagueID: sm.LeagueID, RoundID: sm.RoundID, MatchID: sm.MatchID, GameType: leaguesdk.GameEvenOdd,
			Result: leaguesdk.MatchResult{Winner: leaguesdk.OptionalString(res.winner), Score: score, Status: status,
				Details: leaguesdk.MatchDetails{Choices: choices}}})
		if err == nil && reply["message_type"] != string(leaguesdk.MsgAck) {
			err = fmt.Errorf("report answered %v", reply)
		}
		return err
	}
	srv := &nativeServer{tools: map[string]nativeTool{
		"start_match": func(args json.RawMessage) (any, error) {
			var sm leaguesdk.StartMatch
			if err := json.Unmarshal(args, &sm); err != nil {
				return nil, err
			}
			mu.Lock()
			r := ref
			started++
			mu.Unlock()
			games.Go(func() {
				if err := play(r, sm); err != nil {
					t.Errorf("%s: %v", sm.MatchID, err)
				}
			})
			return map[string]any{"status": "STARTED"}, nil
		},
		"receive_league_completed": func(json.RawMessage) (any, error) { return map[string]any{"status": "ACK"}, nil },
	}}
	endpoint := serveNative(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	reply, err := nativeCall(ctx, l.url(), "register_referee", map[string]any{"referee_meta": map[string]any{
		"protocol_version": "2.1.0", "display_name": "Native Referee", "game_types": []string{"even_odd"},
		"contact_endpoint": endpoint, "max_concurrent_matches": 1}})
	cancel()
	if err != nil || reply["status"] != "ACCEPTED" {
		t.Fatalf("referee registration: %v %v", reply, err)
	}
	id, _ := reply["referee_id"].(string)
	token, _ := reply["auth_token"].(string)
	mu.Lock()
	ref = &nativeReferee{sender: leaguesdk.RefereeSender(id), token: token, leagueID: l.mgr.LeagueID()}
	mu.Unlock()
	for i := range 4 {
		l.addPlayer(fmt.Sprintf("Ours %d", i+1), nil)
	}
	l.await(l.mgr.Done(), "the league to complete")
	results := l.mgr.Results()
	if len(results) != 6 {
		t.Fatalf("%d results, want 6", len(results))
	}
	for _, r := range results {
		if r.RefereeID != id || r.Result.Status == leaguesdk.ResultTechnicalLoss {
			t.Errorf("%s: refereed by %s, %+v", r.MatchID, r.RefereeID, r.Result)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if started != 6 || len(refused) > 0 {
		t.Errorf("start_match reached the referee %d times, want 6; taken back: %v", started, refused)
	}
}
