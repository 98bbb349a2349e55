package arena

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/rules"
)

// sender is the arena's sender in the messages it sends, as a referee's.
const sender = "referee:arena"

// leagueID is the league the arena's matches belong to.
const leagueID = "arena"

// seat is one entry at the table: a player.Agent of this process, or a
// player at a URL.
type seat struct {
	id       string
	name     string
	agent    *player.Agent     // in process
	deliver  deliverer         // agent's in-process hook
	observer bool              // agent's strategy is a player.StandingsObserver
	url      string            // over HTTP
	client   *leaguesdk.Client // over HTTP
	strategy player.Strategy   // in process

	mu      sync.Mutex
	latency []time.Duration // of each move call, call to answer
}

// timed records the time a move call took.
func (s *seat) timed(d time.Duration) {
	s.mu.Lock()
	s.latency = append(s.latency, d)
	s.mu.Unlock()
}

// usage is a strategy that counts the tokens of its model's answers, as
// those of package strategies/llm do.
type usage interface {
	Usage() (prompt, answer int64)
}

// deliverer is the in-process hook of a player.Agent's handler: it hands a
// message to the agent's own handlers without encoding it, as if it had
// come on the wire (package player documents it on its handler type).
type deliverer interface {
	Deliver(ctx context.Context, msg leaguesdk.Message) (leaguesdk.Message, error)
}

// source returns a reader of random bytes seeded from seed and the keys,
// so that every random source of a run derives from Config.Seed.
func source(seed uint64, keys ...uint64) io.Reader {
	h := seed
	for _, k := range keys {
		h = h*0x9E3779B97F4A7C15 + k + 1
	}
	return &pcgReader{g: rand.NewPCG(seed, h)}
}

// pcgReader reads the bytes of a PCG generator. It is safe for
// concurrent use: a league's referee draws for several matches at once.
type pcgReader struct {
	mu sync.Mutex
	g  *rand.PCG
}

func (r *pcgReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b [8]byte
	for i := 0; i < len(p); i += 8 {
		binary.LittleEndian.PutUint64(b[:], r.g.Uint64())
		copy(p[i:], b[:])
	}
	return len(p), nil
}

// newSeats makes the seats of the entries: an Agent for each Go strategy,
// a client for the URLs. Their random sources derive from cfg.Seed.
func newSeats(cfg Config, names []string) ([]*seat, func(), error) {
	return newSeatsSeeded(cfg, names, func(int) uint64 { return cfg.Seed })
}

// newSeatsSeeded is newSeats with the random sources of entry i derived
// from seedOf(i).
func newSeatsSeeded(cfg Config, names []string, seedOf func(i int) uint64) ([]*seat, func(), error) {
	if seedOf == nil {
		seedOf = func(int) uint64 { return cfg.Seed }
	}
	seeded := seedOf
	seedOf = func(i int) uint64 {
		if s := cfg.Entries[i].Seed; s != 0 {
			return s
		}
		return seeded(i)
	}
	n := len(cfg.Entries)
	seats := make([]*seat, n)
	var client *leaguesdk.Client
	closeAll := func() {
		for _, s := range seats {
			if s != nil && s.agent != nil {
				_ = s.agent.Close()
			}
		}
		if client != nil {
			client.Close()
		}
	}
	for i, e := range cfg.Entries {
		s := &seat{id: playerID(i, n), name: names[i], url: e.URL}
		seats[i] = s
		if e.URL != "" {
			if client == nil {
				client = leaguesdk.NewClient(leaguesdk.ClientConfig{HTTPClient: cfg.HTTPClient, Logger: cfg.Logger,
					Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
			}
			s.client = client
			continue
		}
		strategy, err := entryStrategySeeded(cfg, i, seedOf(i))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		_, s.observer = strategy.(player.StandingsObserver)
		s.strategy = strategy
		s.agent, err = player.New(player.Config{
			Name: names[i], ID: s.id,
			// An arena player is not registered with a manager; it
			// answers as the player the arena addresses.
			NoRegister: true,
			Strategy:   strategy,
			Rand:       source(seedOf(i), uint64(i), 2),
			NoAgentLog: true,
			Logger:     cfg.Logger.With(slog.String("entry", names[i])),
		})
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("arena: entry %q: %w", names[i], err)
		}
		var ok bool
		if s.deliver, ok = s.agent.Handler().(deliverer); !ok {
			closeAll()
			return nil, nil, fmt.Errorf("arena: entry %q: the player's handler takes no messages in process", names[i])
		}
	}
	return seats, closeAll, nil
}

// entryStrategy returns the strategy of entry i.
func entryStrategy(cfg Config, i int) (player.Strategy, error) {
	seed := cfg.Seed
	if s := cfg.Entries[i].Seed; s != 0 {
		seed = s
	}
	return entryStrategySeeded(cfg, i, seed)
}

// entryStrategySeeded returns the strategy of entry i, built from a
// source derived from seed.
func entryStrategySeeded(cfg Config, i int, seed uint64) (player.Strategy, error) {
	e := cfg.Entries[i]
	if e.Strategy != nil {
		return e.Strategy, nil
	}
	s, err := e.NewStrategy(source(seed, uint64(i), 1))
	if err != nil {
		return nil, fmt.Errorf("arena: entry %d: %w", i+1, err)
	}
	if s == nil {
		return nil, fmt.Errorf("arena: entry %d: NewStrategy returned no strategy", i+1)
	}
	return s, nil
}

// ask sends msg to the seat and returns its reply as an Out: in process
// through the agent handler's Deliver, else over HTTP within timeout.
func ask[Out any](ctx context.Context, s *seat, msg leaguesdk.Message, timeout time.Duration) (*Out, error) {
	if s.agent != nil {
		reply, err := s.deliver.Deliver(ctx, msg)
		if err != nil {
			return nil, err
		}
		out, ok := any(reply).(*Out)
		if !ok {
			return nil, fmt.Errorf("arena: %s answered %T", s.name, reply)
		}
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return leaguesdk.Call[Out](ctx, s.client, s.url, msg)
}

// played is the outcome of one match, for the tally.
type played struct {
	players [2]int // entry indexes, PLAYER_A first
	points  [2]int
	result  [2]player.Result
	// expected holds the points each player could expect from the
	// match's choices, before the draw, when known (see expecter); a
	// technical loss's are its points, which no draw decided.
	expected    [2]float64
	hasExpected bool
	// differ is 1 when the players' choices differed, 0 when they were
	// alike, -1 when a player made none.
	differ int8
}

// matchPlay is one match to play.
type matchPlay struct {
	cfg       Config
	seats     [2]*seat
	index     [2]int
	roundID   int
	matchID   string
	standings [2]leaguesdk.PlayerRecord
	rand      io.Reader
	expect    *expecter // nil: realised points only
	// conversation, stamp and stampAt are what envelope made last, under
	// envMu: the players of a match are asked for their moves at once.
	envMu        sync.Mutex
	conversation string
	stamp        string
	stampAt      time.Time
}

// envelope returns the envelope of a message of the match: the arena's
// sender, the match's conversation, the time of sending.
func (m *matchPlay) envelope(t leaguesdk.MessageType, now time.Time) leaguesdk.Envelope {
	m.envMu.Lock()
	defer m.envMu.Unlock()
	if m.conversation == "" {
		m.conversation = "arena-" + m.matchID
	}
	if stamp := now.Truncate(time.Second); !stamp.Equal(m.stampAt) || m.stamp == "" {
		m.stampAt, m.stamp = stamp, leaguesdk.FormatTime(stamp)
	}
	return leaguesdk.Envelope{Protocol: leaguesdk.Protocol, MessageType: t, Sender: sender, Timestamp: m.stamp,
		ConversationID: m.conversation}
}

// deadline returns the deadline of a move call sent at now, in whole
// seconds as the protocol sends them, never before now + MoveTimeout.
func (m *matchPlay) deadline(now time.Time) string {
	d := now.Add(m.cfg.MoveTimeout)
	if t := d.Truncate(time.Second); t.Before(d) {
		d = t.Add(time.Second)
	}
	return leaguesdk.FormatTime(d)
}

// play plays the match as a referee does: invitations, the game's move
// calls until it is over, GAME_OVER to both. A player that declines, fails
// to answer, or answers an illegal move suffers a technical loss.
func (m *matchPlay) play(ctx context.Context) (played, error) {
	ids := [2]string{m.seats[0].id, m.seats[1].id}
	now := time.Now()
	var failed [2]bool
	for i, s := range m.seats {
		role := leaguesdk.PlayerA
		if i == 1 {
			role = leaguesdk.PlayerB
		}
		inv := &leaguesdk.GameInvitation{Envelope: m.envelope(leaguesdk.MsgGameInvitation, now),
			LeagueID: leagueID, RoundID: leaguesdk.RoundID(m.roundID), MatchID: m.matchID, GameType: m.cfg.GameType,
			RoleInMatch: role, OpponentID: ids[1-i], PlayerID: ids[i]}
		ack, err := ask[leaguesdk.GameJoinAck](ctx, s, inv, m.cfg.JoinTimeout)
		if ctx.Err() != nil {
			return played{}, ctx.Err()
		}
		if err != nil || !ack.Accept {
			failed[i] = true
			m.cfg.Logger.Warn("arena: invitation failed", slog.String("entry", s.name), slog.String("match_id", m.matchID), slog.Any("error", err))
		}
	}
	choices := map[string]string{}
	var game rules.Game
	if !failed[0] && !failed[1] {
		var err error
		if game, err = m.cfg.Rules.NewGame(ids, m.rand); err != nil {
			return played{}, fmt.Errorf("arena: %s: %w", m.matchID, err)
		}
		for moves := 0; !game.Over() && !failed[0] && !failed[1]; moves++ {
			pending := game.Pending()
			if len(pending) == 0 || moves > 10000 {
				return played{}, fmt.Errorf("arena: %s: the game neither ends nor asks for a move", m.matchID)
			}
			answers, err := m.moves(ctx, ids, pending)
			if err != nil {
				return played{}, err
			}
			for k, mv := range pending {
				i, a := answers[k].player, answers[k]
				if a.err == nil {
					a.err = game.Apply(mv.PlayerID, a.choice)
				}
				if a.err != nil {
					failed[i] = true
					m.cfg.Logger.Warn("arena: move failed", slog.String("entry", m.seats[i].name), slog.String("match_id", m.matchID), slog.Any("error", a.err))
					break
				}
				choices[mv.PlayerID] = a.choice
			}
		}
	}
	res := m.result(ids, failed, game, choices)
	m.gameOver(ctx, res)
	p := m.tally(ids, res)
	p.differ = -1
	if failed[0] || failed[1] {
		p.expected, p.hasExpected = [2]float64{float64(p.points[0]), float64(p.points[1])}, m.expect != nil
		return p, nil
	}
	if ca, cb := choices[ids[0]], choices[ids[1]]; ca != "" && cb != "" {
		p.differ = 0
		if ca != cb {
			p.differ = 1
		}
	}
	if m.expect != nil {
		var err error
		if p.expected, err = m.expect.expected(ids, choices); err != nil {
			return played{}, fmt.Errorf("arena: %s: the expected points: %w", m.matchID, err)
		}
		p.hasExpected = true
	}
	return p, nil
}

// answer is a player's answer to a move call.
type answer struct {
	player int
	choice string
	err    error
}

// moves asks the players for the moves pending, at once when the game
// waits for both (each answers without seeing the other's move, as a
// referee asks them), and returns their answers in the same order.
func (m *matchPlay) moves(ctx context.Context, ids [2]string, pending []rules.MoveRequest) ([]answer, error) {
	out := make([]answer, len(pending))
	for k, mv := range pending {
		if out[k].player = slices.Index(ids[:], mv.PlayerID); out[k].player < 0 {
			return nil, fmt.Errorf("arena: %s: the game asks a move of %q, who is not playing", m.matchID, mv.PlayerID)
		}
	}
	ask := func(k int) { out[k].choice, out[k].err = m.move(ctx, out[k].player, pending[k]) }
	if len(pending) == 1 {
		ask(0)
	} else {
		var wg sync.WaitGroup
		for k := range pending[1:] {
			wg.Go(func() { ask(k + 1) })
		}
		ask(0)
		wg.Wait()
	}
	return out, ctx.Err()
}

// move asks player i for the move mv.
func (m *matchPlay) move(ctx context.Context, i int, mv rules.MoveRequest) (string, error) {
	s, now := m.seats[i], time.Now()
	if mv.MoveType == rules.MoveChooseParity {
		call := &leaguesdk.ChooseParityCall{Envelope: m.envelope(leaguesdk.MsgChooseParityCall, now),
			MatchID: m.matchID, PlayerID: s.id, GameType: m.cfg.GameType,
			Context: leaguesdk.ParityContext{OpponentID: m.seats[1-i].id, RoundID: leaguesdk.RoundID(m.roundID),
				YourStandings: m.standings[i]},
			Deadline: m.deadline(now)}
		r, err := ask[leaguesdk.ChooseParityResponse](ctx, s, call, m.cfg.MoveTimeout)
		s.timed(time.Since(now))
		if err != nil {
			return "", err
		}
		return string(r.ParityChoice), nil
	}
	call := &leaguesdk.GameMoveCall{Envelope: m.envelope(leaguesdk.MsgGameMoveCall, now),
		MatchID: m.matchID, PlayerID: s.id, GameType: m.cfg.GameType,
		MoveRequest: leaguesdk.MoveRequest{MoveType: mv.MoveType, ValidOptions: mv.ValidOptions, Context: mv.Context},
		Deadline:    m.deadline(now)}
	r, err := ask[leaguesdk.GameMoveResponse](ctx, s, call, m.cfg.MoveTimeout)
	s.timed(time.Since(now))
	if err != nil {
		return "", err
	}
	return r.MoveData.Choice, nil
}

// result is the game's result as GAME_OVER gives it.
func (m *matchPlay) result(ids [2]string, failed [2]bool, game rules.Game, choices map[string]string) leaguesdk.GameResult {
	parities := map[string]leaguesdk.Parity{}
	for id, c := range choices {
		if p := leaguesdk.Parity(c); p.Valid() {
			parities[id] = p
		}
	}
	if failed[0] || failed[1] {
		r := leaguesdk.GameResult{Status: leaguesdk.ResultTechnicalLoss, Choices: parities}
		switch {
		case failed[0] && failed[1]:
			r.Reason = "both players failed"
		case failed[0]:
			r.WinnerPlayerID, r.Reason = leaguesdk.OptionalString(ids[1]), ids[0]+" failed"
		default:
			r.WinnerPlayerID, r.Reason = leaguesdk.OptionalString(ids[0]), ids[1]+" failed"
		}
		return r
	}
	o := game.Outcome()
	return leaguesdk.GameResult{Status: o.Status, WinnerPlayerID: leaguesdk.OptionalString(o.Winner), DrawnNumber: o.DrawnNumber,
		NumberParity: o.NumberParity, Choices: parities, Reason: o.Reason}
}

// gameOver tells both players how the match ended. A player that does not
// acknowledge it keeps the result it has; the match counts all the same.
func (m *matchPlay) gameOver(ctx context.Context, res leaguesdk.GameResult) {
	now := time.Now()
	for _, s := range m.seats {
		over := &leaguesdk.GameOver{Envelope: m.envelope(leaguesdk.MsgGameOver, now), MatchID: m.matchID,
			GameType: m.cfg.GameType, GameResult: res}
		if _, err := ask[leaguesdk.Ack](ctx, s, over, m.cfg.GameOverTimeout); err != nil && ctx.Err() == nil {
			m.cfg.Logger.Warn("arena: GAME_OVER not acknowledged", slog.String("entry", s.name), slog.String("match_id", m.matchID), slog.Any("error", err))
		}
	}
}

// tally scores the result for each player.
func (m *matchPlay) tally(ids [2]string, res leaguesdk.GameResult) played {
	p := played{players: m.index}
	for i := range 2 {
		switch won := string(res.WinnerPlayerID) == ids[i]; {
		case res.Status == leaguesdk.ResultDraw:
			p.result[i] = player.Draw
		case won:
			p.result[i] = player.Win
		case res.Status == leaguesdk.ResultTechnicalLoss:
			p.result[i] = player.TechnicalLoss
		default:
			p.result[i] = player.Loss
		}
		p.points[i] = p.result[i].Points()
	}
	return p
}

// runArena plays cfg.Rounds round-robins in process (and over HTTP for URL
// entries), a round's matches in parallel.
func runArena(ctx context.Context, cfg Config, names []string, start time.Time) (*recorder, error) {
	seats, closeSeats, err := newSeats(cfg, names)
	if err != nil {
		return nil, err
	}
	defer closeSeats()
	n := len(seats)
	ids := make([]string, n)
	index := map[string]int{}
	for i, s := range seats {
		ids[i] = s.id
		index[s.id] = i
	}
	schedule := rules.RoundRobin(ids)
	rec := newRecorder(n)
	exp := newExpecter(cfg.Rules)
	total := cfg.Rounds * n * (n - 1) / 2
	roundID, matchNo := 0, uint64(0)
	for rep := range cfg.Rounds {
		for _, pairings := range schedule {
			roundID++
			records := rec.records()
			matches := make([]*matchPlay, len(pairings))
			for k, pr := range pairings {
				a, b := index[pr.PlayerA], index[pr.PlayerB]
				if rep%2 == 1 { // the other role every other time
					a, b = b, a
				}
				matchNo++
				matches[k] = &matchPlay{cfg: cfg, seats: [2]*seat{seats[a], seats[b]}, index: [2]int{a, b}, roundID: roundID,
					matchID: "R" + strconv.Itoa(roundID) + "M" + strconv.Itoa(k+1), standings: [2]leaguesdk.PlayerRecord{records[a], records[b]},
					rand: source(cfg.Seed, 1<<62, matchNo), expect: exp}
			}
			results, err := playAll(ctx, cfg.Parallel, matches)
			if err != nil {
				return nil, err
			}
			for _, p := range results {
				rec.add(p)
			}
			if err := broadcastStandings(ctx, cfg, seats, rec, roundID); err != nil {
				return nil, err
			}
			if cfg.Progress != nil {
				cfg.Progress(Progress{Played: rec.matches, Total: total, Elapsed: time.Since(start)})
			}
		}
	}
	for i, s := range seats {
		rec.measured(i, s, cfg.MoveTimeout)
	}
	return rec, nil
}

// playAll plays matches, up to parallel at once, and returns their
// outcomes in order.
func playAll(ctx context.Context, parallel int, matches []*matchPlay) ([]played, error) {
	out := make([]played, len(matches))
	errs := make([]error, len(matches))
	if parallel <= 1 || len(matches) == 1 {
		for k, m := range matches {
			if out[k], errs[k] = m.play(ctx); errs[k] != nil {
				return nil, errs[k]
			}
		}
		return out, nil
	}
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for k, m := range matches {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[k], errs[k] = m.play(ctx)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// broadcastStandings sends the table after a round, as a manager's
// LEAGUE_STANDINGS_UPDATE: to every URL entry, and to the Go entries whose
// strategy is a player.StandingsObserver (the others would only keep it).
func broadcastStandings(ctx context.Context, cfg Config, seats []*seat, rec *recorder, roundID int) error {
	var table []leaguesdk.StandingRow
	for _, s := range seats {
		if s.agent != nil && !s.observer {
			continue
		}
		if table == nil {
			table = rec.table(seats)
		}
		msg := &leaguesdk.LeagueStandingsUpdate{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueStandingsUpdate,
			leaguesdk.LeagueManagerSender, "", "arena-round-"+strconv.Itoa(roundID), time.Now()),
			LeagueID: leagueID, RoundID: leaguesdk.RoundID(roundID), Standings: table}
		if _, err := ask[leaguesdk.Ack](ctx, s, msg, cfg.GameOverTimeout); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			cfg.Logger.Warn("arena: standings not acknowledged", slog.String("entry", s.name), slog.Any("error", err))
		}
	}
	return nil
}
