package playertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// Rules cited by the checks: sections of the project's protocol profile.
const (
	ruleTransport = "PROFILE §Transport"
	ruleMethods   = "PROFILE §Methods"
	ruleMCP       = "PROFILE §Methods (MCP clients)"
	ruleForms1    = "PROFILE §Methods (Accept as well, 1)"
	ruleForms2    = "PROFILE §Methods (Accept as well, 2)"
	ruleReply     = "PROFILE §Methods, §Transport"
	ruleEnvelope  = "PROFILE §Envelope"
	ruleReplies   = "PROFILE §Envelope, §Interoperability/Reading replies"
	ruleTimeouts  = "PROFILE §Timeouts"
	ruleParity    = "PROFILE §Envelope (E004), §Game and scoring"
	ruleReceiving = "PROFILE §Interoperability/Receiving"
	ruleRobust    = "PROFILE §Transport (JSON-RPC errors)"
	ruleSecrets   = "PROFILE §Who authenticates whom"
	ruleDialect   = "PROFILE §Interoperability with other implementations"
)

// check describes one check of the suite.
type check struct {
	id, title, rule string
}

// The ids of the checks whose results depend on more than one exchange.
const (
	idInviteSpec   = "tool." + leaguesdk.MethodHandleGameInvitation + ".spec"
	idChooseSpec   = "tool." + leaguesdk.MethodChooseParity + ".spec"
	idShape        = "reply.shape"
	idJoinTiming   = "timing.join_ack"
	idChoiceTiming = "timing.choice"
	idParity       = "choice.parity"
	idRobust       = "robust.malformed"
	idStateNoToken = "secret.state_no_token"
	idReplyShapes  = "reply.shapes"
)

// checks lists every check in the order the suite runs them.
var checks = []check{
	{"health", "GET /health answers 200 with status healthy", ruleTransport},
	{"mcp.initialize", "MCP initialize echoes a supported protocolVersion with tools capability", ruleMCP},
	{"mcp.initialized", "a JSON-RPC notification gets HTTP 202 and no body", ruleTransport},
	{"mcp.tools_list", "tools/list lists the player's tools, each with an inputSchema", ruleMCP},
	{idInviteSpec, "handle_game_invitation in the spec form is answered with GAME_JOIN_ACK", ruleMethods},
	{idChooseSpec, "choose_parity in the spec form is answered with CHOOSE_PARITY_RESPONSE", ruleMethods},
	{idShape, "replies are JSON-RPC 2.0 responses carrying the message as result, with its required fields", ruleReply},
	{"envelope.protocol", `replies carry protocol "league.v2"`, ruleEnvelope},
	{"envelope.timestamp", "reply timestamps are RFC 3339 in UTC with a Z suffix", ruleEnvelope},
	{"envelope.sender", `replies carry sender "player:<id>"`, ruleEnvelope},
	{"envelope.conversation_id", "replies carry the conversation_id of the request", ruleEnvelope},
	{"envelope.match_id", "replies carry the match_id of the request", ruleEnvelope},
	{"envelope.player_id", "replies carry the player_id the request addressed", ruleReplies},
	{"envelope.auth_token", "replies carry the player's own auth_token", ruleEnvelope},
	{idJoinTiming, "GAME_JOIN_ACK comes within the join deadline (5 s by default)", ruleTimeouts},
	{idChoiceTiming, "CHOOSE_PARITY_RESPONSE comes within the choice deadline (30 s by default)", ruleTimeouts},
	{idParity, `parity_choice is exactly "even" or "odd"`, ruleParity},
	{"tool.handle_game_invitation.tools_call", "handle_game_invitation through MCP tools/call gets an MCP tool result", ruleForms1},
	{"tool.handle_game_invitation.message_type", "method GAME_INVITATION is routed to the invitation", ruleForms2},
	{"tool.handle_game_invitation.generic", "method mcp_message is routed on params.message_type", ruleForms2},
	{"tool.choose_parity.tools_call", "choose_parity through MCP tools/call gets an MCP tool result", ruleForms1},
	{"tool.choose_parity.message_type", "method CHOOSE_PARITY_CALL is routed to the parity call", ruleForms2},
	{"tool.choose_parity.generic", "method mcp_message is routed on params.message_type", ruleForms2},
	{idReplyShapes, "reports the shapes of the replies to a caller sending lower-case message types as methods (result, bare message, request-shaped)", ruleDialect},
	{"notify.notify_game_error", "GAME_ERROR (notify_game_error) is acknowledged", ruleReceiving},
	{"notify.notify_match_result", "GAME_OVER (notify_match_result) is acknowledged", ruleReceiving},
	{"receive.repeated_game_over", "a repeated GAME_OVER is acknowledged again", ruleReceiving},
	{"notify.notify_round", "ROUND_ANNOUNCEMENT (notify_round) is acknowledged", ruleReceiving},
	{"notify.update_standings", "LEAGUE_STANDINGS_UPDATE (update_standings) is acknowledged", ruleReceiving},
	{"notify.notify_round_completed", "ROUND_COMPLETED (notify_round_completed) is acknowledged", ruleReceiving},
	{"receive.choice_without_invitation", "a parity call for a match never announced is answered", ruleReceiving},
	{"concurrency.two_matches", "two matches at once are both acknowledged and answered, each under its own match_id", ruleReceiving},
	{"tool.get_player_state", "get_player_state (a debugging tool) answers with the player's state", ruleMethods},
	{idStateNoToken, "get_player_state asked by an anonymous caller answers no auth token", ruleSecrets},
	{idRobust, "malformed requests get JSON-RPC errors and the player still answers a valid call after each", ruleRobust},
	{"notify.notify_league_completed", "LEAGUE_COMPLETED (notify_league_completed) is acknowledged", ruleReceiving},
}

// CheckIDs returns the ids of every check of the suite, in the order they
// run.
func CheckIDs() []string {
	ids := make([]string, len(checks))
	for i, c := range checks {
		ids[i] = c.id
	}
	return ids
}

// The player tools an MCP client must find in tools/list, and the
// notification tools it should find there.
var (
	requiredTools = []string{leaguesdk.MethodHandleGameInvitation, leaguesdk.MethodChooseParity, leaguesdk.MethodNotifyMatchResult}
	expectedTools = []string{leaguesdk.MethodNotifyGameError, leaguesdk.MethodNotifyRound, leaguesdk.MethodUpdateStandings,
		leaguesdk.MethodNotifyRoundCompleted, leaguesdk.MethodNotifyLeagueCompleted}
)

// mcpVersions are the MCP protocol versions a player may answer initialize with.
var mcpVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

const (
	refereeID = "REF01"
	leagueID  = "league_playertest"
)

// suite is one conformance run.
type suite struct {
	endpoint  string
	healthURL string
	opt       Options
	client    *http.Client
	ownClient bool
	byID      map[string]check
	results   []Result

	nextID  atomic.Int64
	mu      sync.Mutex
	session string // Mcp-Session-Id given by initialize, if any

	// tools are the names the player's tools/list gives, read once
	// (toolsRead), for a player that serves the messages only through
	// tools/call, under names of its own.
	tools     []string
	toolsRead bool

	round     int   // the round number of this run's matches
	matches   int   // matches made so far
	gameMatch match // the match of the spec-form game flow
	gone      bool  // the player stopped answering in the robustness check
}

func newSuite(endpoint string, u *url.URL, o Options) *suite {
	h := *u
	h.Path = strings.TrimSuffix(strings.TrimSuffix(h.Path, "/"), "/mcp") + "/health"
	h.RawPath, h.RawQuery, h.Fragment = "", "", ""
	s := &suite{endpoint: endpoint, healthURL: h.String(), opt: o, client: o.HTTPClient, byID: map[string]check{}}
	if s.client == nil {
		s.client, s.ownClient = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}, true
	}
	for _, c := range checks {
		s.byID[c.id] = c
	}
	// Each run uses its own round number, so that runs against a
	// long-lived player never reuse a match id.
	n, err := rand.Int(rand.Reader, big.NewInt(900))
	if err != nil {
		n = big.NewInt(0)
	}
	s.round = 100 + int(n.Int64())
	s.nextID.Store(1000)
	return s
}

func (s *suite) close() {
	if s.ownClient {
		s.client.CloseIdleConnections()
	}
}

func (s *suite) run(ctx context.Context) {
	steps := []func(context.Context){s.checkHealth, s.checkMCP, s.checkGame, s.checkForms, s.checkReplyShapes,
		s.checkNotifications, s.checkReceiving, s.checkConcurrency, s.checkPlayerState, s.checkRobustness, s.checkLeagueCompleted}
	for _, step := range steps {
		if ctx.Err() != nil {
			return
		}
		step(ctx)
	}
}

// want reports whether the check is to run, recording it as skipped when not.
func (s *suite) want(id string) bool {
	if !s.opt.skipped(id) {
		return true
	}
	s.add(id, nil, Skip, "skipped by Options.Skip")
	return false
}

// add records the result of a check; x is the exchange it looked at.
func (s *suite) add(id string, x *exchange, st Status, detail string) {
	c, ok := s.byID[id]
	if !ok {
		panic("playertest: unknown check " + id)
	}
	r := Result{ID: id, Title: c.title, Rule: c.rule, Status: st, Detail: detail}
	if x != nil {
		r.Sent, r.Received = x.describeSent(), x.describeReceived()
	}
	s.results = append(s.results, r)
}

// verdict collects what a check found wrong.
type verdict struct {
	worst Status
	notes []string
}

func (v *verdict) fail(format string, args ...any) {
	v.worst = Fail
	v.notes = append(v.notes, fmt.Sprintf(format, args...))
}

func (v *verdict) warn(format string, args ...any) {
	if v.worst != Fail {
		v.worst = Warn
	}
	v.notes = append(v.notes, fmt.Sprintf(format, args...))
}

// record adds the check's result: its findings, or ok when there are none.
func (s *suite) record(id string, x *exchange, v verdict, ok string) {
	if v.worst == "" {
		s.add(id, x, Pass, ok)
		return
	}
	s.add(id, x, v.worst, strings.Join(v.notes, "; "))
}

// wait is how long the kit waits for a reply due within limit: as long
// again, and at least a second more, so that a late reply is still seen.
func wait(limit time.Duration) time.Duration { return limit + max(limit, time.Second) }

// match is a match the kit makes up to talk about.
type match struct {
	id, opponent, conv string
}

func (s *suite) newMatch(opponent string) match {
	s.matches++
	return match{id: fmt.Sprintf("R%dM%d", s.round, s.matches), opponent: opponent, conv: leaguesdk.NewConversationID()}
}

// announce tells the player of m as its manager would, with the player's
// own token, when the kit knows it: a player answers a referee with its
// token only about a match its manager announced. The answer is not
// checked here (notify.notify_round checks announcements).
func (s *suite) announce(ctx context.Context, m match) {
	if s.opt.PlayerToken == "" {
		return
	}
	ra := &leaguesdk.RoundAnnouncement{Envelope: s.managerEnvelope(leaguesdk.MsgRoundAnnouncement), LeagueID: leagueID,
		RoundID: leaguesdk.RoundID(s.round), Matches: []leaguesdk.ScheduledMatch{{MatchID: m.id, GameType: leaguesdk.GameEvenOdd,
			PlayerAID: s.opt.PlayerID, PlayerBID: m.opponent, RefereeEndpoint: "http://127.0.0.1:8001/mcp"}}}
	s.call(ctx, formSpec, leaguesdk.MethodNotifyRound, ra, s.opt.Timeout)
}

// opponents returns player ids other than the one under test.
func (s *suite) opponents() [3]string {
	var out [3]string
	n := 0
	for i := 1; n < len(out); i++ {
		if id := fmt.Sprintf("P%02d", i); id != s.opt.PlayerID {
			out[n] = id
			n++
		}
	}
	return out
}

func (s *suite) refereeEnvelope(t leaguesdk.MessageType, conv string) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, leaguesdk.RefereeSender(refereeID), s.opt.AuthToken, conv, time.Now())
}

// managerEnvelope carries the player's own token when it is known, as the
// manager's broadcasts do.
func (s *suite) managerEnvelope(t leaguesdk.MessageType) leaguesdk.Envelope {
	tok := s.opt.PlayerToken
	if tok == "" {
		tok = s.opt.AuthToken
	}
	return leaguesdk.NewEnvelope(t, leaguesdk.LeagueManagerSender, tok, "", time.Now())
}

func (s *suite) invitation(m match) *leaguesdk.GameInvitation {
	return &leaguesdk.GameInvitation{
		Envelope: s.refereeEnvelope(leaguesdk.MsgGameInvitation, m.conv),
		LeagueID: leagueID, RoundID: leaguesdk.RoundID(s.round), MatchID: m.id, GameType: leaguesdk.GameEvenOdd,
		RoleInMatch: leaguesdk.PlayerA, OpponentID: m.opponent, PlayerID: s.opt.PlayerID,
	}
}

func (s *suite) parityCall(m match) *leaguesdk.ChooseParityCall {
	// The deadline is rounded up to whole seconds, the form timestamps are
	// sent in, so that it never falls before the kit's own.
	due := time.Now().Add(s.opt.ChoiceDeadline)
	if t := due.Truncate(time.Second); !t.Equal(due) {
		due = t.Add(time.Second)
	}
	return &leaguesdk.ChooseParityCall{
		Envelope: s.refereeEnvelope(leaguesdk.MsgChooseParityCall, m.conv),
		MatchID:  m.id, PlayerID: s.opt.PlayerID, GameType: leaguesdk.GameEvenOdd,
		Context:  leaguesdk.ParityContext{OpponentID: m.opponent, RoundID: leaguesdk.RoundID(s.round)},
		Deadline: leaguesdk.FormatTime(due),
	}
}

// form is a wire form in which the kit sends a message.
type form int

const (
	formSpec        form = iota // the spec method, flat params
	formToolsCall               // MCP tools/call {name, arguments}
	formMessageType             // the method is the message type
	formGeneric                 // method mcp_message, routed on params.message_type
)

func (f form) String() string {
	return [...]string{"spec", "tools_call", "message_type", "generic"}[f]
}

// request encodes a JSON-RPC request. A nil id makes it a notification.
func request(id *int64, method string, params any) []byte {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      *int64 `json:"id,omitempty"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params})
	if err != nil {
		panic("playertest: request does not encode: " + err.Error())
	}
	return b
}

// call sends msg to the player's method in form f and reads the answer.
func (s *suite) call(ctx context.Context, f form, method string, msg leaguesdk.Message, limit time.Duration) (*exchange, *reply, int64) {
	id := s.nextID.Add(1)
	var params any = msg
	switch f {
	case formToolsCall:
		params = map[string]any{"name": method, "arguments": msg}
		method = "tools/call"
	case formMessageType:
		method = string(msg.Header().MessageType)
	case formGeneric:
		method = "mcp_message"
	}
	x := s.post(ctx, request(&id, method, params), wait(limit))
	r := parse(x)
	if f == formSpec && specRefused(x, r) {
		// As the project's referees do: a player that refuses the spec
		// method may serve the message as tools/call, under the spec name
		// or a name of its own its tools/list gives.
		if name := s.toolFor(ctx, method, msg.Header().MessageType); name != "" {
			id2 := s.nextID.Add(1)
			x2 := s.post(ctx, request(&id2, "tools/call", map[string]any{"name": name, "arguments": msg}), wait(limit))
			if r2 := parse(x2); refusal(x2, r2) == "" {
				r2.viaTool = name
				return x2, r2, id2
			}
		}
	}
	return x, r, id
}

// specRefused reports whether the player refused a spec-form request as
// a form it does not serve: a JSON-RPC error without a protocol error in
// its data.
func specRefused(x *exchange, r *reply) bool {
	if !x.answered() || r.rpcErr == nil {
		return false
	}
	code, _ := object(r.rpcErr.Data).str("error_code")
	return code == ""
}

// toolFor returns the tool to send a message of type t under when the
// player refuses method: method itself when the player lists it (it
// serves tools/call only), else the player's own name for the message
// ([leaguesdk.PeerTool]); "" when it lists neither.
func (s *suite) toolFor(ctx context.Context, method string, t leaguesdk.MessageType) string {
	if !s.toolsRead {
		s.toolsRead = true
		id := s.nextID.Add(1)
		s.tools = toolNames(parse(s.post(ctx, request(&id, "tools/list", map[string]any{}), wait(s.opt.Timeout))))
	}
	for _, n := range s.tools {
		if n == method {
			return n
		}
	}
	return leaguesdk.PeerTool(s.tools, method, t)
}

// toolNames returns the tool names of a tools/list answer.
func toolNames(r *reply) []string {
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if r.rpcErr != nil || json.Unmarshal(r.result, &list) != nil {
		return nil
	}
	names := make([]string, 0, len(list.Tools))
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	return names
}

// viaToolNote is the warning of a check whose message the player took
// only as tools/call under name, having refused the spec method.
func viaToolNote(method, name string) string {
	if name == method {
		return fmt.Sprintf("the spec method %s is refused and the player answers it only as tools/call %s: "+
			"this project's agents fall back to tools/call; callers that send the spec method only cannot play with the player", method, name)
	}
	return fmt.Sprintf("the spec method %s is refused and the player serves the message only as tools/call %s, a name of its own: "+
		"this project's agents learn the name from tools/list; callers that send the spec names only cannot play with the player", method, name)
}

func (s *suite) sessionID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}

// ms formats a duration for a report, to the millisecond, or to the
// microsecond below one.
func ms(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func orNone(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "(none)"
	}
	return string(raw)
}
