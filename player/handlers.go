package player

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/broadcast"
	"github.com/agentleague/league/player/internal/decide"
)

// matchState is what the player knows of a match in progress, gathered
// from the round announcement, the invitation and the calls, whichever
// arrived.
type matchState struct {
	MatchID    string         `json:"match_id"`
	LeagueID   string         `json:"league_id,omitempty"`
	RoundID    int            `json:"round_id,omitempty"`
	GameType   string         `json:"game_type,omitempty"`
	OpponentID string         `json:"opponent_id,omitempty"`
	Role       leaguesdk.Role `json:"role_in_match,omitempty"`
	PlayerID   string         `json:"player_id,omitempty"` // the id the referee addressed
	Invited    bool           `json:"invited"`
	MyChoice   Parity         `json:"my_choice,omitempty"`
	choosing   bool           // a move call arrived and is being answered
}

// merge fills the fields of m that other gives and m lacks.
func (m *matchState) merge(other matchState) {
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	set(&m.LeagueID, other.LeagueID)
	set(&m.GameType, other.GameType)
	set(&m.OpponentID, other.OpponentID)
	set(&m.PlayerID, other.PlayerID)
	if m.Role == "" {
		m.Role = other.Role
	}
	if m.RoundID == 0 {
		m.RoundID = other.RoundID
	}
}

// updateMatch applies f to the state of matchID (creating it) and returns a copy.
func (a *Agent) updateMatch(matchID string, f func(*matchState)) matchState {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.matches[matchID]
	if m == nil {
		m = &matchState{MatchID: matchID}
		a.matches[matchID] = m
	}
	f(m)
	return *m
}

// takeMatch removes the state of matchID and returns it (zero but for the
// id when the player knew nothing of the match).
func (a *Agent) takeMatch(matchID string) matchState {
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.matches[matchID]
	delete(a.matches, matchID)
	if m == nil {
		return matchState{MatchID: matchID}
	}
	return *m
}

// reply returns the envelope of a reply: the player's sender, in the
// conversation of the call, without a token; traced adds the token where
// replyToken allows it.
func (a *Agent) reply(t leaguesdk.MessageType, conversationID string) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, a.sender(), "", conversationID, a.cfg.Now())
}

// replyToken returns the token a reply to in may carry: the player's own
// when the caller proved to be its manager (in carries the player's token),
// or when in is a referee's message about a match that the manager
// announced with this player in it and that is not over yet (the referee a
// player answers needs the player's token, and league.v2 gives a player no
// way to authenticate a referee). Anyone else gets no token.
func (a *Agent) replyToken(in any) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.token == "" {
		return ""
	}
	var env *leaguesdk.Envelope
	switch m := in.(type) {
	case leaguesdk.Message:
		env = m.Header()
	case *stateQuery:
		env = &leaguesdk.Envelope{AuthToken: m.AuthToken}
	default:
		return ""
	}
	if leaguesdk.TokensEqual(env.AuthToken, a.token) {
		return a.token
	}
	if kind, _ := leaguesdk.SplitSender(env.Sender); kind == "referee" && a.announced[matchOf(in)] {
		return a.token
	}
	return ""
}

// matchOf returns the match id of a referee's message, or "".
func matchOf(in any) string {
	switch m := in.(type) {
	case *leaguesdk.GameInvitation:
		return m.MatchID
	case *leaguesdk.ChooseParityCall:
		return m.MatchID
	case *leaguesdk.GameMoveCall:
		return m.MatchID
	case *leaguesdk.GameOver:
		return m.MatchID
	case *leaguesdk.GameError:
		return m.MatchID
	}
	return ""
}

// me returns the player's id: the registered one, or the id the caller
// addressed when the player is not registered (served by a bare Handler).
func (a *Agent) me(addressed string) string {
	if id := a.ID(); id != "" {
		return id
	}
	return addressed
}

func (a *Agent) ack(in leaguesdk.Message, matchID string) *leaguesdk.Ack {
	h := in.Header()
	return &leaguesdk.Ack{Envelope: a.reply(leaguesdk.MsgAck, h.ConversationID), Status: leaguesdk.AckOK,
		Acknowledged: h.MessageType, MatchID: matchID}
}

// addTools adds the player's side of the protocol to the server.
func (a *Agent) addTools() {
	s := a.srv
	tool := func(name, desc string, t leaguesdk.MessageType, aliases ...string) leaguesdk.Tool {
		return leaguesdk.Tool{Name: name, Description: desc, Aliases: aliases, MessageTypes: []leaguesdk.MessageType{t}}
	}
	leaguesdk.Handle(s, tool(leaguesdk.MethodHandleGameInvitation, "Invite the player to a match; answered with GAME_JOIN_ACK at once.",
		leaguesdk.MsgGameInvitation), traced(a, a.onInvitation))
	leaguesdk.Handle(s, tool(leaguesdk.MethodChooseParity, "Ask the player for its parity; answered with CHOOSE_PARITY_RESPONSE before the deadline.",
		leaguesdk.MsgChooseParityCall, "parity_choose"), traced(a, a.onChooseParity))
	leaguesdk.Handle(s, tool(leaguesdk.MethodMakeMove, "Ask the player for a move of any game; answered with GAME_MOVE_RESPONSE.",
		leaguesdk.MsgGameMoveCall), traced(a, a.onMove))
	leaguesdk.Handle(s, tool(leaguesdk.MethodNotifyMatchResult, "Tell the player how a match ended (GAME_OVER).",
		leaguesdk.MsgGameOver, "notify_game_over"), traced(a, a.onGameOver))
	leaguesdk.Handle(s, tool(leaguesdk.MethodNotifyGameError, "Tell the player of a game error (GAME_ERROR).",
		leaguesdk.MsgGameError), traced(a, a.onGameError))
	leaguesdk.Handle(s, tool(leaguesdk.MethodNotifyRound, "Announce a round (ROUND_ANNOUNCEMENT).",
		leaguesdk.MsgRoundAnnouncement), traced(a, a.onRound))
	leaguesdk.Handle(s, tool(leaguesdk.MethodUpdateStandings, "Give the league table (LEAGUE_STANDINGS_UPDATE).",
		leaguesdk.MsgLeagueStandingsUpdate), traced(a, a.onStandings))
	leaguesdk.Handle(s, tool(leaguesdk.MethodNotifyRoundCompleted, "Tell the player a round is over (ROUND_COMPLETED).",
		leaguesdk.MsgRoundCompleted), traced(a, a.onRoundCompleted))
	leaguesdk.Handle(s, tool(leaguesdk.MethodNotifyLeagueCompleted, "Tell the player the league is over (LEAGUE_COMPLETED).",
		leaguesdk.MsgLeagueCompleted), traced(a, a.onLeagueCompleted))
	st := tool(leaguesdk.MethodGetPlayerState, "Return the player's state and history (debugging).", leaguesdk.MsgStateQuery)
	st.Public = true
	leaguesdk.Handle(s, st, traced(a, a.onState))
}

// traced gives a handler's reply the token replyToken allows. The call
// itself is logged by the server's middleware (agentkit.LogCalls).
func traced[In, Out any](a *Agent, h func(context.Context, *In) (*Out, error)) func(context.Context, *leaguesdk.Request, *In) (*Out, error) {
	return func(ctx context.Context, _ *leaguesdk.Request, in *In) (*Out, error) {
		a.awaitRegistration(ctx)  // a message that came before the registration's reply (register.go)
		token := a.replyToken(in) // decided before the handler: GAME_OVER ends a match's announcement
		out, err := h(ctx, in)
		if m, ok := any(out).(leaguesdk.Message); ok && out != nil {
			m.Header().AuthToken = token
		}
		return out, err
	}
}

// onUnknown serves what no tool of the player takes (ServerConfig.Unknown).
// It acknowledges the notifications the player has no tool for (a message
// type of a newer protocol, another implementation's broadcast), as the
// profile asks of players: a request that carries a protocol message of a
// type no tool takes, or whose method starts with "notify". Anything else
// (an MCP method such as server/discover, a tools/call of a known message
// type under an unknown name) gets the server's "method not found".
func (a *Agent) onUnknown(_ context.Context, req *leaguesdk.Request) (any, error) {
	method := req.Method
	if req.Tool != "" { // the tool a tools/call asked for
		method = req.Tool
	}
	var env leaguesdk.Envelope
	if req.Envelope != nil {
		env = *req.Envelope
	}
	if env.MessageType == "" && !strings.HasPrefix(strings.ToLower(method), "notify") {
		return nil, leaguesdk.ErrUnrouted
	}
	a.log.Info("unknown notification acknowledged", slog.String("method", req.Method),
		slog.String("message_type", string(env.MessageType)), slog.String("sender", env.Sender))
	ack := &leaguesdk.Ack{Envelope: a.reply(leaguesdk.MsgAck, env.ConversationID), Status: leaguesdk.AckOK, Acknowledged: env.MessageType}
	ack.AuthToken = a.replyToken(&env) // the player's token only to its manager
	return ack, nil
}

func (a *Agent) onInvitation(ctx context.Context, in *leaguesdk.GameInvitation) (*leaguesdk.GameJoinAck, error) {
	st := a.updateMatch(in.MatchID, func(m *matchState) {
		// The invitation is the referee's word on the match: it wins over
		// what the round announcement said, and keeps what it leaves out.
		fresh := matchState{LeagueID: in.LeagueID, RoundID: int(in.RoundID), GameType: in.GameType,
			OpponentID: in.OpponentID, Role: in.RoleInMatch, PlayerID: in.PlayerID}
		fresh.merge(*m)
		fresh.MatchID, fresh.Invited, fresh.MyChoice = m.MatchID, true, m.MyChoice
		*m = fresh
	})
	now := a.cfg.Now()
	a.log.LogAttrs(ctx, slog.LevelDebug, "invited", slog.String("match_id", in.MatchID), slog.String("opponent_id", st.OpponentID),
		slog.String("role", string(st.Role)), slog.String("referee", in.Sender))
	if st.GameType != "" && !slices.Contains(a.cfg.GameTypes, st.GameType) {
		a.log.Warn("invited to a game type the player does not declare; joining anyway", slog.String("game_type", st.GameType))
	}
	return &leaguesdk.GameJoinAck{
		Envelope:         a.reply(leaguesdk.MsgGameJoinAck, in.ConversationID),
		MatchID:          in.MatchID,
		PlayerID:         a.me(st.PlayerID),
		ArrivalTimestamp: leaguesdk.FormatTime(now),
		Accept:           true,
	}, nil
}

// deadline returns the deadline a call names, or ChoiceTimeout after now.
func (a *Agent) deadline(s string, now time.Time) time.Time {
	if s != "" {
		if t, err := leaguesdk.ParseTime(s); err == nil {
			return t
		}
	}
	return now.Add(a.cfg.ChoiceTimeout)
}

// parityCall builds the strategy's view of a call.
func (a *Agent) parityCall(st matchState, standings leaguesdk.PlayerRecord, deadline time.Time) ParityCall {
	leagueID := st.LeagueID
	if leagueID == "" {
		leagueID = a.LeagueID()
	}
	return ParityCall{
		PlayerID:   a.me(st.PlayerID),
		LeagueID:   leagueID,
		RoundID:    st.RoundID,
		MatchID:    st.MatchID,
		GameType:   st.GameType,
		OpponentID: st.OpponentID,
		Role:       st.Role,
		Standings:  standings,
		Deadline:   deadline,
		History:    a.history.snapshot(),
	}
}

func (a *Agent) onChooseParity(ctx context.Context, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
	now := a.cfg.Now()
	st := a.updateMatch(in.MatchID, func(m *matchState) {
		m.merge(matchState{GameType: in.GameType, OpponentID: in.Context.OpponentID, RoundID: int(in.Context.RoundID), PlayerID: in.PlayerID})
		m.choosing = true
	})
	if st.GameType == "" {
		st.GameType = leaguesdk.GameEvenOdd
	}
	call := a.parityCall(st, in.Context.YourStandings, a.deadline(in.Deadline, now))
	choice := Parity(a.decide(ctx, a.parityDecision(call)))
	a.updateMatch(in.MatchID, func(m *matchState) { m.MyChoice = choice })
	agentkit.LogOutcome(ctx, a.log, fmt.Sprintf("%s chose %s in %s against %s", call.PlayerID, choice, in.MatchID, call.OpponentID))
	a.log.LogAttrs(ctx, slog.LevelDebug, "chose", slog.String("match_id", in.MatchID), slog.Duration("decided_in", a.cfg.Now().Sub(now)))
	return &leaguesdk.ChooseParityResponse{
		Envelope:     a.reply(leaguesdk.MsgChooseParityResponse, in.ConversationID),
		MatchID:      in.MatchID,
		PlayerID:     call.PlayerID,
		ParityChoice: choice,
	}, nil
}

func (a *Agent) parityDecision(call ParityCall) decide.Decision {
	asString := func(s Strategy) func(ctx context.Context) (string, error) {
		return func(ctx context.Context) (string, error) {
			p, err := s.ChooseParity(ctx, call)
			return string(p), err
		}
	}
	return decide.Decision{
		What:     "parity",
		MatchID:  call.MatchID,
		Deadline: call.Deadline,
		Primary:  asString(a.cfg.Strategy),
		Fallback: asString(a.cfg.Fallback),
		Valid:    func(s string) bool { return Parity(s).Valid() },
		Last:     func() string { return string(a.lastResortParity()) },
	}
}

// lastResortParity is the choice that cannot fail: random, or Even when
// even the random source fails.
func (a *Agent) lastResortParity() Parity {
	if p, err := decide.RandomParity(a.cfg.Rand); err == nil {
		return p
	}
	return Even
}

func (a *Agent) onMove(ctx context.Context, in *leaguesdk.GameMoveCall) (*leaguesdk.GameMoveResponse, error) {
	now := a.cfg.Now()
	st := a.updateMatch(in.MatchID, func(m *matchState) {
		m.merge(matchState{GameType: in.GameType, PlayerID: in.PlayerID})
		m.choosing = true
	})
	opts := in.MoveRequest.ValidOptions
	call := MoveCall{
		ParityCall:   a.parityCall(st, leaguesdk.PlayerRecord{}, a.deadline(in.Deadline, now)),
		MoveType:     in.MoveRequest.MoveType,
		ValidOptions: slices.Clone(opts),
		Context:      in.MoveRequest.Context,
	}
	// Even/odd through the generic call is answered by the parity strategy.
	parity := in.GameType == leaguesdk.GameEvenOdd && (len(opts) == 0 || slices.Contains(opts, string(Even)) || slices.Contains(opts, string(Odd)))
	if len(opts) == 0 && !parity {
		if _, ok := a.cfg.Strategy.(Mover); !ok {
			return nil, leaguesdk.NewError(leaguesdk.CodeInvalidChoice,
				"move call for game %q lists no valid_options, and the player has no Mover for it", in.GameType)
		}
	}
	valid := func(s string) bool {
		if len(opts) > 0 {
			return slices.Contains(opts, s)
		}
		if parity {
			return Parity(s).Valid()
		}
		return s != ""
	}
	randomOption := func(context.Context) (string, error) {
		if len(opts) == 0 {
			p, err := decide.RandomParity(a.cfg.Rand)
			return string(p), err
		}
		i, err := decide.RandomIndex(a.cfg.Rand, len(opts))
		if err != nil {
			return "", err
		}
		return opts[i], nil
	}
	d := decide.Decision{What: "move", MatchID: in.MatchID, Deadline: call.Deadline, Valid: valid,
		Primary: randomOption, Fallback: randomOption}
	if parity {
		pd := a.parityDecision(call.ParityCall)
		d.Primary, d.Fallback = pd.Primary, pd.Fallback
	}
	if m, ok := a.cfg.Strategy.(Mover); ok {
		d.Primary = func(ctx context.Context) (string, error) { return m.Move(ctx, call) }
	}
	d.Last = func() string {
		if s, err := randomOption(ctx); err == nil && s != "" {
			return s
		}
		if len(opts) > 0 {
			return opts[0]
		}
		return string(Even)
	}
	choice := a.decide(ctx, d)
	if parity {
		a.updateMatch(in.MatchID, func(m *matchState) { m.MyChoice = Parity(choice) })
	}
	agentkit.LogOutcome(ctx, a.log, "moved", slog.String("match_id", in.MatchID), slog.String("game_type", in.GameType), slog.String("choice", choice))
	return &leaguesdk.GameMoveResponse{
		Envelope: a.reply(leaguesdk.MsgGameMoveResponse, in.ConversationID),
		MatchID:  in.MatchID,
		PlayerID: call.PlayerID,
		GameType: in.GameType,
		MoveData: leaguesdk.MoveData{MoveType: in.MoveRequest.MoveType, Choice: choice},
	}, nil
}

// sameID reports whether two player ids name the same player, reading
// "player:P01" as "P01".
func sameID(x, y string) bool {
	if x == "" || y == "" {
		return false
	}
	_, xi := leaguesdk.SplitSender(x)
	_, yi := leaguesdk.SplitSender(y)
	return x == y || xi == yi
}

// resultFor reads a game result from player me's point of view.
func resultFor(me string, r leaguesdk.GameResult) Result {
	won := sameID(string(r.WinnerPlayerID), me)
	switch {
	case r.Status == leaguesdk.ResultDraw:
		return Draw
	case won:
		return Win
	case r.Status == leaguesdk.ResultTechnicalLoss:
		return TechnicalLoss
	}
	return Loss
}

// recordOf builds the history record of a GAME_OVER for player me.
func recordOf(me string, st matchState, in *leaguesdk.GameOver, leagueID string, now time.Time) MatchRecord {
	r := in.GameResult
	rec := MatchRecord{
		MatchID: in.MatchID, LeagueID: leagueID, RoundID: st.RoundID, GameType: in.GameType,
		OpponentID: st.OpponentID, Role: st.Role, Result: resultFor(me, r), MyChoice: st.MyChoice,
		DrawnNumber: r.DrawnNumber, NumberParity: r.NumberParity, Reason: r.Reason, FinishedAt: leaguesdk.FormatTime(now),
		Attempt: in.Attempt,
	}
	if rec.GameType == "" {
		rec.GameType = st.GameType
	}
	// The referee's record of the choices wins over what the player
	// remembers; choices are keyed by player id.
	for id, c := range r.Choices {
		if sameID(id, me) {
			rec.MyChoice = c
		} else if rec.OpponentID == "" || sameID(id, rec.OpponentID) {
			_, rec.OpponentID = leaguesdk.SplitSender(id)
			rec.OpponentChoice = c
		}
	}
	if rec.OpponentID == "" && r.WinnerPlayerID != "" && !sameID(string(r.WinnerPlayerID), me) {
		rec.OpponentID = string(r.WinnerPlayerID)
	}
	if rec.NumberParity == "" && rec.DrawnNumber > 0 {
		rec.NumberParity = leaguesdk.ParityOf(rec.DrawnNumber)
	}
	return rec
}

func (a *Agent) onGameOver(ctx context.Context, in *leaguesdk.GameOver) (*leaguesdk.Ack, error) {
	if err := a.refuseResult(); err != nil { // gapfill.go
		return nil, err
	}
	defer a.settling()() // owed until recorded (gapfill.go)
	st := a.takeMatch(in.MatchID)
	a.mu.Lock()
	delete(a.announced, in.MatchID) // over: no referee needs the player's token for it any more
	a.mu.Unlock()
	me := a.me(st.PlayerID)
	if me == "" {
		a.log.Warn("GAME_OVER for a player that does not know its id; not recorded", slog.String("match_id", in.MatchID))
		return a.ack(in, in.MatchID), nil
	}
	leagueID := a.LeagueID()
	if leagueID == "" {
		leagueID = st.LeagueID
	}
	// A GAME_OVER of a later attempt (a replay) supersedes the recorded
	// one; one of the same or an earlier attempt is a repeat.
	if known := a.history.records.Attempt(leagueID, in.MatchID); known >= leaguesdk.AttemptOf(in.Attempt) {
		agentkit.LogOutcome(ctx, a.log, "repeated GAME_OVER ignored", slog.String("match_id", in.MatchID), slog.Int("attempt", leaguesdk.AttemptOf(in.Attempt)))
		return a.ack(in, in.MatchID), nil
	} else if known > 0 {
		a.log.Info("GAME_OVER of a replay supersedes the earlier result", slog.String("match_id", in.MatchID),
			slog.Int("attempt", leaguesdk.AttemptOf(in.Attempt)))
	}
	now := a.cfg.Now()
	rec := recordOf(me, st, in, leagueID, now)
	added, err := a.history.records.Add(rec, now)
	if err != nil {
		a.log.Error("history not saved", slog.String("match_id", in.MatchID), slog.String("error", err.Error()))
	}
	if added {
		agentkit.LogOutcome(ctx, a.log, resultLine(me, rec))
		if l, ok := a.cfg.Strategy.(Learner); ok {
			a.notify(ctx, "Learn", func(ctx context.Context) { l.Learn(ctx, rec) })
		}
	}
	return a.ack(in, in.MatchID), nil
}

// resultLine says a result in a few words, for a person:
// "P02 won R1M1 against P01 (even vs odd, 4)".
func resultLine(me string, rec MatchRecord) string {
	verb := map[Result]string{Win: "won", Loss: "lost", Draw: "drew", TechnicalLoss: "lost (technical loss)"}[rec.Result]
	if verb == "" {
		verb = string(rec.Result)
	}
	line := fmt.Sprintf("%s %s %s against %s", me, verb, rec.MatchID, rec.OpponentID)
	mine, theirs := string(rec.MyChoice), string(rec.OpponentChoice)
	switch {
	case rec.DrawnNumber > 0:
		line += fmt.Sprintf(" (%s vs %s, %d)", cmp.Or(mine, "no choice"), cmp.Or(theirs, "no choice"), rec.DrawnNumber)
	case rec.Reason != "":
		line += " (" + rec.Reason + ")"
	}
	return line
}

func (a *Agent) onGameError(ctx context.Context, in *leaguesdk.GameError) (*leaguesdk.Ack, error) {
	a.log.Warn("game error from referee", slog.String("match_id", in.MatchID), slog.String("code", string(in.ErrorCode)),
		slog.String("description", in.ErrorDescription), slog.Int("retry_count", in.RetryCount), slog.Int("max_retries", in.MaxRetries))
	return a.ack(in, in.MatchID), nil
}

// fromManager reports whether a manager's notification (ROUND_ANNOUNCEMENT,
// LEAGUE_STANDINGS_UPDATE, ROUND_COMPLETED, LEAGUE_COMPLETED) may change
// the player's state (agentkit.FromManager): a forged one would end its
// league, or announce it matches whose referees it would answer with its
// token.
func (a *Agent) fromManager(ctx context.Context, env *leaguesdk.Envelope) bool {
	_, token := a.credentials()
	return agentkit.FromManager(ctx, a.log, env, token, "player")
}

func (a *Agent) onRound(ctx context.Context, in *broadcast.RoundAnnouncement) (*leaguesdk.Ack, error) {
	if !a.fromManager(ctx, &in.Envelope) {
		return a.ack(in, ""), nil
	}
	id, token := a.credentials()
	withToken := token != "" // its manager's: the referees of its matches may be answered with the token
	me := id
	var matches []leaguesdk.ScheduledMatch
	if me != "" {
		var err error
		if matches, err = in.MatchesOf(me, sameID); err != nil {
			return nil, err
		}
	}
	var mine []string
	for _, m := range matches {
		var role leaguesdk.Role
		var opp string
		switch {
		case sameID(m.PlayerAID, me):
			role, opp = leaguesdk.PlayerA, m.PlayerBID
		case sameID(m.PlayerBID, me):
			role, opp = leaguesdk.PlayerB, m.PlayerAID
		default:
			continue
		}
		mine = append(mine, m.MatchID+" against "+opp)
		if withToken {
			a.mu.Lock()
			a.announced[m.MatchID] = true
			a.mu.Unlock()
		}
		a.updateMatch(m.MatchID, func(st *matchState) {
			st.merge(matchState{LeagueID: in.LeagueID, RoundID: int(in.RoundID), GameType: m.GameType, OpponentID: opp, Role: role})
		})
	}
	msg := fmt.Sprintf("round %d: %s has no match", in.RoundID, me)
	if len(mine) > 0 {
		msg = fmt.Sprintf("round %d: %s plays %s", in.RoundID, me, strings.Join(mine, ", "))
	}
	agentkit.LogOutcome(ctx, a.log, msg)
	return a.ack(in, ""), nil
}

func (a *Agent) onRoundCompleted(ctx context.Context, in *leaguesdk.RoundCompleted) (*leaguesdk.Ack, error) {
	if !a.fromManager(ctx, &in.Envelope) {
		return a.ack(in, ""), nil
	}
	// Nothing to write: the round's results are durable in the journal
	// already, and history.json is made current at rest (LEAGUE_COMPLETED,
	// stop), not every round.
	a.log.LogAttrs(ctx, slog.LevelDebug, "round completed", slog.Int("round_id", int(in.RoundID)))
	return a.ack(in, ""), nil
}

func (a *Agent) onLeagueCompleted(ctx context.Context, in *broadcast.LeagueCompleted) (*leaguesdk.Ack, error) {
	if !a.fromManager(ctx, &in.Envelope) {
		return a.ack(in, ""), nil
	}
	a.mu.Lock()
	clear(a.announced) // the league is over: no match needs the player's token
	round := a.lastRound
	a.mu.Unlock()
	if len(in.FinalStandings) > 0 {
		a.keepTable(ctx, round, in.FinalStandings) // standings.go
	}
	a.checkGapIn(in.FinalStandings) // gapfill.go
	// The league is at rest: history.json holds every result before the
	// acknowledgement says so.
	if err := a.history.records.Flush(); err != nil {
		a.log.LogAttrs(ctx, slog.LevelError, "history.json not written", slog.String("error", err.Error()))
	}
	id, _ := a.credentials()
	s := a.History().Stats()
	msg := fmt.Sprintf("league %s completed: %s won %d, drew %d, lost %d: %s", in.LeagueID, id, s.Wins, s.Draws, s.Losses, agentkit.Plural(s.Points, "point"))
	if in.Champion != nil {
		msg += "; champion " + in.Champion.PlayerID
	}
	agentkit.LogOutcome(ctx, a.log, msg)
	return a.ack(in, ""), nil
}

// playerState is the answer of get_player_state.
type playerState struct {
	PlayerID    string                  `json:"player_id"`
	DisplayName string                  `json:"display_name"`
	Registered  bool                    `json:"registered"`
	State       State                   `json:"state"`
	LeagueID    string                  `json:"league_id,omitempty"`
	Endpoint    string                  `json:"contact_endpoint,omitempty"`
	Stats       Stats                   `json:"stats"`
	Active      []matchState            `json:"active_matches"`
	Standings   []leaguesdk.StandingRow `json:"standings,omitempty"`
	// MyStanding is the player's own row of the latest table.
	MyStanding *leaguesdk.StandingRow `json:"my_standing,omitempty"`
	Matches    []MatchRecord          `json:"matches"`
}

// stateQuery is the request of get_player_state. It is read without
// validation so that a debugging call with empty params is answered.
type stateQuery struct {
	ConversationID string `json:"conversation_id"`
	AuthToken      string `json:"auth_token"`
}

func (a *Agent) onState(ctx context.Context, in *stateQuery) (*leaguesdk.StateResponse, error) {
	h := a.History()
	a.mu.Lock()
	st := playerState{PlayerID: a.id, DisplayName: a.cfg.Name, Registered: a.id != "", LeagueID: a.leagueID,
		Endpoint: a.endpoint, Stats: h.Stats(), Active: []matchState{}, Standings: a.standings.decoded(), MyStanding: a.myStanding, Matches: h.Matches(),
		State: a.stateLocked()}
	// The choice in a match still running is the player's secret: only
	// its manager (the caller with the player's own token) sees it.
	owner := a.token != "" && leaguesdk.TokensEqual(in.AuthToken, a.token)
	for _, m := range a.matches {
		c := *m
		if !owner {
			c.MyChoice = ""
		}
		st.Active = append(st.Active, c)
	}
	a.mu.Unlock()
	slices.SortFunc(st.Active, func(x, y matchState) int { return strings.Compare(x.MatchID, y.MatchID) })
	if st.Matches == nil {
		st.Matches = []MatchRecord{}
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return &leaguesdk.StateResponse{Envelope: a.reply(leaguesdk.MsgStateResponse, in.ConversationID), State: raw}, nil
}
