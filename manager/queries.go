package manager

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"

	"github.com/agentleague/league/internal/atomicfile"
	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// handleQuery serves league_query. GET_NEXT_MATCH and GET_PLAYER_STATS are
// about the player that asks unless query_params.player_id names another;
// GET_SCHEDULE gives the whole league's schedule, or with
// query_params.player_id that player's matches only. The queries whose
// answers grow with the league go through the gate (bigqueries.go), and
// no answer is encoded under the lock the league's own calls take.
func (m *Manager) handleQuery(_ context.Context, _ *leaguesdk.Request, q *leaguesdk.LeagueQuery) (*leaguesdk.LeagueQueryResponse, error) {
	_, senderID := leaguesdk.SplitSender(q.Sender)
	token := m.replyToken(&q.Envelope)
	resp := &leaguesdk.LeagueQueryResponse{
		Envelope:  leaguesdk.NewEnvelope(leaguesdk.MsgLeagueQueryResponse, leaguesdk.LeagueManagerSender, token, q.ConversationID, m.cfg.Now()),
		QueryType: q.QueryType,
	}
	fail := func(code leaguesdk.Code, format string, args ...any) (*leaguesdk.LeagueQueryResponse, error) {
		resp.Error = &leaguesdk.ErrorInfo{ErrorCode: code, ErrorDescription: fmt.Sprintf(format, args...)}
		return resp, nil
	}
	if q.LeagueID != "" && q.LeagueID != m.cfg.LeagueID {
		return fail(leaguesdk.CodeLeagueNotFound, "this manager runs league %s, not %s", m.cfg.LeagueID, q.LeagueID)
	}
	named := q.QueryParams != nil && q.QueryParams.PlayerID != ""
	playerID := senderID
	if named {
		playerID = q.QueryParams.PlayerID
	}
	if q.QueryType == leaguesdk.QueryStandings || q.QueryType == leaguesdk.QuerySchedule && !named {
		whole := q.QueryType == leaguesdk.QuerySchedule
		leave, err := m.gate.enter(q.Sender, whole)
		if err != nil {
			return nil, err
		}
		size := 0
		defer func() { leave(size) }()
		if whole {
			b, err := m.wholeSchedule()
			if err != nil {
				return nil, err
			}
			size = len(b)
			resp.Success, resp.Data = true, b
			return resp, nil
		}
	}
	var data any
	m.mu.Lock()
	switch q.QueryType {
	case leaguesdk.QueryStandings:
		data = leaguesdk.StandingsData{LeagueID: m.cfg.LeagueID, RoundID: leaguesdk.RoundID(m.roundsCompleted),
			Standings: m.standingsWithStatesLocked()}
	case leaguesdk.QuerySchedule:
		if m.playerByID[playerID] == nil {
			m.mu.Unlock()
			return fail(leaguesdk.CodePlayerNotRegistered, "%q is not a player of league %s", playerID, m.cfg.LeagueID)
		}
		data = leaguesdk.ScheduleData{LeagueID: m.cfg.LeagueID, Matches: m.playerScheduleLocked(playerID)}
	case leaguesdk.QueryNextMatch:
		if m.playerByID[playerID] == nil {
			m.mu.Unlock()
			return fail(leaguesdk.CodePlayerNotRegistered, "%q is not a player of league %s", playerID, m.cfg.LeagueID)
		}
		data = leaguesdk.NextMatchData{NextMatch: m.nextMatchLocked(playerID)}
	case leaguesdk.QueryPlayerStats:
		p := m.playerByID[playerID]
		if p == nil {
			m.mu.Unlock()
			return fail(leaguesdk.CodePlayerNotRegistered, "%q is not a player of league %s", playerID, m.cfg.LeagueID)
		}
		stats := leaguesdk.PlayerStatsData{PlayerID: p.ID, DisplayName: p.DisplayName, State: string(m.life.State(p.ID))}
		for _, row := range m.standingsLocked() {
			if row.PlayerID == p.ID {
				stats.Rank = row.Rank
			}
		}
		t := m.tallyLocked(p.ID)
		stats.Played, stats.Wins, stats.Draws, stats.Losses = t.played, t.wins, t.draws, t.losses
		stats.TechnicalLosses, stats.Points = t.technical, t.points
		data = stats
	default:
		m.mu.Unlock()
		return fail(leaguesdk.CodeMissingRequiredField, "unknown query_type %q: use GET_STANDINGS, GET_SCHEDULE, GET_NEXT_MATCH or GET_PLAYER_STATS", q.QueryType)
	}
	m.mu.Unlock()
	b, err := wirejson.Marshal(data)
	if err != nil {
		return nil, err
	}
	resp.Success, resp.Data = true, b
	return resp, nil
}

// handleGetStandings serves get_standings: the standings table as state.
// It goes through the gate as GET_STANDINGS does.
func (m *Manager) handleGetStandings(_ context.Context, _ *leaguesdk.Request, q *leaguesdk.StateQuery) (*leaguesdk.StateResponse, error) {
	leave, err := m.gate.enter(q.Sender, false)
	if err != nil {
		return nil, err
	}
	defer leave(0)
	m.mu.Lock()
	data := leaguesdk.StandingsData{LeagueID: m.cfg.LeagueID, RoundID: leaguesdk.RoundID(m.roundsCompleted),
		Standings: m.standingsWithStatesLocked()}
	m.mu.Unlock()
	b, err := wirejson.Marshal(data)
	if err != nil {
		return nil, err
	}
	return &leaguesdk.StateResponse{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStateResponse, leaguesdk.LeagueManagerSender, m.replyToken(&q.Envelope), q.ConversationID, m.cfg.Now()),
		State:    b}, nil
}

// entryLocked returns mt as the schedule shows it. m.mu must be held.
func (m *Manager) entryLocked(mt *match) leaguesdk.ScheduleEntry {
	e := leaguesdk.ScheduleEntry{MatchID: mt.MatchID, RoundID: leaguesdk.RoundID(mt.RoundID), GameType: m.cfg.GameType,
		PlayerAID: mt.PlayerA, PlayerBID: mt.PlayerB}
	e.RefereeID, e.Status = mt.shown()
	if mt.record != nil {
		res := mt.record.full(mt).Result
		e.Result = &res
	}
	if ref := m.refByID[e.RefereeID]; ref != nil {
		e.RefereeEndpoint = ref.Endpoint
	}
	return e
}

// scheduleLocked returns every match with its status. m.mu must be held.
func (m *Manager) scheduleLocked() []leaguesdk.ScheduleEntry {
	out := make([]leaguesdk.ScheduleEntry, 0, m.matchCount())
	for _, round := range m.rounds {
		for _, mt := range round {
			out = append(out, m.entryLocked(mt))
		}
	}
	return out
}

// nextMatchLocked returns the first match of id that has no result yet.
func (m *Manager) nextMatchLocked(id string) *leaguesdk.NextMatch {
	for _, round := range m.rounds {
		for _, mt := range round {
			if mt.record != nil || (mt.PlayerA != id && mt.PlayerB != id) {
				continue
			}
			e := m.entryLocked(mt)
			n := &leaguesdk.NextMatch{MatchID: mt.MatchID, RoundID: leaguesdk.RoundID(mt.RoundID), OpponentID: mt.PlayerB,
				Role: leaguesdk.PlayerA, RefereeEndpoint: e.RefereeEndpoint}
			if mt.PlayerB == id {
				n.OpponentID, n.Role = mt.PlayerA, leaguesdk.PlayerB
			}
			return n
		}
	}
	return nil
}

// Snapshot is the league's state as the dashboard shows it (GET /api/state).
type Snapshot struct {
	LeagueID     string                    `json:"league_id"`
	GameType     string                    `json:"game_type"`
	Status       LeagueStatus              `json:"status"`
	CurrentRound int                       `json:"current_round"`
	TotalRounds  int                       `json:"total_rounds"`
	Referees     []RefereeInfo             `json:"referees"`
	Players      []PlayerInfo              `json:"players"`
	Matches      []leaguesdk.ScheduleEntry `json:"matches"`
	// MatchesRound, when not 0, says that Matches holds the matches of
	// that round only (GET /api/state of a league of more than
	// [DashboardAllMatches] matches, or ?round=N).
	MatchesRound int `json:"matches_round,omitempty"`
	// Totals counts the league's matches.
	Totals    MatchTotals             `json:"totals"`
	Standings []leaguesdk.StandingRow `json:"standings"`
	Champion  *leaguesdk.Champion     `json:"champion"`
	UpdatedAt string                  `json:"updated_at"`
	// Page, when not nil, says that Standings, Players and Matches hold
	// a page of their lists (GET /api/state?limit=N), and how long the
	// lists are.
	Page *StatePage `json:"page,omitempty"`
}

// RefereeInfo is a registered referee in a [Snapshot].
type RefereeInfo struct {
	RefereeID            string `json:"referee_id"`
	DisplayName          string `json:"display_name"`
	Endpoint             string `json:"endpoint"`
	MaxConcurrentMatches int    `json:"max_concurrent_matches"`
	ActiveMatches        int    `json:"active_matches"`
	// State is the referee's lifecycle state.
	State AgentState `json:"state"`
	// Serving reports whether, as far as the manager knows, the referee
	// still serves: REGISTERED or ACTIVE, or SHUTDOWN by the league's end
	// (every agent is) while it answered, not by failures.
	Serving bool `json:"serving"`
}

// PlayerInfo is a registered player in a [Snapshot].
type PlayerInfo struct {
	PlayerID    string `json:"player_id"`
	DisplayName string `json:"display_name"`
	Endpoint    string `json:"endpoint"`
	// State is the player's lifecycle state.
	State AgentState `json:"state"`
	// Serving reports whether, as far as the manager knows, the player
	// still serves: REGISTERED or ACTIVE, or SHUTDOWN by the league's end
	// (every agent is) while it answered, not by failures.
	Serving bool `json:"serving"`
}

// MatchTotals counts the matches of a league.
type MatchTotals struct {
	// Scheduled is the number of matches of the schedule.
	Scheduled int `json:"scheduled"`
	// Finished have a recorded result; Running are with a referee now.
	Finished int `json:"finished"`
	Running  int `json:"running"`
	// PerSecond is the matches finished per second since the league
	// started (until it completed); 0 before it started.
	PerSecond float64 `json:"per_second"`
	// SecondsLeft is how long the matches not finished would take at
	// PerSecond; 0 when none is left or nothing finished yet.
	SecondsLeft float64 `json:"seconds_left"`
}

// DashboardAllMatches is the largest schedule GET /api/state returns whole
// by default; a larger league's state carries the matches of one round
// (the current one, or ?round=N), and ?round=all asks for every match.
const DashboardAllMatches = 300

// Snapshot returns the league's state: status, rounds, agents, every match,
// standings and champion. It holds no tokens.
func (m *Manager) Snapshot() Snapshot { return m.snapshot(0) }

// snapshot returns the league's state with the matches of round only, or
// of every round for round 0.
func (m *Manager) snapshot(round int) Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Snapshot{LeagueID: m.cfg.LeagueID, GameType: m.cfg.GameType, Status: m.status, CurrentRound: m.currentRound,
		TotalRounds: len(m.rounds), Referees: make([]RefereeInfo, 0, len(m.referees)), Players: make([]PlayerInfo, 0, len(m.players)),
		Standings: m.standingsWithStatesLocked(), UpdatedAt: leaguesdk.FormatTime(m.updatedAt),
		Totals: MatchTotals{Finished: len(m.records)}}
	if m.status == StatusCompleted {
		s.CurrentRound = len(m.rounds)
	}
	for _, r := range m.rounds {
		s.Totals.Scheduled += len(r)
	}
	if m.startedAt != nil {
		end := m.cfg.Now()
		if m.completedAt != nil {
			end = *m.completedAt
		}
		if elapsed := end.Sub(*m.startedAt).Seconds(); elapsed > 0 && s.Totals.Finished > 0 {
			s.Totals.PerSecond = float64(s.Totals.Finished) / elapsed
			s.Totals.SecondsLeft = float64(s.Totals.Scheduled-s.Totals.Finished) / s.Totals.PerSecond
		}
	}
	if round == 0 {
		s.Matches = m.scheduleLocked()
	} else {
		s.MatchesRound = round
		s.Matches = []leaguesdk.ScheduleEntry{}
		if round <= len(m.rounds) {
			for _, mt := range m.rounds[round-1] {
				s.Matches = append(s.Matches, m.entryLocked(mt))
			}
		}
	}
	for _, r := range m.referees {
		s.Totals.Running += r.active
		s.Referees = append(s.Referees, RefereeInfo{RefereeID: r.ID, DisplayName: r.DisplayName, Endpoint: r.Endpoint,
			MaxConcurrentMatches: r.MaxConcurrentMatches, ActiveMatches: r.active, State: m.life.State(r.ID), Serving: m.life.Serving(r.ID)})
	}
	for _, p := range m.players {
		s.Players = append(s.Players, PlayerInfo{PlayerID: p.ID, DisplayName: p.DisplayName, Endpoint: p.Endpoint, State: m.life.State(p.ID), Serving: m.life.Serving(p.ID)})
	}
	if m.champion != nil {
		c := *m.champion
		s.Champion = &c
	}
	return s
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := wirejson.Marshal(v)
	if err != nil {
		http.Error(w, "state does not encode", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// writeConfigFiles writes config/system.json and config/leagues/<id>.json.
func (m *Manager) writeConfigFiles() error {
	now := m.cfg.Now()
	if err := m.store.saveSystem(now); err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	var f leagueConfigFile
	f.SchemaVersion, f.LastUpdated = SchemaVersion, leaguesdk.FormatTime(now)
	f.LeagueID, f.DisplayName, f.GameType = m.cfg.LeagueID, m.cfg.LeagueID, m.cfg.GameType
	f.Scoring.WinPoints, f.Scoring.DrawPoints, f.Scoring.LossPoints = WinPoints, DrawPoints, LossPoints
	f.Scoring.TechnicalLossPoints, f.Scoring.Tiebreakers = LossPoints, m.cfg.Tiebreakers
	f.Participants.MinPlayers, f.Participants.MaxPlayers = max(m.cfg.MinPlayers, 2), m.cfg.MaxPlayers
	f.Schedule.Format = "round_robin"
	f.Schedule.RegistrationWindowSec = max(m.cfg.RegistrationWindow.Seconds(), 0)
	f.Schedule.ReportTimeoutSec = m.cfg.ReportTimeout.Seconds()
	m.mu.Lock()
	f.Status, f.Endpoint = m.status, m.endpoint
	f.Participants.Players, f.Participants.Referees = len(m.players), len(m.referees)
	m.mu.Unlock()
	if err := atomicfile.WriteJSON(m.store.leagueConfigPath(), f); err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	return nil
}

// The standings and rounds files are views of what the league keeps
// durably (state.json and the journals), each as large as the league. They
// are rewritten in the background by viewWriter after results and rounds,
// without an fsync, coalescing what happens meanwhile, and spaced so that
// writing them takes at most about a twentieth of the league's time; they
// are written durably when the league completes, when Run returns, and
// when a resumed league starts, which rebuilds what a crash left behind.
const (
	viewStandings = 1 << iota
	viewRounds
)

// viewSpacing is how much longer than its last write a view waits before
// it is written again. The pause is not capped: the rounds file of a
// 1000-player league ends near 100 MB, and a cap on the pause would let
// its rewrites take a growing share of the league's time; the views of a
// big league lag further behind instead, by about twenty times the time of
// one write.
const viewSpacing = 20

// markViews asks viewWriter for new views.
func (m *Manager) markViews(which int) {
	m.mu.Lock()
	m.viewsDirty |= which
	m.mu.Unlock()
	select {
	case m.viewsWake <- struct{}{}:
	default:
	}
}

// viewWriter rewrites the views that markViews asked for until ctx ends.
func (m *Manager) viewWriter(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.viewsWake:
		}
		m.mu.Lock()
		which := m.viewsDirty
		m.viewsDirty = 0
		m.mu.Unlock()
		start := m.clock().Now()
		m.writeViews(which, false)
		if m.sleep(ctx, viewSpacing*m.clock().Now().Sub(start)) != nil {
			return
		}
	}
}

// writeViews writes the views in which: durably, or as a rename without an
// fsync.
func (m *Manager) writeViews(which int, durable bool) {
	if which&viewStandings != 0 {
		m.writeStandings(durable)
	}
	if which&viewRounds != 0 {
		m.writeRounds(durable)
	}
}

// writeView writes one view file.
func (m *Manager) writeView(path string, v any, durable bool) error {
	data, err := wirejson.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if durable {
		return atomicfile.WriteFile(path, data, 0o644)
	}
	return atomicfile.Replace(path, data, 0o644)
}

// writeStandings writes data/leagues/<id>/standings.json as the results
// now stand.
func (m *Manager) writeStandings(durable bool) {
	m.standingsMu.Lock()
	defer m.standingsMu.Unlock()
	m.mu.Lock()
	m.standingsVersion++
	f := standingsFile{SchemaVersion: SchemaVersion, LastUpdated: leaguesdk.FormatTime(m.cfg.Now()), LeagueID: m.cfg.LeagueID,
		Version: m.standingsVersion, RoundsCompleted: m.roundsCompleted, MatchesRecorded: len(m.records),
		Standings: append([]leaguesdk.StandingRow{}, m.standingsLocked()...)}
	m.mu.Unlock()
	if err := m.writeView(m.store.standingsPath(), f, durable); err != nil {
		m.log.Warn("cannot write the standings file", slog.String("error", err.Error()))
	}
}

// writeRounds writes data/leagues/<id>/rounds.json. The file holds every
// match of the rounds started (n²/2 at the end of a league: tens of
// megabytes at 1000 players), so it is streamed a round at a time, each
// round read under the lock on its own, rather than built in memory
// whole: the document is the same, indented as json.MarshalIndent writes it.
func (m *Manager) writeRounds(durable bool) {
	m.roundsMu.Lock()
	defer m.roundsMu.Unlock()
	m.mu.Lock()
	head := roundsFile{SchemaVersion: SchemaVersion, LastUpdated: leaguesdk.FormatTime(m.cfg.Now()), LeagueID: m.cfg.LeagueID,
		TotalRounds: len(m.rounds), Rounds: []roundRecord{}}
	n := len(m.rounds)
	m.mu.Unlock()
	var matches []roundMatch // each round's matches in the same slice, encoded before the next round's
	err := atomicfile.Stream(m.store.roundsPath(), 0o644, durable, func(w io.Writer) error {
		return writeRoundsFile(w, head, n, func(i int) roundRecord {
			m.mu.Lock()
			defer m.mu.Unlock()
			rr := m.roundRecordLocked(i, matches[:0])
			if rr.Matches != nil {
				matches = rr.Matches
			}
			return rr
		})
	})
	if err != nil {
		m.log.Warn("cannot write the rounds file", slog.String("error", err.Error()))
	}
}

// writeRoundsFile writes head with the n rounds round(0), round(1)… as
// its rounds, as json.MarshalIndent(file, "", "  ") writes the whole. The
// rounds are encoded one after another through the same two buffers.
func writeRoundsFile(w io.Writer, head roundsFile, n int, round func(i int) roundRecord) error {
	hb, err := wirejson.MarshalIndent(head, "", "  ")
	if err != nil {
		return err
	}
	if n == 0 {
		_, err := w.Write(append(hb, '\n'))
		return err
	}
	hb = bytes.TrimSuffix(hb, []byte("[]\n}")) // head's rounds are empty: "rounds": []
	if _, err := w.Write(append(hb, '[')); err != nil {
		return err
	}
	var out bytes.Buffer
	var scratch []byte
	for i := range n {
		out.Reset()
		sep := ",\n    "
		if i == 0 {
			sep = "\n    "
		}
		out.WriteString(sep)
		if scratch, err = wirejson.AppendIndent(&out, scratch, round(i), "    ", "  "); err != nil {
			return err
		}
		if _, err := w.Write(out.Bytes()); err != nil {
			return err
		}
	}
	_, err = io.WriteString(w, "\n  ]\n}\n")
	return err
}

// roundRecordLocked returns round i+1 as rounds.json shows it, its
// matches appended to matches (empty). Results are read from their compact
// form, not rebuilt. m.mu must be held.
func (m *Manager) roundRecordLocked(i int, matches []roundMatch) roundRecord {
	round := m.rounds[i]
	rr := roundRecord{RoundID: i + 1, Status: roundPending, MatchCount: len(round)}
	if t := m.roundTimes[i]; t.StartedAt != nil {
		s := leaguesdk.FormatTime(*t.StartedAt)
		rr.StartedAt, rr.Status = &s, roundRunning
	}
	if t := m.roundTimes[i]; t.CompletedAt != nil {
		s := leaguesdk.FormatTime(*t.CompletedAt)
		rr.CompletedAt, rr.Status = &s, roundCompleted
		summary := m.roundSummaryLocked(i + 1)
		rr.Summary = &summary
	}
	if rr.StartedAt == nil {
		return rr
	}
	rr.Matches = slices.Grow(matches, len(round))
	for _, mt := range round {
		rm := roundMatch{MatchID: mt.MatchID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB}
		rm.RefereeID, rm.Status = mt.shown()
		if r := mt.record; r != nil {
			rm.Result = r.status.Value()
			switch r.flags.winner() {
			case 1:
				rm.Winner = mt.PlayerA
			case 2:
				rm.Winner = mt.PlayerB
			}
		}
		rr.Matches = append(rr.Matches, rm)
	}
	return rr
}

// Progress counts where the league stands, cheaply enough to be read often
// (a metrics scrape): no schedule, no standings.
type Progress struct {
	// Status is the league's status ([StatusRegistering], [StatusRunning],
	// [StatusCompleted]).
	Status LeagueStatus
	// Players and Referees are the numbers registered.
	Players, Referees int
	// CurrentRound is the round being played (the last one once the
	// league is completed); TotalRounds is the number of rounds.
	CurrentRound, TotalRounds int
	// Matches is the number of matches scheduled; Finished of them have a
	// recorded result, and Running are with a referee now.
	Matches, Finished, Running int
	// Waiting is the number of the current round's matches that wait for a
	// referee: neither finished nor with a referee. A round's matches
	// beyond the referees' capacity wait here, as do those whose referee
	// failed, until a referee has room.
	Waiting int
	// Capacity is the number of matches the referees that can take one now
	// may run at once (the sum of their max_concurrent_matches), and
	// FreeCapacity how many more they can take: referees that play
	// another game, are SUSPENDED or SHUTDOWN, or are passed over after a
	// failed call count for neither.
	Capacity, FreeCapacity int
	// PlayerStates and RefereeStates count the registered players and
	// referees by lifecycle state.
	PlayerStates, RefereeStates map[AgentState]int
}

// Progress returns where the league stands.
func (m *Manager) Progress() Progress {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := Progress{Status: m.status, Players: len(m.players), Referees: len(m.referees),
		CurrentRound: m.currentRound, TotalRounds: len(m.rounds), Finished: len(m.records)}
	if m.status == StatusCompleted {
		p.CurrentRound = len(m.rounds)
	}
	now := m.cfg.Now()
	p.PlayerStates, p.RefereeStates = map[AgentState]int{}, map[AgentState]int{}
	for _, pl := range m.players {
		p.PlayerStates[m.life.State(pl.ID)]++
	}
	for _, r := range m.referees {
		p.Running += r.active
		state := m.life.State(r.ID)
		p.RefereeStates[state]++
		if m.supports(r.GameTypes) && state != StateShutdown && state != StateSuspended && !now.Before(r.downUntil) {
			p.Capacity += r.MaxConcurrentMatches
			p.FreeCapacity += max(r.MaxConcurrentMatches-r.active, 0)
		}
	}
	for _, round := range m.rounds {
		p.Matches += len(round)
	}
	if m.status == StatusRunning && m.currentRound >= 1 && m.currentRound <= len(m.rounds) {
		for _, mt := range m.rounds[m.currentRound-1] {
			if mt.status == leaguesdk.MatchPending {
				p.Waiting++
			}
		}
	}
	return p
}
