package playertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// checkHealth: GET /health.
func (s *suite) checkHealth(ctx context.Context) {
	const id = "health"
	if !s.want(id) {
		return
	}
	x := s.get(ctx, s.healthURL, wait(s.opt.Timeout))
	var v verdict
	switch body := object(x.payload); {
	case !x.answered():
		v.fail("GET /health got no answer")
	case x.status != http.StatusOK:
		v.fail("GET /health answered HTTP %d, want 200", x.status)
	case body == nil:
		v.fail("the body is not a JSON object")
	default:
		if st, _ := body.str("status"); st != "healthy" {
			v.fail(`status is %q, want "healthy"`, st)
		} else if a, _ := body.str("agent"); a == "" {
			v.warn(`no "agent" member naming the player (such as "player:P01")`)
		}
	}
	s.record(id, x, v, "the player is up")
}

// checkMCP: initialize, notifications/initialized, tools/list.
func (s *suite) checkMCP(ctx context.Context) {
	if s.want("mcp.initialize") {
		id := s.nextID.Add(1)
		x := s.post(ctx, request(&id, "initialize", map[string]any{
			"protocolVersion": "2025-06-18",
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]string{"name": "league-playertest", "version": leaguesdk.Version},
		}), wait(s.opt.Timeout))
		if x.answered() {
			if sid := x.header.Get("Mcp-Session-Id"); sid != "" {
				s.mu.Lock()
				s.session = sid
				s.mu.Unlock()
			}
		}
		r := parse(x)
		var v verdict
		res := object(r.result)
		switch {
		case r.rpcErr != nil:
			v.warn("initialize is refused (%s): MCP clients cannot connect, though referees can still play", refusal(x, r))
		case res == nil:
			v.fail("initialize was not answered with a result: %s", refusal(x, r))
		default:
			if pv, _ := res.str("protocolVersion"); !slices.Contains(mcpVersions, pv) {
				v.fail("protocolVersion %q is none of %s", pv, strings.Join(mcpVersions, ", "))
			}
			if !object(res["capabilities"]).has("tools") {
				v.fail(`capabilities has no "tools": MCP clients will not list the player's tools`)
			}
			if object(res["serverInfo"]) == nil {
				v.warn("no serverInfo")
			}
		}
		s.record("mcp.initialize", x, v, "initialize answered")
	}
	if s.want("mcp.initialized") {
		x := s.post(ctx, request(nil, "notifications/initialized", nil), wait(s.opt.Timeout))
		var v verdict
		empty := len(bytes.TrimSpace(x.body)) == 0
		switch {
		case !x.answered():
			v.fail("the notification got no answer")
		case x.status >= 500:
			v.fail("the notification was answered HTTP %d", x.status)
		case x.status != http.StatusAccepted:
			v.warn("answered HTTP %d, want 202", x.status)
		}
		if x.answered() && !empty {
			v.warn("a notification gets no body, but one came back")
		}
		s.record("mcp.initialized", x, v, "202, no body")
	}
	if s.want("mcp.tools_list") {
		id := s.nextID.Add(1)
		x := s.post(ctx, request(&id, "tools/list", map[string]any{}), wait(s.opt.Timeout))
		r := parse(x)
		var v verdict
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		}
		switch {
		case r.rpcErr != nil:
			v.warn("tools/list is refused (%s): MCP clients cannot find the player's tools, though referees can still play", refusal(x, r))
		case json.Unmarshal(r.result, &list) != nil || list.Tools == nil:
			why := refusal(x, r)
			if why == "" {
				why = "the result holds no tools array"
			}
			v.fail("tools/list was not answered with a tool list: %s", why)
		default:
			var names []string
			for _, t := range list.Tools {
				names = append(names, t.Name)
				if object(t.InputSchema) == nil {
					v.fail("tool %s has no inputSchema object", t.Name)
				}
			}
			s.tools, s.toolsRead = names, true
			for _, n := range requiredTools {
				if !slices.Contains(names, n) {
					v.fail("tool %s is not listed", n)
				}
			}
			var missing []string
			for _, n := range expectedTools {
				if !slices.Contains(names, n) {
					missing = append(missing, n)
				}
			}
			if len(missing) > 0 {
				v.warn("not listed: %s (MCP clients cannot find them)", strings.Join(missing, ", "))
			}
		}
		s.record("mcp.tools_list", x, v, fmt.Sprintf("%d tools listed", len(list.Tools)))
	}
}

// answer is one exchange of the game flow with what the kit sent.
type answer struct {
	name  string // the message type expected back
	x     *exchange
	r     *reply
	id    int64
	match match
}

// ok reports whether the answer holds a reply message.
func (a answer) ok() bool { return refusal(a.x, a.r) == "" }

// checkGame plays one match in the spec form: invitation, then parity
// call; the replies feed the spec, shape, envelope, timing and parity checks.
func (s *suite) checkGame(ctx context.Context) {
	m := s.newMatch(s.opponents()[0])
	s.announce(ctx, m)
	x1, r1, id1 := s.call(ctx, formSpec, leaguesdk.MethodHandleGameInvitation, s.invitation(m), s.opt.Timeout)
	ack := answer{string(leaguesdk.MsgGameJoinAck), x1, r1, id1, m}
	x2, r2, id2 := s.call(ctx, formSpec, leaguesdk.MethodChooseParity, s.parityCall(m), s.opt.ChoiceDeadline)
	resp := answer{string(leaguesdk.MsgChooseParityResponse), x2, r2, id2, m}
	s.gameMatch = m

	if s.want(idInviteSpec) {
		var v verdict
		if why := refusal(x1, r1); why != "" {
			v.fail("the invitation was not acknowledged: %s", why)
		} else if acc, ok := accept(r1.msg); ok && !acc {
			v.warn("the player declined the match (accept false): a referee records a technical loss")
		}
		if r1.viaTool != "" {
			v.warn("%s", viaToolNote(leaguesdk.MethodHandleGameInvitation, r1.viaTool))
		}
		s.record(idInviteSpec, x1, v, "acknowledged in "+ms(x1.elapsed))
	}
	if s.want(idChooseSpec) {
		var v verdict
		if why := refusal(x2, r2); why != "" {
			v.fail("the parity call was not answered: %s", why)
		} else if _, ok := choice(r2.msg); !ok {
			v.fail("the reply carries no parity_choice")
		}
		if r2.viaTool != "" {
			v.warn("%s", viaToolNote(leaguesdk.MethodChooseParity, r2.viaTool))
		}
		s.record(idChooseSpec, x2, v, "answered in "+ms(x2.elapsed))
	}
	answers := []answer{ack, resp}
	if s.want(idShape) {
		s.checkShape(answers)
	}
	s.checkEnvelope(answers)
	if s.want(idJoinTiming) {
		s.checkTiming(idJoinTiming, x1, s.opt.Timeout)
	}
	if s.want(idChoiceTiming) {
		s.checkTiming(idChoiceTiming, x2, s.opt.ChoiceDeadline)
	}
	if s.want(idParity) {
		p, ok := choice(r2.msg)
		switch {
		case !resp.ok() || !ok:
			s.add(idParity, x2, Skip, "no parity choice to look at (see "+idChooseSpec+")")
		case leaguesdk.Parity(p).Valid():
			s.add(idParity, x2, Pass, "chose "+p)
		default:
			s.add(idParity, x2, Fail, fmt.Sprintf(`E004 INVALID_PARITY_CHOICE: %q is not exactly "even" or "odd" (the protocol is case sensitive); a referee refuses it and the player loses the match`, p))
		}
	}
}

func (s *suite) checkTiming(id string, x *exchange, limit time.Duration) {
	switch {
	case !x.answered():
		s.add(id, x, Fail, fmt.Sprintf("no reply within %s (the deadline is %s)", ms(x.elapsed), limit))
	case x.elapsed > limit:
		s.add(id, x, Fail, fmt.Sprintf("the reply took %s, past the %s deadline: a referee has given up by then and records a technical loss", ms(x.elapsed), limit))
	default:
		s.add(id, x, Pass, fmt.Sprintf("answered in %s (deadline %s)", ms(x.elapsed), limit))
	}
}

// checkShape looks at how the replies of the game flow are framed and
// which of their message's own fields are there.
func (s *suite) checkShape(answers []answer) {
	var v verdict
	var looked *exchange
	for _, a := range answers {
		if !a.ok() {
			continue
		}
		if looked == nil || v.worst == "" {
			looked = a.x
		}
		note := func(f func(string, ...any), format string, args ...any) {
			f(a.name+": "+format, args...)
		}
		if a.x.status != http.StatusOK {
			note(v.warn, "answered HTTP %d; a reply goes with 200", a.x.status)
		}
		if ct := a.x.header.Get("Content-Type"); a.x.sse {
			note(v.warn, "answered as an SSE stream, not application/json (the project's client reads both)")
		} else if !strings.HasPrefix(ct, "application/json") {
			note(v.warn, "Content-Type %q, want application/json", ct)
		}
		switch a.r.where {
		case inResult:
		case inParams:
			note(v.warn, `the reply is request-shaped ({"method":…,"params":{…}}): accepted by tolerant readers, not the spec form, which carries the message itself as result`)
		case inStructured, inContent:
			if a.r.viaTool == "" { // a tools/call reply is wrapped as it should be
				note(v.warn, "the message is wrapped in MCP content: direct methods carry the message itself as result (the wrapping is for tools/call)")
			}
		case inNested:
			note(v.warn, "result wraps the message in another object: direct methods carry the message itself as result")
		case inTopLevel:
			note(v.warn, "the message is the whole body, not a JSON-RPC result: accepted by tolerant readers, not the spec form")
		}
		if a.r.where != inParams && a.r.where != inTopLevel {
			if a.r.jsonrpc == nil || *a.r.jsonrpc != "2.0" {
				note(v.fail, `no "jsonrpc":"2.0"`)
			}
			if want := fmt.Sprint(a.id); string(bytes.TrimSpace(a.r.id)) != want {
				note(v.fail, "id %s does not echo the request's id %s", orNone(a.r.id), want)
			}
		}
		if t, _ := a.r.msg.str("message_type"); t != a.name {
			note(v.fail, "message_type %q, want %q", t, a.name)
		}
		if mid, _ := a.r.msg.str("match_id"); mid == "" {
			note(v.fail, "match_id is missing (E003): a referee cannot tell which match the reply is for")
		}
		switch a.name {
		case string(leaguesdk.MsgGameJoinAck):
			if _, ok := a.r.msg["accept"]; ok {
				if _, isBool := accept(a.r.msg); !isBool {
					note(v.fail, "accept is not a boolean")
				}
			} else if _, ok := accept(a.r.msg); ok {
				note(v.warn, `"accepted" instead of "accept": read by tolerant readers only`)
			} else if st, _ := a.r.msg.str("status"); strings.EqualFold(st, "ACK") && !a.r.msg.has("message_type") {
				note(v.warn, `a bare {"status":"ACK"} instead of GAME_JOIN_ACK with accept: this project's referees read it as an acceptance, others may not`)
			} else {
				note(v.fail, "accept is missing (E003): a referee reads a missing accept as a refusal")
			}
		case string(leaguesdk.MsgChooseParityResponse):
			if _, ok := a.r.msg.str("parity_choice"); !ok {
				if _, alias := a.r.msg.str("choice"); alias {
					note(v.warn, `"choice" instead of "parity_choice": read by tolerant readers only`)
				} else {
					note(v.fail, "parity_choice is missing (E003)")
				}
			}
		}
	}
	if looked == nil {
		s.add(idShape, answers[0].x, Skip, "no reply message to look at (see "+idInviteSpec+" and "+idChooseSpec+")")
		return
	}
	s.record(idShape, looked, v, "both replies are JSON-RPC 2.0 results carrying the message with its required fields")
}

// checkEnvelope checks the envelope fields of the game flow's replies,
// one check per field.
func (s *suite) checkEnvelope(answers []answer) {
	var got []answer
	for _, a := range answers {
		if a.ok() {
			got = append(got, a)
		}
	}
	type fieldCheck struct {
		id string
		f  func(v *verdict, a answer, m fields)
	}
	for _, fc := range []fieldCheck{
		{"envelope.protocol", func(v *verdict, a answer, m fields) {
			if p, ok := m.str("protocol"); !ok {
				v.fail("%s has no protocol (E003)", a.name)
			} else if p != leaguesdk.Protocol {
				v.fail("%s: protocol %q, want %q (E018)", a.name, p, leaguesdk.Protocol)
			}
		}},
		{"envelope.timestamp", func(v *verdict, a answer, m fields) {
			for _, k := range []string{"timestamp", "arrival_timestamp"} {
				ts, ok := m.str(k)
				switch {
				case !ok && k == "timestamp":
					v.fail("%s has no timestamp (E003)", a.name)
				case !ok:
				case leaguesdk.CodeOf(parseTime(ts)) != "":
					v.fail("%s: %s %q is not RFC 3339 in UTC (E021)", a.name, k, ts)
				case !strings.HasSuffix(ts, "Z"):
					v.warn("%s: %s %q is UTC but not in the Z form the profile sends", a.name, k, ts)
				}
			}
		}},
		{"envelope.sender", func(v *verdict, a answer, m fields) {
			snd, _ := m.str("sender")
			kind, _ := leaguesdk.SplitSender(snd)
			switch {
			case snd == "":
				v.fail("%s has no sender (E003)", a.name)
			case kind == "player" && strings.HasPrefix(snd, "player:"):
			case kind == "player" || kind == "":
				v.warn("%s: sender %q is read by tolerant readers; the profile sends \"player:<id>\"", a.name, snd)
			default:
				v.fail("%s: sender %q is not a player", a.name, snd)
			}
		}},
		{"envelope.conversation_id", func(v *verdict, a answer, m fields) {
			conv, _ := m.str("conversation_id")
			switch {
			case conv == "":
				v.fail("%s has no conversation_id (E003)", a.name)
			case conv != a.match.conv:
				v.warn("%s: conversation_id %q is not the request's %q: a referee's transcript groups a match by it", a.name, conv, a.match.conv)
			}
		}},
		{"envelope.match_id", func(v *verdict, a answer, m fields) {
			if mid, _ := m.str("match_id"); mid != "" && mid != a.match.id {
				v.fail("%s: match_id %q, but the request was for %q: a referee takes it for another match's reply", a.name, mid, a.match.id)
			}
		}},
		{"envelope.player_id", func(v *verdict, a answer, m fields) {
			pid, _ := m.str("player_id")
			switch {
			case pid == "":
				v.warn("%s has no player_id", a.name)
			case pid != s.opt.PlayerID:
				v.warn("%s: player_id %q, but the request addressed %q: a referee logs it and goes by the endpoint (set Options.PlayerID to the player's id)", a.name, pid, s.opt.PlayerID)
			}
		}},
		{"envelope.auth_token", func(v *verdict, a answer, m fields) {
			tok, ok := m.str("auth_token")
			switch {
			case !ok:
				v.fail("%s has no auth_token member", a.name)
			case tok != "" && leaguesdk.TokensEqual(tok, s.opt.AuthToken):
				v.fail("%s carries the referee's token back: a player sends its own", a.name)
			case s.opt.PlayerToken != "" && !leaguesdk.TokensEqual(tok, s.opt.PlayerToken):
				v.fail("%s does not carry the player's token (Options.PlayerToken)", a.name)
			}
		}},
	} {
		if !s.want(fc.id) {
			continue
		}
		if len(got) == 0 {
			s.add(fc.id, answers[0].x, Skip, "no reply message to look at (see "+idInviteSpec+" and "+idChooseSpec+")")
			continue
		}
		if fc.id == "envelope.match_id" && !hasMatchID(got) {
			s.add(fc.id, got[0].x, Skip, "no reply carries a match_id (see "+idShape+")")
			continue
		}
		var v verdict
		looked := got[0].x
		var names []string
		for _, a := range got {
			before := len(v.notes)
			fc.f(&v, a, a.r.msg)
			if before == 0 && len(v.notes) > 0 {
				looked = a.x
			}
			names = append(names, a.name)
		}
		ok := "as the profile says in " + strings.Join(names, " and ")
		if fc.id == "envelope.auth_token" && s.opt.PlayerToken == "" {
			ok = "present (set Options.PlayerToken to check it is the player's own)"
		}
		s.record(fc.id, looked, v, ok)
	}
}

func hasMatchID(as []answer) bool {
	for _, a := range as {
		if mid, _ := a.r.msg.str("match_id"); mid != "" {
			return true
		}
	}
	return false
}

func parseTime(s string) error {
	_, err := leaguesdk.ParseTime(s)
	return err
}
