package referee

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
)

func (r *Referee) addTools() {
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodStartMatch,
		Aliases:     []string{"run_match", "assign_match", string(leaguesdk.MsgStartMatch)},
		Description: "Assign a match to this referee (manager only). Answered at once; the result follows as MATCH_RESULT_REPORT."},
		r.startMatch)
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodGetMatchState, Public: true,
		Description: "State of a match this referee runs or ran (choices only once it is finished)."},
		r.matchState)
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyLeagueCompleted, Public: true,
		Description: "The league is over."},
		r.leagueCompleted)
	// The manager's other notifications are the players', but a manager
	// may send them to everyone: acknowledged, and checked like the rest.
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyRound, Public: true, NoValidate: true,
		MessageTypes: []leaguesdk.MessageType{leaguesdk.MsgRoundAnnouncement},
		Description:  "A round is announced (the players'; acknowledged)."}, r.notification)
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodUpdateStandings, Public: true, NoValidate: true,
		MessageTypes: []leaguesdk.MessageType{leaguesdk.MsgLeagueStandingsUpdate},
		Description:  "The league table (the players'; acknowledged)."}, r.notification)
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodNotifyRoundCompleted, Public: true, NoValidate: true,
		MessageTypes: []leaguesdk.MessageType{leaguesdk.MsgRoundCompleted},
		Description:  "A round is over (the players'; acknowledged)."}, r.notification)
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodGameJoinAck, Public: true,
		MessageTypes: []leaguesdk.MessageType{leaguesdk.MsgGameJoinAck}, NoValidate: true,
		Description: "A player's GAME_JOIN_ACK sent as a request of its own (callback style)."},
		func(ctx context.Context, req *leaguesdk.Request, in *leaguesdk.GameJoinAck) (*leaguesdk.Ack, error) {
			return r.callback(ctx, req, kindJoin, in.MatchID, &in.Envelope, joinReply(in))
		})
	leaguesdk.Handle(r.srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParityResponse, Public: true,
		Aliases:      []string{"game_move_response", "make_move_response"},
		MessageTypes: []leaguesdk.MessageType{leaguesdk.MsgChooseParityResponse, leaguesdk.MsgGameMoveResponse}, NoValidate: true,
		Description: "A player's CHOOSE_PARITY_RESPONSE or GAME_MOVE_RESPONSE sent as a request of its own (callback style)."},
		func(ctx context.Context, req *leaguesdk.Request, in *leaguesdk.ChooseParityResponse) (*leaguesdk.Ack, error) {
			return r.callback(ctx, req, kindMove, in.MatchID, &in.Envelope, moveReply(in))
		})
}

// startMatch accepts a match from the manager: only with the token the
// manager issued to this referee, only within capacity, and only once per
// match id (a repeated assignment is answered ACCEPTED again, and a
// finished match's result is reported again).
func (r *Referee) startMatch(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.StartMatch) (*leaguesdk.StartMatchResponse, error) {
	r.mu.Lock()
	id, token := r.id, r.token
	r.mu.Unlock()
	switch {
	case id == "":
		return nil, leaguesdk.NewError(leaguesdk.CodeRefereeNotRegistered, "referee is not registered with a league yet")
	case in.AuthToken == "":
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenMissing, Field: "auth_token",
			Message: "start_match must carry the token the manager issued to this referee"}
	case !leaguesdk.TokensEqual(in.AuthToken, token):
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "auth_token",
			Message: "auth_token is not the token issued to this referee"}
	}
	accepted := func(reason string) *leaguesdk.StartMatchResponse {
		sender, tok := r.replyCredentials(in.AuthToken)
		return &leaguesdk.StartMatchResponse{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartMatchResponse, sender, tok, in.ConversationID, r.cfg.Now()),
			MatchID:  in.MatchID, Status: leaguesdk.StatusAccepted, Reason: leaguesdk.OptionalString(reason)}
	}
	rejected := func(reason string) *leaguesdk.StartMatchResponse {
		resp := accepted(reason)
		resp.Status = leaguesdk.StatusRejected
		return resp
	}
	key := matchKey(in.LeagueID, in.MatchID)
	if resp := r.duplicate(key, in, accepted); resp != nil {
		return resp, nil
	}
	rules := r.cfg.Games[in.GameType]
	if rules == nil {
		return rejected(fmt.Sprintf("game type %q is not supported by this referee (supports %v)", in.GameType, r.cfg.Games.Types())), nil
	}
	game, err := rules.NewGame([2]string{in.PlayerAID, in.PlayerBID}, r.cfg.Rand)
	if err != nil {
		return rejected("cannot start the game: " + err.Error()), nil
	}

	r.mu.Lock()
	if m := r.matches[key]; m != nil { // assigned twice at the same moment
		r.mu.Unlock()
		return accepted("match already assigned to this referee"), nil
	}
	if r.draining {
		r.mu.Unlock()
		return nil, leaguesdk.NewError(leaguesdk.CodeRateLimited, "referee is shutting down; assign the match to another referee")
	}
	if r.active >= r.cfg.MaxConcurrentMatches {
		n := r.active
		r.mu.Unlock()
		return nil, leaguesdk.NewError(leaguesdk.CodeRateLimited,
			"referee at capacity: %d of %d matches running; retry later or assign another referee", n, r.cfg.MaxConcurrentMatches)
	}
	m := r.newMatch(in, game, id)
	r.matches[key] = m
	r.active++
	r.wg.Add(1)
	base := r.base
	r.mu.Unlock()

	agentkit.LogOutcome(ctx, r.log, "match accepted", slog.String("league_id", in.LeagueID), slog.String("match_id", in.MatchID),
		slog.Int("round_id", int(in.RoundID)), slog.String("player_A_id", in.PlayerAID), slog.String("player_B_id", in.PlayerBID),
		slog.String("game_type", in.GameType))
	r.workers.Go(func() {
		m.run(base)
		r.forget(key, m)
	})
	return accepted(""), nil
}

// forget drops a match whose result the manager acknowledged from memory:
// its transcript under the data root answers for it from then on
// (get_match_state, a start_match of it again), so a referee's memory does
// not grow with the matches it has played.
func (r *Referee) forget(key string, m *match) {
	m.mu.Lock()
	reported := m.reported
	m.mu.Unlock()
	if !reported {
		return
	}
	r.mu.Lock()
	if r.matches[key] == m {
		delete(r.matches, key)
	}
	r.mu.Unlock()
}

// duplicate answers a start_match for a match this referee already has,
// in memory or as a finished transcript in its store (under its data root,
// or one it shares with other referees: see Store); it returns nil for a
// new match.
func (r *Referee) duplicate(key string, in *leaguesdk.StartMatch, accepted func(string) *leaguesdk.StartMatchResponse) *leaguesdk.StartMatchResponse {
	r.mu.Lock()
	m := r.matches[key]
	r.mu.Unlock()
	if m == nil {
		t, err := r.transcripts.read(in.LeagueID, in.MatchID)
		if err != nil || t.Result == nil {
			return nil
		}
		m = r.newMatch(in, nil, r.ID())
		m.rec.t = *t
		if t.ConversationID != "" {
			m.conv = t.ConversationID
		}
		m.state, m.result = StateFinished, t.Result
		r.mu.Lock()
		if cur := r.matches[key]; cur != nil {
			m = cur
		} else {
			r.matches[key] = m
		}
		r.mu.Unlock()
	}
	m.mu.Lock()
	res, reporting := m.result, m.reporting
	m.mu.Unlock()
	if res == nil {
		return accepted("match already running on this referee")
	}
	if !reporting {
		r.mu.Lock()
		base := r.base
		r.wg.Add(1)
		r.mu.Unlock()
		go func() {
			defer r.wg.Done()
			m.report(base, res)
			r.forget(key, m)
		}()
	}
	m.log.Info("match assigned again; result reported again")
	return accepted("match already finished; result reported again")
}

// release frees the capacity slot of a match that stopped playing.
func (r *Referee) release() {
	r.mu.Lock()
	r.active--
	r.mu.Unlock()
}

// MatchState is what get_match_state answers about a match. The players'
// choices appear only in Result, once the match is finished.
type MatchState struct {
	MatchID   string             `json:"match_id"`
	LeagueID  string             `json:"league_id"`
	RoundID   int                `json:"round_id"`
	GameType  string             `json:"game_type"`
	State     State              `json:"state"`
	Players   []TranscriptPlayer `json:"players"`
	Lifecycle []LifecycleEntry   `json:"lifecycle"`
	Result    *Result            `json:"result"`
	Reported  bool               `json:"reported"`
}

// MatchState returns the state of the match with the given id (in any
// league this referee served, or, after a restart, a finished match of the
// current league as its transcript under the data root keeps it), or false
// when it has none.
func (r *Referee) MatchState(matchID string) (MatchState, bool) {
	r.mu.Lock()
	var m *match
	for _, c := range r.matches {
		if c.req.MatchID == matchID {
			m = c
		}
	}
	leagueID := r.leagueID
	r.mu.Unlock()
	if m == nil {
		// A referee started again knows the matches it finished before
		// from their transcripts.
		if leagueID == "" {
			return MatchState{}, false
		}
		// A match it was playing when it stopped is no longer played.
		t, err := r.transcripts.read(leagueID, matchID)
		if err != nil || t.Result == nil {
			return MatchState{}, false
		}
		return stateOf(t), true
	}
	m.rec.mu.Lock()
	defer m.rec.mu.Unlock()
	return stateOf(&m.rec.t), true
}

// stateOf returns what get_match_state tells of the match of transcript t.
func stateOf(t *Transcript) MatchState {
	st := MatchState{MatchID: t.MatchID, LeagueID: t.LeagueID, RoundID: t.RoundID, GameType: t.GameType,
		State: t.State, Players: append([]TranscriptPlayer(nil), t.Players...),
		Lifecycle: append([]LifecycleEntry(nil), t.Lifecycle...), Reported: t.Reported}
	if t.State == StateFinished {
		st.Result = t.Result
	}
	return st
}

func (r *Referee) matchState(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.StateQuery) (*leaguesdk.StateResponse, error) {
	st, ok := r.MatchState(in.MatchID)
	if !ok {
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeMatchNotFound, Field: "match_id",
			Message: fmt.Sprintf("no match %q on this referee", in.MatchID)}
	}
	b, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	sender, tok := r.replyCredentials(in.AuthToken)
	return &leaguesdk.StateResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStateResponse, sender, tok, in.ConversationID, r.cfg.Now()),
		State:    b}, nil
}

// fromManager reports whether a notification of the manager's may change
// the referee's state (agentkit.FromManager).
func (r *Referee) fromManager(ctx context.Context, env *leaguesdk.Envelope) bool {
	_, token := r.credentials()
	return agentkit.FromManager(ctx, r.log, env, token, "referee")
}

// notification acknowledges a manager's notification the referee has no
// use for, after checking where it comes from.
func (r *Referee) notification(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.Envelope) (*leaguesdk.Ack, error) {
	r.fromManager(ctx, in)
	return r.ack(in.AuthToken, in.ConversationID, in.MessageType, ""), nil
}

func (r *Referee) leagueCompleted(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueCompleted) (*leaguesdk.Ack, error) {
	if !r.fromManager(ctx, &in.Envelope) {
		return r.ack(in.AuthToken, in.ConversationID, leaguesdk.MsgLeagueCompleted, ""), nil
	}
	attrs := []any{slog.String("league_id", in.LeagueID), slog.Int("total_matches", in.TotalMatches)}
	if in.Champion != nil {
		attrs = append(attrs, slog.String("champion", in.Champion.PlayerID))
	}
	r.log.Info("league completed", attrs...)
	if err := r.transcripts.writeSettled(in.LeagueID); err != nil {
		r.log.Error("cannot write the match files", slog.String("error", err.Error()))
	}
	return r.ack(in.AuthToken, in.ConversationID, leaguesdk.MsgLeagueCompleted, ""), nil
}

// ack acknowledges a message that presented the token presented; the
// acknowledgement carries the referee's token only to its manager.
func (r *Referee) ack(presented, conv string, t leaguesdk.MessageType, matchID string) *leaguesdk.Ack {
	sender, tok := r.replyCredentials(presented)
	return &leaguesdk.Ack{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, sender, tok, conv, r.cfg.Now()),
		Status: leaguesdk.AckOK, Acknowledged: t, MatchID: matchID}
}

// callback receives a player's answer p to match matchID, sent with
// envelope env as a request of its own, and hands it to the match waiting
// for it (see hub for how it is matched). The message is read as received,
// unvalidated: what it answers is decided by the match.
func (r *Referee) callback(ctx context.Context, req *leaguesdk.Request, kind, matchID string, env *leaguesdk.Envelope, p reply) (*leaguesdk.Ack, error) {
	if matchID == "" {
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeMissingRequiredField, Field: "match_id",
			Message: "missing required field match_id"}
	}
	outcome, rec := r.hub.deliver(waitKey{matchID, kind}, p)
	if outcome == notAwaited {
		r.log.Info("callback not awaited", slog.String("match_id", matchID), slog.String("player_id", p.player()),
			slog.String("kind", kind))
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeDeadlinePassed, Field: "match_id",
			Message: fmt.Sprintf("no %s answer is awaited from %q in match %q (deadline passed, already answered, or unknown match)",
				kind, p.player(), matchID)}
	}
	if req != nil {
		rec.message(Received, p.player(), req.Method, req.Message, nil)
	}
	t := env.MessageType
	if t == "" {
		t = leaguesdk.MsgGameJoinAck
		if kind == kindMove {
			t = leaguesdk.MsgChooseParityResponse
		}
	}
	// A player's callback is answered without the referee's token:
	// anyone can send one, and only the manager may learn it here.
	return r.ack("", env.ConversationID, t, matchID), nil
}
