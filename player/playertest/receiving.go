package playertest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// checkForms sends both game calls in the other accepted wire forms.
// A refused form is a warning: peers that send the spec form still play.
func (s *suite) checkForms(ctx context.Context) {
	for _, method := range []string{leaguesdk.MethodHandleGameInvitation, leaguesdk.MethodChooseParity} {
		for _, f := range []form{formToolsCall, formMessageType, formGeneric} {
			id := "tool." + method + "." + f.String()
			if !s.want(id) {
				continue
			}
			m := s.newMatch(s.opponents()[0])
			var msg leaguesdk.Message = s.invitation(m)
			limit := s.opt.Timeout
			if method == leaguesdk.MethodChooseParity {
				s.call(ctx, formSpec, leaguesdk.MethodHandleGameInvitation, s.invitation(m), s.opt.Timeout)
				msg, limit = s.parityCall(m), s.opt.ChoiceDeadline
			}
			x, r, _ := s.call(ctx, f, method, msg, limit)
			var v verdict
			if why := refusal(x, r); why != "" {
				v.warn("the %s form is refused (%s): peers that send only this form cannot play with the player", f, why)
			} else if _, ok := choice(r.msg); method == leaguesdk.MethodChooseParity && !ok {
				v.warn("the reply in the %s form carries no parity_choice", f)
			} else if f == formToolsCall {
				res := object(r.result)
				if contentMessage(res) == nil {
					v.warn("the tools/call result has no content text holding the message")
				}
				if !object(res["structuredContent"]).has("message_type") {
					v.warn("the tools/call result has no structuredContent holding the message")
				}
			}
			s.record(id, x, v, "accepted")
		}
	}
}

// checkReplyShapes plays the start of a match as a referee of another
// implementation does: the invitation with method game_invitation (the
// lower-case message type), then choose_parity. Such referees read a
// reply only when it is request-shaped (method + params) or the bare
// message at the top level. The check reports which shapes each reply
// offers; it never fails nor warns (result only is what the strict profile
// asks; a refused method or a request-shaped reply is reported by the
// check that owns it), and is skipped when no reply came.
func (s *suite) checkReplyShapes(ctx context.Context) {
	if !s.want(idReplyShapes) {
		return
	}
	m := s.newMatch(s.opponents()[1])
	s.announce(ctx, m)
	var found, refused []string
	var last *exchange
	for _, step := range []struct {
		method string
		msg    leaguesdk.Message
		limit  time.Duration
	}{
		{strings.ToLower(string(leaguesdk.MsgGameInvitation)), s.invitation(m), s.opt.Timeout},
		{leaguesdk.MethodChooseParity, s.parityCall(m), s.opt.ChoiceDeadline},
	} {
		id := s.nextID.Add(1)
		x := s.post(ctx, request(&id, step.method, step.msg), wait(step.limit))
		if why := refusal(x, parse(x)); why != "" {
			refused = append(refused, step.method+" refused ("+why+")")
			continue
		}
		last = x
		found = append(found, step.method+" → "+strings.Join(replyShapes(object(x.payload)), ", "))
	}
	if last == nil {
		s.add(idReplyShapes, nil, Skip, "no reply to look at: "+strings.Join(refused, "; "))
		return
	}
	detail := "shapes: " + strings.Join(append(found, refused...), "; ")
	if !strings.Contains(detail, shapeTopLevel) && !strings.Contains(detail, shapeRequest) {
		detail += " (referees that read only bare or request-shaped replies do not see these)"
	}
	s.add(idReplyShapes, last, Pass, detail)
}

// The shapes in which a response can carry a reply message.
const (
	shapeResult   = "result"
	shapeRequest  = "request-shaped (method + params)"
	shapeTopLevel = "bare message at the top level"
)

// replyShapes lists the shapes in which the response top carries a reply
// message.
func replyShapes(top fields) []string {
	var out []string
	if object(top["result"]).has("message_type") {
		out = append(out, shapeResult)
	}
	if top.has("method") && object(top["params"]).has("message_type") {
		out = append(out, shapeRequest)
	}
	if top.has("message_type") {
		out = append(out, shapeTopLevel)
	}
	return out
}

// notify sends a notification-style call and checks it is acknowledged.
func (s *suite) notify(ctx context.Context, id, method string, msg leaguesdk.Message) *exchange {
	x, r, _ := s.call(ctx, formSpec, method, msg, s.opt.Timeout)
	var v verdict
	switch why := refusal(x, r); {
	case why == "":
	case x.answered() && x.status == http.StatusAccepted && len(bytes.TrimSpace(x.body)) == 0:
		v.warn("answered 202 with no body: a call with an id gets a JSON-RPC response, and the project's client reports the missing reply as an error")
	default:
		v.fail("not acknowledged: %s", why)
	}
	if r.viaTool != "" {
		v.warn("%s", viaToolNote(method, r.viaTool))
	}
	ok := "acknowledged"
	if t, _ := r.msg.str("message_type"); t != "" {
		st, _ := r.msg.str("status")
		ok = strings.TrimSpace("acknowledged with " + t + " " + st)
	}
	s.record(id, x, v, ok)
	return x
}

// checkNotifications sends what a referee and a manager tell a player
// besides the game calls.
func (s *suite) checkNotifications(ctx context.Context) {
	m := s.gameMatch
	opp := m.opponent
	if s.want("notify.notify_game_error") {
		s.notify(ctx, "notify.notify_game_error", leaguesdk.MethodNotifyGameError, &leaguesdk.GameError{
			Envelope: s.refereeEnvelope(leaguesdk.MsgGameError, m.conv), MatchID: m.id, PlayerID: s.opt.PlayerID,
			ErrorCode: leaguesdk.CodeTimeout, ErrorName: leaguesdk.CodeTimeout.Name(),
			ErrorDescription: "no CHOOSE_PARITY_RESPONSE before the deadline", AffectedPlayer: s.opt.PlayerID,
			ActionRequired: "send CHOOSE_PARITY_RESPONSE", GameState: "COLLECTING_CHOICES",
			Retryable: true, RetryCount: 1, MaxRetries: 3, Consequence: "technical loss after the last retry",
		})
	}
	mine := leaguesdk.Even
	over := func() *leaguesdk.GameOver {
		return &leaguesdk.GameOver{
			Envelope: s.refereeEnvelope(leaguesdk.MsgGameOver, m.conv), MatchID: m.id, GameType: leaguesdk.GameEvenOdd,
			GameResult: leaguesdk.GameResult{
				Status: leaguesdk.ResultWin, WinnerPlayerID: leaguesdk.OptionalString(s.opt.PlayerID),
				DrawnNumber: 8, NumberParity: leaguesdk.Even,
				Choices: map[string]leaguesdk.Parity{s.opt.PlayerID: mine, opp: mine.Other()},
				Reason:  s.opt.PlayerID + " chose even, the number was 8 (even)",
			},
		}
	}
	if s.want("notify.notify_match_result") {
		s.notify(ctx, "notify.notify_match_result", leaguesdk.MethodNotifyMatchResult, over())
	}
	if s.want("receive.repeated_game_over") {
		s.notify(ctx, "receive.repeated_game_over", leaguesdk.MethodNotifyMatchResult, over())
	}
	opps := s.opponents()
	next := leaguesdk.RoundID(s.round + 1)
	if s.want("notify.notify_round") {
		s.notify(ctx, "notify.notify_round", leaguesdk.MethodNotifyRound, &leaguesdk.RoundAnnouncement{
			Envelope: s.managerEnvelope(leaguesdk.MsgRoundAnnouncement), LeagueID: leagueID, RoundID: next,
			Matches: []leaguesdk.ScheduledMatch{
				{MatchID: fmt.Sprintf("R%dM1", next), GameType: leaguesdk.GameEvenOdd, PlayerAID: s.opt.PlayerID, PlayerBID: opps[1], RefereeEndpoint: "http://127.0.0.1:8001/mcp"},
				{MatchID: fmt.Sprintf("R%dM2", next), GameType: leaguesdk.GameEvenOdd, PlayerAID: opps[0], PlayerBID: opps[2], RefereeEndpoint: "http://127.0.0.1:8001/mcp"},
			},
		})
	}
	if s.want("notify.update_standings") {
		s.notify(ctx, "notify.update_standings", leaguesdk.MethodUpdateStandings, &leaguesdk.LeagueStandingsUpdate{
			Envelope: s.managerEnvelope(leaguesdk.MsgLeagueStandingsUpdate), LeagueID: leagueID,
			RoundID: leaguesdk.RoundID(s.round), Standings: s.standings(),
		})
	}
	if s.want("notify.notify_round_completed") {
		s.notify(ctx, "notify.notify_round_completed", leaguesdk.MethodNotifyRoundCompleted, &leaguesdk.RoundCompleted{
			Envelope: s.managerEnvelope(leaguesdk.MsgRoundCompleted), LeagueID: leagueID,
			RoundID: leaguesdk.RoundID(s.round), MatchesCompleted: 2, NextRoundID: &next,
			Summary: &leaguesdk.RoundSummary{TotalMatches: 2, Wins: 1, Draws: 1},
		})
	}
}

// standings returns the standings the kit's manager messages carry: the
// player under test leads after its won match.
func (s *suite) standings() []leaguesdk.StandingRow {
	opps := s.opponents()
	row := func(rank int, id string, w, d, l int) leaguesdk.StandingRow {
		return leaguesdk.StandingRow{Rank: rank, PlayerID: id, Played: w + d + l, Wins: w, Draws: d, Losses: l, Points: 3*w + d}
	}
	return []leaguesdk.StandingRow{row(1, s.opt.PlayerID, 1, 0, 0), row(2, opps[1], 0, 1, 0), row(3, opps[2], 0, 1, 0), row(4, opps[0], 0, 0, 1)}
}

// checkReceiving: a parity call for a match the player never heard of.
func (s *suite) checkReceiving(ctx context.Context) {
	const id = "receive.choice_without_invitation"
	if !s.want(id) {
		return
	}
	m := s.newMatch(s.opponents()[1])
	x, r, _ := s.call(ctx, formSpec, leaguesdk.MethodChooseParity, s.parityCall(m), s.opt.ChoiceDeadline)
	var v verdict
	if why := refusal(x, r); why != "" {
		v.fail("a parity call without a prior invitation is refused (%s): referees that skip or lose the invitation cannot play with the player", why)
	} else if _, ok := choice(r.msg); !ok {
		v.fail("the reply carries no parity_choice")
	}
	s.record(id, x, v, "answered")
}

// checkPlayerState calls the debugging tool get_player_state. A player
// without it only gets a warning: the league does not need it, people
// debugging a league do.
func (s *suite) checkPlayerState(ctx context.Context) {
	const id = "tool.get_player_state"
	if !s.want(id) {
		return
	}
	q := &leaguesdk.StateQuery{Envelope: s.managerEnvelope(leaguesdk.MsgStateQuery), PlayerID: s.opt.PlayerID}
	x, r, _ := s.call(ctx, formSpec, leaguesdk.MethodGetPlayerState, q, s.opt.Timeout)
	var v verdict
	if why := refusal(x, r); why != "" {
		v.warn("get_player_state is not served (%s): people debugging a league cannot see the player's state", why)
	}
	s.record(id, x, v, "answered")
	s.checkStateNoToken(ctx)
}

// checkStateNoToken asks get_player_state as a caller that proves
// nothing (a made-up token no league issued): the answer must carry no
// token but that one, neither in its envelope nor in the state, since a
// token lets its holder speak as the player to the manager. A player
// without the tool is skipped.
func (s *suite) checkStateNoToken(ctx context.Context) {
	if !s.want(idStateNoToken) {
		return
	}
	madeUp := leaguesdk.NewToken()
	q := &leaguesdk.StateQuery{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStateQuery, leaguesdk.RefereeSender("REF99"), madeUp, "",
		time.Now()), PlayerID: s.opt.PlayerID}
	x, r, _ := s.call(ctx, formSpec, leaguesdk.MethodGetPlayerState, q, s.opt.Timeout)
	if why := refusal(x, r); why != "" {
		s.add(idStateNoToken, x, Skip, "get_player_state is not served ("+why+")")
		return
	}
	var v verdict
	body := strings.ReplaceAll(string(x.body), madeUp, "") // an echo of the caller's own token tells it nothing
	switch {
	case s.opt.PlayerToken != "" && strings.Contains(body, s.opt.PlayerToken):
		v.fail("the answer to an anonymous get_player_state carries the player's token: anyone who asks can speak as the player")
	case leaguesdk.RedactTokens(body) != body:
		v.fail("the answer to an anonymous get_player_state carries a token-shaped string (tok_…): it may be the player's")
	}
	s.record(idStateNoToken, x, v, "no token in the answer")
}

// checkConcurrency runs two matches at once: both invitations in flight
// together, then both parity calls.
func (s *suite) checkConcurrency(ctx context.Context) {
	const id = "concurrency.two_matches"
	if !s.want(id) {
		return
	}
	opps := s.opponents()
	pair := [2]match{s.newMatch(opps[1]), s.newMatch(opps[2])}
	both := func(send func(m match) answer) [2]answer {
		var out [2]answer
		var wg sync.WaitGroup
		for i, m := range pair {
			wg.Go(func() { out[i] = send(m) })
		}
		wg.Wait()
		return out
	}
	acks := both(func(m match) answer {
		x, r, n := s.call(ctx, formSpec, leaguesdk.MethodHandleGameInvitation, s.invitation(m), s.opt.Timeout)
		return answer{string(leaguesdk.MsgGameJoinAck), x, r, n, m}
	})
	choices := both(func(m match) answer {
		x, r, n := s.call(ctx, formSpec, leaguesdk.MethodChooseParity, s.parityCall(m), s.opt.ChoiceDeadline)
		return answer{string(leaguesdk.MsgChooseParityResponse), x, r, n, m}
	})
	var v verdict
	looked := choices[1].x
	for i, a := range append(acks[:], choices[:]...) {
		before := len(v.notes)
		other := pair[1-i%2]
		switch why := refusal(a.x, a.r); {
		case why != "":
			v.fail("%s for %s: %s", a.name, a.match.id, why)
		case a.name == string(leaguesdk.MsgGameJoinAck):
			if acc, ok := accept(a.r.msg); ok && !acc {
				v.fail("%s declined while in %s: a player plays every match it is sent", a.match.id, other.id)
			}
		default:
			if _, ok := choice(a.r.msg); !ok {
				v.fail("the reply for %s carries no parity_choice", a.match.id)
			}
		}
		if mid, _ := a.r.msg.str("match_id"); mid == other.id {
			v.fail("the %s for %s names %s: the player mixes up its matches", a.name, a.match.id, other.id)
		}
		if before == 0 && len(v.notes) > 0 {
			looked = a.x
		}
	}
	s.record(id, looked, v, fmt.Sprintf("%s and %s both acknowledged and answered", pair[0].id, pair[1].id))
}

// abuse is a malformed request and the JSON-RPC error code it deserves
// (0: any error will do; -1: any answer will do).
type abuse struct {
	what string
	body string
	code int
}

// checkRobustness sends malformed requests, each followed by a valid call
// the player must still answer.
func (s *suite) checkRobustness(ctx context.Context) {
	if !s.want(idRobust) {
		return
	}
	now := leaguesdk.FormatTime(time.Now())
	abuses := []abuse{
		{"truncated JSON", `{"jsonrpc":"2.0","id":9001,"method":"choose_parity","params":{"match_id":`, leaguesdk.RPCParseError},
		{"an empty body", ``, leaguesdk.RPCParseError},
		{"a JSON number as the request", `42`, leaguesdk.RPCInvalidRequest},
		{"an unknown method", `{"jsonrpc":"2.0","id":9002,"method":"playertest/no_such_method","params":{}}`, leaguesdk.RPCMethodNotFound},
		{"params that are not an object", `{"jsonrpc":"2.0","id":9003,"method":"choose_parity","params":"even"}`, 0},
		{"an invitation without its required fields", `{"jsonrpc":"2.0","id":9004,"method":"handle_game_invitation","params":{"protocol":"league.v2","message_type":"GAME_INVITATION"}}`, -1},
		{"a parity call of protocol league.v1", `{"jsonrpc":"2.0","id":9005,"method":"choose_parity","params":{"protocol":"league.v1","message_type":"CHOOSE_PARITY_CALL","sender":"referee:REF01","timestamp":"` + now + `","conversation_id":"conv-playertest-v1","auth_token":"","match_id":"R0M0"}}`, -1},
	}
	var v verdict
	var looked *exchange
	for _, ab := range abuses {
		x := s.post(ctx, []byte(ab.body), wait(s.opt.Timeout))
		r := parse(x)
		switch {
		case !x.answered():
			v.warn("%s got no answer", ab.what)
		case x.status >= 500:
			v.warn("%s was answered HTTP %d: a malformed request is the caller's fault, answered with a JSON-RPC error", ab.what, x.status)
		case r.parseErr != nil:
			v.warn("%s was answered HTTP %d without a JSON-RPC error object", ab.what, x.status)
		case ab.code == -1:
		case r.rpcErr == nil:
			v.warn("%s was answered without a JSON-RPC error", ab.what)
		case ab.code != 0 && r.rpcErr.Code != ab.code:
			v.warn("%s was answered with code %d, JSON-RPC wants %d", ab.what, r.rpcErr.Code, ab.code)
		}
		if looked == nil && len(v.notes) > 0 {
			looked = x
		}
		m := s.newMatch(s.opponents()[0])
		vx, vr, _ := s.call(ctx, formSpec, leaguesdk.MethodHandleGameInvitation, s.invitation(m), s.opt.Timeout)
		if !vx.answered() || vr.parseErr != nil {
			why := refusal(vx, vr)
			v.fail("after %s the player no longer answers a valid call (%s): one bad request takes it out of the league", ab.what, why)
			s.gone = true
			s.add(idRobust, x, v.worst, strings.Join(v.notes, "; "))
			return
		}
	}
	ok := fmt.Sprintf("%d malformed requests answered with JSON-RPC errors; a valid call answered after each", len(abuses))
	if v.worst == "" {
		s.add(idRobust, nil, Pass, ok)
		return
	}
	s.record(idRobust, looked, v, ok)
}

// checkLeagueCompleted comes last: a player may stop once its league is over.
func (s *suite) checkLeagueCompleted(ctx context.Context) {
	const id = "notify.notify_league_completed"
	if !s.want(id) {
		return
	}
	if s.gone {
		s.add(id, nil, Skip, "the player stopped answering in "+idRobust)
		return
	}
	st := s.standings()
	s.notify(ctx, id, leaguesdk.MethodNotifyLeagueCompleted, &leaguesdk.LeagueCompleted{
		Envelope: s.managerEnvelope(leaguesdk.MsgLeagueCompleted), LeagueID: leagueID,
		TotalRounds: 3, TotalMatches: 6, Champion: &leaguesdk.Champion{PlayerID: st[0].PlayerID, Points: st[0].Points},
		FinalStandings: st,
	})
}
