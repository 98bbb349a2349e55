package referee

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// State is a match's state in the referee's state machine:
// WAITING_FOR_PLAYERS → COLLECTING_CHOICES → DRAWING_NUMBER → FINISHED,
// with FINISHED reached directly on a technical loss, and ABORTED when the
// referee stops before the match could end.
type State string

// The states of a match.
const (
	// StateWaitingForPlayers: invitations sent, waiting for both GAME_JOIN_ACKs.
	StateWaitingForPlayers State = "WAITING_FOR_PLAYERS"
	// StateCollectingChoices: asking for moves (both at once for even/odd,
	// in turn for alternating games).
	StateCollectingChoices State = "COLLECTING_CHOICES"
	// StateDrawingNumber: every move is in; the rules resolve the outcome
	// (even/odd draws its number).
	StateDrawingNumber State = "DRAWING_NUMBER"
	// StateFinished: the result is decided and GAME_OVER was sent.
	StateFinished State = "FINISHED"
	// StateAborted: the referee stopped first; nothing is reported.
	StateAborted State = "ABORTED"
)

// Result is a match's result as the referee reports it.
type Result struct {
	// Status is WIN, DRAW or TECHNICAL_LOSS.
	Status leaguesdk.ResultStatus `json:"status"`
	// Winner is the winner's player id; empty (null) for a draw or when
	// both players failed.
	Winner leaguesdk.OptionalString `json:"winner"`
	// Score is the points each player earned: 3/0 for a win or a technical
	// loss, 1/1 for a draw, 0/0 when both players failed.
	Score        map[string]int    `json:"score"`
	DrawnNumber  int               `json:"drawn_number,omitempty"`
	NumberParity leaguesdk.Parity  `json:"number_parity,omitempty"`
	Choices      map[string]string `json:"choices,omitempty"`
	Reason       string            `json:"reason,omitempty"`
	// TechnicalLoss lists the players who failed (no ACK, declined, or
	// failed every retry of a move).
	TechnicalLoss []string `json:"technical_loss,omitempty"`
	// Unresponsive lists the players of TechnicalLoss that did not answer
	// at all (no answer in time, or unreachable).
	Unresponsive []string `json:"unresponsive,omitempty"`
}

// match is one match the referee runs.
type match struct {
	r         *Referee
	req       leaguesdk.StartMatch
	key       string
	conv      string
	ids       [2]string
	endpoints [2]string
	game      Game
	rec       *recorder
	log       *slog.Logger
	notes     sync.WaitGroup // GAME_ERROR notifications in flight

	gameMu  sync.Mutex
	choices map[string]string // accepted choices, last per player

	mu        sync.Mutex
	alias     [2]string // ids the players were seen to answer under, when not their own
	state     State
	result    *Result
	reporting bool
	reported  bool
}

func (r *Referee) newMatch(req *leaguesdk.StartMatch, game Game, refereeID string) *match {
	m := &match{
		r:         r,
		req:       *req,
		key:       matchKey(req.LeagueID, req.MatchID),
		conv:      leaguesdk.NewConversationID(),
		ids:       [2]string{req.PlayerAID, req.PlayerBID},
		endpoints: [2]string{req.PlayerAEndpoint, req.PlayerBEndpoint},
		game:      game,
		choices:   map[string]string{},
		log: r.log.With(slog.String("league_id", req.LeagueID), slog.String("match_id", req.MatchID),
			slog.Int("round_id", int(req.RoundID))),
	}
	m.rec = &recorder{store: r.transcripts, now: r.cfg.Now, t: Transcript{
		SchemaVersion: SchemaVersion, MatchID: req.MatchID, LeagueID: req.LeagueID, RoundID: int(req.RoundID),
		ConversationID: m.conv,
		GameType:       req.GameType, RefereeID: refereeID,
		Players: []TranscriptPlayer{
			{PlayerID: req.PlayerAID, Role: leaguesdk.PlayerA, Endpoint: req.PlayerAEndpoint},
			{PlayerID: req.PlayerBID, Role: leaguesdk.PlayerB, Endpoint: req.PlayerBEndpoint},
		},
		Lifecycle: make([]LifecycleEntry, 0, statesOfAMatch), Transcript: make([]TranscriptMessage, 0, messagesOfAMatch),
	}}
	return m
}

// The lengths of a normal match's lifecycle (WAITING_FOR_PLAYERS to
// FINISHED) and transcript (a call and its answer for each invitation,
// choice and GAME_OVER, and the report): room for them is made once
// rather than grown entry by entry.
const (
	statesOfAMatch   = 4
	messagesOfAMatch = 14
)

func matchKey(leagueID, matchID string) string { return leagueID + "/" + matchID }

func (m *match) setState(s State, note string) {
	m.mu.Lock()
	m.state = s
	m.mu.Unlock()
	if err := m.rec.state(s, note); err != nil {
		m.log.Error("cannot write the match transcript", slog.String("error", err.Error()))
	}
	// LogAttrs, here and in the other lines of every match, takes the
	// attributes without boxing each in an interface value.
	m.log.LogAttrs(context.Background(), slog.LevelDebug, "match state", slog.String("state", string(s)), slog.String("note", note))
}

// run plays the match, tells the players, and reports the result. It is
// the match's goroutine; ctx ends when the referee aborts its matches.
func (m *match) run(ctx context.Context) {
	defer m.r.wg.Done()
	res, err := m.play(ctx)
	m.notes.Wait()
	m.r.release()
	if err != nil {
		m.setState(StateAborted, err.Error())
		m.log.Warn("match aborted; not reported", slog.String("error", err.Error()))
		return
	}
	m.report(ctx, res)
}

// play runs the state machine up to FINISHED and sends GAME_OVER. It
// returns an error only when the match is aborted.
func (m *match) play(ctx context.Context) (*Result, error) {
	m.setState(StateWaitingForPlayers, "")
	var failed [2]error
	m.both(func(i int) { failed[i] = m.join(ctx, i) })
	if ctx.Err() != nil {
		return nil, fmt.Errorf("referee stopping: %w", ctx.Err())
	}
	if failed[0] == nil && failed[1] == nil {
		m.setState(StateCollectingChoices, "")
		var err error
		if failed, err = m.collect(ctx); err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("referee stopping: %w", ctx.Err())
		}
	}
	res := m.decide(failed)
	if len(res.TechnicalLoss) == 0 {
		note := ""
		if res.DrawnNumber != 0 {
			note = fmt.Sprintf("drawn number %d", res.DrawnNumber)
		}
		m.setState(StateDrawingNumber, note)
	}
	m.mu.Lock()
	m.result = res
	m.mu.Unlock()
	m.rec.set(func(t *Transcript) { t.Result = res })
	m.setState(StateFinished, res.Reason) // writes the transcript, result included
	m.log.LogAttrs(context.Background(), slog.LevelInfo, "match finished", slog.String("status", string(res.Status)), slog.String("winner", string(res.Winner)),
		slog.Any("score", res.Score), slog.String("reason", res.Reason))
	m.gameOver(ctx, res)
	return res, nil
}

// both runs f for both players in parallel and waits for both: the
// second player's in the match's own goroutine, so that a phase hands one
// task to the referee's pool, not two.
func (m *match) both(f func(i int)) {
	var wg sync.WaitGroup
	m.r.workers.GoWait(&wg, func() { f(0) })
	f(1)
	wg.Wait()
}

func (m *match) retries() int { return m.r.cfg.Retries }

// shutdownAttempt bounds the one attempt made to reach a player the
// manager named shut down in start_match.
const shutdownAttempt = time.Second

// shutDown reports whether start_match named player i shut down: it gets
// one quick attempt, without retries.
func (m *match) shutDown(i int) bool { return slices.Contains(m.req.ShutdownPlayers, m.ids[i]) }

// attempts returns player i's number of retries and the deadline of one call.
func (m *match) attempts(i int, timeout time.Duration) (int, time.Duration) {
	if m.shutDown(i) {
		return 0, min(timeout, shutdownAttempt)
	}
	return m.retries(), timeout
}

// join invites player i, retrying a failed invitation. It returns nil when
// the player joined, else why it did not.
func (m *match) join(ctx context.Context, i int) error {
	var last error
	retries, timeout := m.attempts(i, m.r.cfg.JoinTimeout)
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 && !m.beforeRetry(ctx, i, StateWaitingForPlayers, last, attempt) {
			return last
		}
		rep, err := m.ask(ctx, i, kindJoin, leaguesdk.MethodHandleGameInvitation, m.invitation(i), timeout)
		if err == nil {
			var accept bool
			accept, _, err = rep.join.Answer()
			if err == nil && !accept {
				return fmt.Errorf("%s declined the invitation", m.ids[i])
			}
			if err == nil {
				return nil
			}
		}
		last = err
		if ctx.Err() != nil {
			return last
		}
	}
	return fmt.Errorf("%s did not join after %d retries: %w", m.ids[i], retries, last)
}

// collect asks for moves until the game is over or a player has failed
// every retry of a move. It returns each player's failure; the error is
// set when the match must be aborted.
func (m *match) collect(ctx context.Context) (failed [2]error, abort error) {
	for ctx.Err() == nil {
		m.gameMu.Lock()
		over, pending := m.game.Over(), m.game.Pending()
		m.gameMu.Unlock()
		if over {
			return failed, nil
		}
		if len(pending) == 0 {
			return failed, errors.New("rules bug: the game is not over but waits for no move")
		}
		at := make([]int, len(pending))
		for k, mv := range pending {
			if at[k] = m.index(mv.PlayerID); at[k] < 0 {
				return failed, fmt.Errorf("rules bug: move requested from %q, not a player of the match", mv.PlayerID)
			}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		ask := func(i int, mv MoveRequest) {
			err := m.move(ctx, i, mv)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && abort == nil && errors.Is(err, errFatal) {
				abort = err
				return
			}
			failed[i] = err
		}
		// The last move is asked on the match's own goroutine, as both does.
		for k, mv := range pending[:len(pending)-1] {
			m.r.workers.GoWait(&wg, func() { ask(at[k], mv) })
		}
		ask(at[len(at)-1], pending[len(pending)-1])
		wg.Wait()
		if abort != nil || failed[0] != nil || failed[1] != nil {
			return failed, abort
		}
	}
	return failed, nil
}

var errFatal = errors.New("referee failure")

func (m *match) index(playerID string) int {
	for i, id := range m.ids {
		if id == playerID {
			return i
		}
	}
	return -1
}

// move asks player i for the move mv, retrying failed calls and invalid
// choices. It returns nil once the game accepted a choice.
func (m *match) move(ctx context.Context, i int, mv MoveRequest) error {
	var last error
	retries, timeout := m.attempts(i, m.r.cfg.MoveTimeout)
	for attempt := 0; attempt <= retries; attempt++ {
		if attempt > 0 && !m.beforeRetry(ctx, i, StateCollectingChoices, last, attempt) {
			return last
		}
		method, msg := m.moveCall(i, mv)
		rep, err := m.ask(ctx, i, kindMove, method, msg, timeout)
		if err == nil {
			var choice string
			if choice, _, err = rep.move.Choice(); err == nil {
				m.gameMu.Lock()
				err = m.game.Apply(m.ids[i], choice)
				if err == nil {
					m.choices[m.ids[i]] = choice
				}
				m.gameMu.Unlock()
				if err == nil {
					return nil
				}
				var pe *leaguesdk.Error
				if !errors.As(err, &pe) {
					return fmt.Errorf("%w: %v", errFatal, err)
				}
				m.log.Info("invalid choice", slog.String("player_id", m.ids[i]), slog.String("choice", clip(choice)),
					slog.String("error", err.Error()))
			}
		}
		last = err
		if ctx.Err() != nil {
			return last
		}
	}
	return fmt.Errorf("%s failed every retry of %s (%d retries): %w", m.ids[i], mv.MoveType, retries, last)
}

// beforeRetry announces retry number attempt to player i with a GAME_ERROR
// and waits RetryDelay. It returns false when ctx ended meanwhile.
func (m *match) beforeRetry(ctx context.Context, i int, state State, cause error, attempt int) bool {
	m.gameError(ctx, i, state, cause, attempt)
	return sleep(ctx, m.r.cfg.RetryDelay)
}

// sleep waits d and reports true, or reports false as soon as ctx ends.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// ask sends one call to player i and waits, until timeout, for its answer:
// the direct reply, or, when the reply is a bare acknowledgement (or could
// not be read), a callback carrying the answer. The call runs on the
// caller's goroutine; a callback that arrives first ends it.
func (m *match) ask(ctx context.Context, i int, kind, method string, msg leaguesdk.Message, timeout time.Duration) (reply, error) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pid, endpoint := m.ids[i], m.endpoints[i]
	k := waitKey{m.req.MatchID, kind}
	m.mu.Lock()
	alias := m.alias[i]
	m.mu.Unlock()
	w := m.r.hub.expect(k, m.ids, i, alias, m.rec, cancel)
	defer m.r.hub.done(k, w)

	// answered takes the answer a callback handed over, if one did.
	answered := func() (reply, bool) {
		select {
		case rep := <-w.ch:
			m.learnAlias(k, w, i, rep)
			return rep, true
		default:
			return reply{}, false
		}
	}
	// expired is the error once actx has ended: the match stops, or the
	// deadline passed.
	expired := func() error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return leaguesdk.NewError(leaguesdk.CodeTimeout, "no answer to %s within %s", method, timeout)
	}

	body := m.sent(pid, method, msg)
	direct, err := m.call(actx, kind, endpoint, method, body)
	if rep, ok := answered(); ok { // a callback came first, or with the reply
		return rep, nil
	}
	var callErr error
	switch {
	case err != nil && actx.Err() != nil:
		return reply{}, expired()
	case err != nil:
		m.rec.message(Received, pid, method, nil, err)
		if leaguesdk.CodeOf(err) != leaguesdk.CodeMissingRequiredField {
			return reply{}, err
		}
		callErr = err // unreadable reply: a callback may still come
	default:
		m.rec.add(Received, pid, method, direct.raw, nil)
		rep := direct.reply
		m.learnAlias(k, w, i, rep)
		if rep.answers() {
			return rep, nil
		}
		m.log.Debug("bare acknowledgement; waiting for the callback", slog.String("player_id", pid),
			slog.String("method", method))
	}
	select {
	case rep := <-w.ch:
		m.learnAlias(k, w, i, rep)
		return rep, nil
	case <-actx.Done():
		if rep, ok := answered(); ok { // the callback ended the wait
			return rep, nil
		}
		if callErr != nil {
			return reply{}, callErr
		}
		if ctx.Err() == nil {
			m.rec.message(Received, pid, method, nil, errors.New("no callback before the deadline"))
		}
		return reply{}, expired()
	}
}

// learnAlias notes the id player i answers under when it is not the id
// the referee knows it by (a player of another implementation that kept an
// id of its own): the answer is the called player's all the same, and
// callbacks under that id are matched to it from now on.
func (m *match) learnAlias(k waitKey, w *wait, i int, rep reply) {
	id := rep.player()
	if id == "" || id == m.ids[0] || id == m.ids[1] {
		return
	}
	m.mu.Lock()
	known := m.alias[i] == id
	m.alias[i] = id
	m.mu.Unlock()
	if !known {
		m.log.Warn("player answers under another player id; its answers are read as the called player's",
			slog.String("player_id", m.ids[i]), slog.String("answers_as", id))
	}
	m.r.hub.learn(k, w, id)
}

// directReply is a player's direct reply to a call: read as the call's
// answer, and as the transcript records it (tokens masked).
type directReply struct {
	reply reply
	raw   json.RawMessage
}

// call makes one attempt of a call of kind to a player, the message
// encoded as body, and reads the reply with its typed decoding. A reply
// whose fields are of unexpected JSON types is read all the same (the
// message types' decoding reads the rest): only a failed call is an
// error.
func (m *match) call(ctx context.Context, kind, endpoint, method string, body json.RawMessage) (directReply, error) {
	opts := leaguesdk.CallOptions{Method: method, Retry: leaguesdk.Once()}
	if kind == kindJoin {
		resp, err := leaguesdk.CallResponse[leaguesdk.GameJoinAck](ctx, m.r.client, endpoint, body, opts)
		if resp == nil {
			return directReply{}, err
		}
		return directReply{joinReply(resp.Msg), received(resp.Raw, resp.Msg.AuthToken, err)}, nil
	}
	resp, err := leaguesdk.CallResponse[leaguesdk.ChooseParityResponse](ctx, m.r.client, endpoint, body, opts)
	if resp == nil {
		return directReply{}, err
	}
	return directReply{moveReply(resp.Msg), received(resp.Raw, resp.Msg.AuthToken, err)}, nil
}

// received returns a reply as the transcript records it: its bytes with
// its auth token masked; read for its tokens when it did not decode
// (decodeErr), and its token is not known.
func received(raw []byte, token string, decodeErr error) json.RawMessage {
	if decodeErr != nil {
		return redactMessage(json.RawMessage(raw))
	}
	return maskToken(raw, token)
}

// sent encodes a message to send to peer, once, records it in the
// transcript and returns the bytes to send.
func (m *match) sent(peer, method string, msg leaguesdk.Message) json.RawMessage {
	body, err := wirejson.Marshal(msg)
	if err != nil { // not a message of this package: recorded as it encodes
		m.rec.message(Sent, peer, method, msg, nil)
		return nil
	}
	m.rec.raw(Sent, peer, method, body, msg.Header().AuthToken)
	return body
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

func (m *match) envelope(t leaguesdk.MessageType) leaguesdk.Envelope {
	sender, token := m.r.credentials()
	return leaguesdk.NewEnvelope(t, sender, token, m.conv, m.r.cfg.Now())
}

func (m *match) invitation(i int) *leaguesdk.GameInvitation {
	role := leaguesdk.PlayerA
	if i == 1 {
		role = leaguesdk.PlayerB
	}
	return &leaguesdk.GameInvitation{
		Envelope: m.envelope(leaguesdk.MsgGameInvitation),
		LeagueID: m.req.LeagueID, RoundID: m.req.RoundID, MatchID: m.req.MatchID, GameType: m.req.GameType,
		RoleInMatch: role, OpponentID: m.ids[1-i], PlayerID: m.ids[i],
	}
}

// moveCall builds the call asking player i for mv: CHOOSE_PARITY_CALL for
// the even/odd move, GAME_MOVE_CALL for any other.
func (m *match) moveCall(i int, mv MoveRequest) (string, leaguesdk.Message) {
	deadline := leaguesdk.FormatTime(m.r.cfg.Now().Add(m.r.cfg.MoveTimeout))
	if mv.MoveType == MoveChooseParity {
		return leaguesdk.MethodChooseParity, &leaguesdk.ChooseParityCall{
			Envelope: m.envelope(leaguesdk.MsgChooseParityCall),
			MatchID:  m.req.MatchID, PlayerID: m.ids[i], GameType: m.req.GameType,
			Context: leaguesdk.ParityContext{OpponentID: m.ids[1-i], RoundID: m.req.RoundID,
				YourStandings: m.req.Standings[m.ids[i]]},
			Deadline: deadline,
		}
	}
	return leaguesdk.MethodMakeMove, &leaguesdk.GameMoveCall{
		Envelope: m.envelope(leaguesdk.MsgGameMoveCall),
		MatchID:  m.req.MatchID, PlayerID: m.ids[i], GameType: m.req.GameType,
		MoveRequest: leaguesdk.MoveRequest{MoveType: mv.MoveType, ValidOptions: mv.ValidOptions, Context: mv.Context},
		Deadline:    deadline,
	}
}

// gameError sends player i the GAME_ERROR that announces retry number
// attempt. It does not wait for the player's answer: the retry follows
// RetryDelay later whatever the player does with it.
func (m *match) gameError(ctx context.Context, i int, state State, cause error, attempt int) {
	code := leaguesdk.CodeOf(cause)
	if code == "" {
		code = leaguesdk.CodeConnectionError
	}
	action := "answer the repeated GAME_INVITATION with GAME_JOIN_ACK"
	if state == StateCollectingChoices {
		action = "answer the repeated move call with a valid choice"
	}
	desc := "no valid answer"
	if cause != nil {
		desc = leaguesdk.RedactTokens(cause.Error())
	}
	msg := &leaguesdk.GameError{
		Envelope: m.envelope(leaguesdk.MsgGameError),
		MatchID:  m.req.MatchID, PlayerID: m.ids[i], AffectedPlayer: m.ids[i],
		ErrorCode: code, ErrorName: code.Name(), ErrorDescription: desc,
		ActionRequired: action, GameState: string(state), Retryable: true,
		RetryCount: attempt, MaxRetries: m.retries(),
		RetryInfo: &leaguesdk.RetryInfo{RetryCount: attempt, MaxRetries: m.retries(),
			NextRetryAt: leaguesdk.FormatTime(m.r.cfg.Now().Add(m.r.cfg.RetryDelay))},
		Consequence: fmt.Sprintf("technical loss after %d failed retries", m.retries()),
	}
	m.notify(ctx, i, leaguesdk.MethodNotifyGameError, msg, &m.notes)
}

// notify sends a notification to player i on a goroutine of the referee's
// pool (tracked by wg), with GameOverTimeout as deadline. Failures are
// logged.
func (m *match) notify(ctx context.Context, i int, method string, msg leaguesdk.Message, wg *sync.WaitGroup) {
	body := m.sent(m.ids[i], method, msg)
	m.r.workers.GoWait(wg, func() { m.deliver(ctx, i, method, body) })
}

// deliver makes the call of a notification to player i that the
// transcript has as sent, and records its answer. Failures are logged.
func (m *match) deliver(ctx context.Context, i int, method string, body json.RawMessage) {
	pid, endpoint := m.ids[i], m.endpoints[i]
	nctx, cancel := context.WithTimeout(ctx, m.r.cfg.GameOverTimeout)
	defer cancel()
	resp, err := leaguesdk.CallResponse[leaguesdk.Ack](nctx, m.r.client, endpoint, body,
		leaguesdk.CallOptions{Method: method, Retry: leaguesdk.Once()})
	if resp == nil {
		m.rec.message(Received, pid, method, nil, err)
		m.log.Info("notification not delivered", slog.String("player_id", pid), slog.String("method", method),
			slog.String("error", err.Error()))
		return
	}
	// Whatever the player answered acknowledges the notification.
	m.rec.add(Received, pid, method, received(resp.Raw, resp.Msg.AuthToken, err), nil)
}

// decide turns the game's outcome and the players' failures into the result.
func (m *match) decide(failed [2]error) *Result {
	a, b := m.ids[0], m.ids[1]
	m.gameMu.Lock()
	defer m.gameMu.Unlock()
	res := &Result{Choices: maps.Clone(m.choices)}
	if len(res.Choices) == 0 {
		res.Choices = nil
	}
	for i, err := range failed {
		if code := leaguesdk.CodeOf(err); code == leaguesdk.CodeTimeout || code == leaguesdk.CodeConnectionError {
			res.Unresponsive = append(res.Unresponsive, m.ids[i])
		}
	}
	switch {
	case failed[0] != nil && failed[1] != nil:
		res.Status = leaguesdk.ResultTechnicalLoss
		res.Score = map[string]int{a: 0, b: 0}
		res.TechnicalLoss = []string{a, b}
		res.Reason = "both players failed: " + failed[0].Error() + "; " + failed[1].Error()
	case failed[0] != nil || failed[1] != nil:
		off := 0
		if failed[1] != nil {
			off = 1
		}
		res.Status = leaguesdk.ResultTechnicalLoss
		res.Winner = leaguesdk.OptionalString(m.ids[1-off])
		res.Score = map[string]int{m.ids[off]: 0, m.ids[1-off]: 3}
		res.TechnicalLoss = []string{m.ids[off]}
		res.Reason = "technical loss: " + failed[off].Error()
	default:
		o := m.game.Outcome()
		res.Status, res.Winner = o.Status, leaguesdk.OptionalString(o.Winner)
		res.DrawnNumber, res.NumberParity, res.Reason = o.DrawnNumber, o.NumberParity, o.Reason
		if len(o.Choices) > 0 {
			res.Choices = o.Choices
		}
		switch {
		case o.Status == leaguesdk.ResultWin && o.Winner == a:
			res.Score = map[string]int{a: 3, b: 0}
		case o.Status == leaguesdk.ResultWin && o.Winner == b:
			res.Score = map[string]int{a: 0, b: 3}
		default:
			res.Status, res.Winner = leaguesdk.ResultDraw, ""
			res.Score = map[string]int{a: 1, b: 1}
		}
	}
	return res
}

func parities(choices map[string]string) map[string]leaguesdk.Parity {
	if len(choices) == 0 {
		return nil
	}
	out := make(map[string]leaguesdk.Parity, len(choices))
	for k, v := range choices {
		out[k] = leaguesdk.Parity(v)
	}
	return out
}

// gameOver sends GAME_OVER to both players in parallel and waits for both
// (each bounded by GameOverTimeout).
func (m *match) gameOver(ctx context.Context, res *Result) {
	var bodies [2]json.RawMessage
	for i := range 2 {
		msg := &leaguesdk.GameOver{
			Envelope: m.envelope(leaguesdk.MsgGameOver),
			MatchID:  m.req.MatchID, GameType: m.req.GameType,
			GameResult: leaguesdk.GameResult{Status: res.Status, WinnerPlayerID: res.Winner,
				DrawnNumber: res.DrawnNumber, NumberParity: res.NumberParity, Choices: parities(res.Choices),
				Reason: res.Reason},
			Attempt: m.req.Attempt,
		}
		bodies[i] = m.sent(m.ids[i], leaguesdk.MethodNotifyMatchResult, msg)
	}
	m.both(func(i int) { m.deliver(ctx, i, leaguesdk.MethodNotifyMatchResult, bodies[i]) })
}

// report sends MATCH_RESULT_REPORT until the manager acknowledges it, an
// answered error says retrying is useless, or ctx ends. It does nothing
// while another report of the match is under way. Every attempt
// carries the same result, so a manager that got it twice records it once.
func (m *match) report(ctx context.Context, res *Result) {
	m.mu.Lock()
	if m.reporting {
		m.mu.Unlock()
		return
	}
	m.reporting = true
	m.mu.Unlock()
	ok := m.sendReport(ctx, res)
	m.mu.Lock()
	m.reporting = false
	m.reported = m.reported || ok
	m.mu.Unlock()
	_ = m.rec.settle(func(t *Transcript) { t.Reported = t.Reported || ok })
}

func (m *match) sendReport(ctx context.Context, res *Result) bool {
	msg := &leaguesdk.MatchResultReport{
		Envelope: m.envelope(leaguesdk.MsgMatchResultReport),
		LeagueID: m.req.LeagueID, RoundID: m.req.RoundID, MatchID: m.req.MatchID, GameType: m.req.GameType,
		Result: leaguesdk.MatchResult{Winner: res.Winner, Score: res.Score, Status: res.Status,
			Details: leaguesdk.MatchDetails{DrawnNumber: res.DrawnNumber, Choices: parities(res.Choices), Reason: res.Reason,
				Unresponsive: res.Unresponsive}},
	}
	body := m.sent(leaguesdk.LeagueManagerSender, leaguesdk.MethodReportMatchResult, msg)
	attempts := 1
	// Retried until acknowledged, a refusal, or the referee stops: each
	// attempt within ReportTimeout, the pause doubling from RetryDelay up
	// to 64 times it.
	policy := &leaguesdk.RetryPolicy{MaxRetries: leaguesdk.RetryUntilDone, Delay: m.r.cfg.RetryDelay, Exponential: true,
		AttemptTimeout: m.r.cfg.ReportTimeout,
		OnRetry: func(attempt int, err error, pause time.Duration) {
			m.rec.message(Received, leaguesdk.LeagueManagerSender, leaguesdk.MethodReportMatchResult, nil, err)
			m.log.Warn("report failed; retrying", slog.Int("attempt", attempt), slog.Duration("in", pause),
				slog.String("error", err.Error()))
			m.rec.raw(Sent, leaguesdk.LeagueManagerSender, leaguesdk.MethodReportMatchResult, body, msg.AuthToken)
			attempts = attempt + 1
		}}
	resp, err := leaguesdk.CallResponse[leaguesdk.Ack](ctx, m.r.manager, m.r.cfg.League, body,
		leaguesdk.CallOptions{Method: leaguesdk.MethodReportMatchResult, Retry: policy})
	if resp == nil {
		m.rec.message(Received, leaguesdk.LeagueManagerSender, leaguesdk.MethodReportMatchResult, nil, err)
		if ctx.Err() != nil {
			m.log.Error("result not reported: referee stopping", slog.Int("attempts", attempts))
		} else {
			m.log.Error("result not reported", slog.Int("attempts", attempts), slog.String("error", err.Error()))
		}
		return false
	}
	m.rec.add(Received, leaguesdk.LeagueManagerSender, leaguesdk.MethodReportMatchResult, received(resp.Raw, resp.Msg.AuthToken, err), nil)
	ack := resp.Msg // an answer that does not decode as an ack is taken as one all the same
	if s := leaguesdk.AckStatus(strings.ToUpper(string(ack.Status))); s != leaguesdk.AckRecorded && s != leaguesdk.AckDuplicate && s != leaguesdk.AckOK {
		m.log.Warn("report answered without a RECORDED/DUPLICATE ack; taken as acknowledged",
			slog.String("status", string(ack.Status)))
	}
	m.log.LogAttrs(context.Background(), slog.LevelInfo, "result reported", slog.Int("attempts", attempts), slog.String("ack", string(ack.Status)))
	return true
}
