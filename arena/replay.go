package arena

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
	"github.com/agentleague/league/rules"
)

// ReplayConfig configures a [Replay]: a strategy in the seat of a
// finished league, against its opponents' recorded choices and the
// recorded numbers.
type ReplayConfig struct {
	// DataRoot is the league's data root, where its referees kept their
	// transcripts (data/matches/<league_id>/<match_id>.json).
	DataRoot string
	// LeagueID is the league; default the only one in DataRoot.
	LeagueID string
	// Seat is the player id whose matches are replayed ("P03").
	Seat string
	// Entry is the strategy put in the seat: a Go strategy (Strategy or
	// NewStrategy; not a URL).
	Entry Entry
	// Seed seeds the entry's random sources. Default [DefaultSeed].
	Seed uint64
	// Rules are the league's game's; default the referee's rules of the
	// recorded game type. They must be [rules.DrawRules]: the replay
	// scores the seat's choice with the recorded number.
	Rules rules.Rules
	// MoveTimeout is the deadline of each move call. Default
	// [leaguesdk.DefaultChoiceTimeout].
	MoveTimeout time.Duration
	// Logger receives the player's logs. Default: discard.
	Logger *slog.Logger
}

// ReplayMatch is one of the seat's matches, as recorded and as replayed.
type ReplayMatch struct {
	MatchID  string `json:"match_id"`
	RoundID  int    `json:"round_id"`
	Opponent string `json:"opponent"`
	// Number is the recorded drawn number; OpponentChoice the opponent's
	// recorded choice.
	Number         int    `json:"drawn_number"`
	OpponentChoice string `json:"opponent_choice"`
	// RecordedChoice and RecordedPoints are the seat's, in the league.
	RecordedChoice string `json:"recorded_choice"`
	RecordedPoints int    `json:"recorded_points"`
	// Choice and Points are the replayed strategy's; Expected its
	// expected points (averaged over every number).
	Choice   string  `json:"choice"`
	Points   int     `json:"points"`
	Expected float64 `json:"expected_points"`
	// Kept is set for a match the replay could not play again (the
	// opponent made no choice: a technical loss), whose recorded result
	// stands.
	Kept bool `json:"kept,omitempty"`
}

// ReplayReport is what a [Replay] found.
type ReplayReport struct {
	LeagueID string `json:"league_id"`
	Seat     string `json:"seat"`
	Strategy string `json:"strategy"`
	// Players counts the league's players.
	Players int `json:"players"`
	// Points and Rank are the seat's with the strategy; RecordedPoints
	// and RecordedRank the seat's as recorded (ranked as the manager
	// ranks by default: points, wins, draws, then player id).
	Points         int `json:"points"`
	Rank           int `json:"rank"`
	RecordedPoints int `json:"recorded_points"`
	RecordedRank   int `json:"recorded_rank"`
	// ExpectedPerMatch and RecordedExpected are the expected points per
	// match of the strategy's choices and of the seat's recorded ones.
	ExpectedPerMatch Estimate `json:"expected_points_per_match"`
	RecordedExpected Estimate `json:"recorded_expected_points_per_match"`
	// Matches are the seat's matches in the order played.
	Matches []ReplayMatch `json:"matches"`
}

// String is the report in one line:
//
//	with history you would have had 61 points, rank 3 of 50 (the seat had 54, rank 9)
func (r *ReplayReport) String() string {
	return fmt.Sprintf("with %s you would have had %d points, rank %d of %d (the seat had %d, rank %d)",
		r.Strategy, r.Points, r.Rank, r.Players, r.RecordedPoints, r.RecordedRank)
}

// WriteJSON writes the report as indented JSON.
func (r *ReplayReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// recordedLeague is a finished league's transcripts.
type recordedLeague struct {
	id       string
	gameType string
	matches  []*referee.Transcript // with a result, by round then match id
}

// readLeague reads the transcripts of a league in dataRoot; leagueID
// empty: the only league there.
func readLeague(dataRoot, leagueID string) (*recordedLeague, error) {
	dir := filepath.Join(dataRoot, "data", "matches")
	if leagueID == "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("arena: no recorded league in %s: %w", dataRoot, err)
		}
		var ids []string
		for _, e := range entries {
			if e.IsDir() {
				ids = append(ids, e.Name())
			}
		}
		if len(ids) != 1 {
			return nil, fmt.Errorf("arena: %s holds %d leagues (%s): name one", dataRoot, len(ids), strings.Join(ids, ", "))
		}
		leagueID = ids[0]
	}
	files, err := filepath.Glob(filepath.Join(dir, leagueID, "*.json"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("arena: no transcript of league %s in %s", leagueID, dataRoot)
	}
	l := &recordedLeague{id: leagueID}
	for _, f := range files {
		var t referee.Transcript
		b, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(b, &t)
		}
		if err != nil {
			return nil, fmt.Errorf("arena: %s: %w", f, err)
		}
		if t.Result == nil || len(t.Players) != 2 {
			continue // aborted: no result counted
		}
		if l.gameType == "" {
			l.gameType = t.GameType
		}
		l.matches = append(l.matches, &t)
	}
	slices.SortFunc(l.matches, func(a, b *referee.Transcript) int {
		return cmp.Or(cmp.Compare(a.RoundID, b.RoundID), compareMatchIDs(a.MatchID, b.MatchID))
	})
	return l, nil
}

// compareMatchIDs orders R2M10 after R2M9.
func compareMatchIDs(a, b string) int {
	na, nb := trailingNumber(a), trailingNumber(b)
	return cmp.Or(cmp.Compare(na, nb), cmp.Compare(a, b))
}

func trailingNumber(s string) int {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return n
}

// roles returns the match's players, PLAYER_A first.
func roles(t *referee.Transcript) [2]string {
	ids := [2]string{t.Players[0].PlayerID, t.Players[1].PlayerID}
	if t.Players[0].Role == leaguesdk.PlayerB {
		ids[0], ids[1] = ids[1], ids[0]
	}
	return ids
}

// record is the manager's record of a transcript's result.
func record(t *referee.Transcript) manager.MatchRecord {
	ids := roles(t)
	r := t.Result
	choices := map[string]leaguesdk.Parity{}
	for id, c := range r.Choices {
		choices[id] = leaguesdk.Parity(c)
	}
	return manager.MatchRecord{MatchID: t.MatchID, RoundID: t.RoundID, PlayerA: ids[0], PlayerB: ids[1],
		Result: leaguesdk.MatchResult{Winner: r.Winner, Score: r.Score, Status: r.Status,
			Details: leaguesdk.MatchDetails{DrawnNumber: r.DrawnNumber, Choices: choices}}}
}

// standing returns id's points and rank in the league's results.
func standing(players []manager.Entrant, results []manager.MatchRecord, id string) (points, rank int) {
	for _, row := range manager.ComputeStandings(players, results, nil) {
		if row.PlayerID == id {
			return row.Points, row.Rank
		}
	}
	return 0, 0
}

// errNoChance is the random source of a game the replay only asks for
// its first moves: the number is the recorded one.
type errNoChance struct{}

func (errNoChance) Read([]byte) (int, error) {
	return 0, errors.New("arena: a replayed game draws no number")
}

// Replay puts a strategy in a finished league's seat: it plays the seat's
// matches again in their order, against the opponents' recorded choices,
// scores each with the recorded number, and ranks the league again. In a
// round-robin each pair meets once, so an opponent's choice in a match
// did not depend on the seat's choices against it; it does not hold when
// pairs met more than once, or for opponents that read the standings (the
// seat's points change), or when the number depended on the choices.
func Replay(ctx context.Context, rc ReplayConfig) (*ReplayReport, error) {
	if rc.Entry.URL != "" || (rc.Entry.Strategy == nil) == (rc.Entry.NewStrategy == nil) {
		return nil, &ConfigError{Problems: []string{"a replay needs one Go strategy (Strategy or NewStrategy) in the seat"}}
	}
	if rc.Seat == "" {
		return nil, &ConfigError{Problems: []string{"a replay needs the seat (a player id) to put the strategy in"}}
	}
	l, err := readLeague(rc.DataRoot, rc.LeagueID)
	if err != nil {
		return nil, err
	}
	cfg, err := Config{Entries: []Entry{rc.Entry, rc.Entry}, Rounds: 1, Seed: rc.Seed, GameType: l.gameType,
		Rules: rc.Rules, MoveTimeout: rc.MoveTimeout, Logger: rc.Logger}.withDefaults()
	if err != nil {
		return nil, err
	}
	draw, ok := cfg.Rules.(rules.DrawRules)
	if !ok {
		return nil, &ConfigError{Problems: []string{fmt.Sprintf("the rules of %s do not say how a recorded number decides a match (rules.DrawRules): it cannot be replayed", l.gameType)}}
	}
	exp := newExpecter(draw)
	name := cfg.names()[0]
	var players []manager.Entrant
	seen := map[string]bool{}
	var results []manager.MatchRecord
	var mine []int // indexes in results of the seat's matches
	for _, t := range l.matches {
		for _, id := range roles(t) {
			if !seen[id] {
				seen[id] = true
				players = append(players, manager.Entrant{PlayerID: id})
			}
		}
		if r := roles(t); r[0] == rc.Seat || r[1] == rc.Seat {
			mine = append(mine, len(results))
		}
		results = append(results, record(t))
	}
	if len(mine) == 0 {
		ids := make([]string, len(players))
		for i, p := range players {
			ids[i] = p.PlayerID
		}
		slices.Sort(ids)
		return nil, &ConfigError{Problems: []string{fmt.Sprintf("%s played no match in league %s (its players: %s)", rc.Seat, l.id, strings.Join(ids, ", "))}}
	}
	rep := &ReplayReport{LeagueID: l.id, Seat: rc.Seat, Strategy: name, Players: len(players)}
	rep.RecordedPoints, rep.RecordedRank = standing(players, results, rc.Seat)

	// The seat: a player of this process answering as the seat's id.
	strategy, err := entryStrategy(cfg, 0)
	if err != nil {
		return nil, err
	}
	agent, err := player.New(player.Config{Name: name, ID: rc.Seat, NoRegister: true, Strategy: strategy,
		Rand: source(cmp.Or(rc.Entry.Seed, cfg.Seed), 0, 2), NoAgentLog: true, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("arena: %w", err)
	}
	defer agent.Close()
	d, ok := agent.Handler().(deliverer)
	if !ok {
		return nil, errors.New("arena: the player's handler takes no messages in process")
	}
	me := &seat{id: rc.Seat, name: name, agent: agent, deliver: d}
	var record leaguesdk.PlayerRecord
	expected, recordedExp := moments{low: 0, top: 3}, moments{low: 0, top: 3}
	for _, k := range mine {
		t := l.matches[k]
		ids := roles(t)
		i := slices.Index(ids[:], rc.Seat)
		opp := ids[1-i]
		res := t.Result
		rm := ReplayMatch{MatchID: t.MatchID, RoundID: t.RoundID, Opponent: opp, Number: res.DrawnNumber,
			OpponentChoice: res.Choices[opp], RecordedChoice: res.Choices[rc.Seat], RecordedPoints: res.Score[rc.Seat]}
		if rm.RecordedChoice != "" && rm.OpponentChoice != "" {
			if e, err := exp.expected(ids, res.Choices); err == nil {
				recordedExp.add(e[i])
			}
		}
		if rm.OpponentChoice == "" || res.DrawnNumber == 0 {
			// No choice of the opponent to play against: the recorded
			// result stands.
			rm.Kept, rm.Choice, rm.Points, rm.Expected = true, rm.RecordedChoice, rm.RecordedPoints, float64(rm.RecordedPoints)
			expected.add(rm.Expected)
			rep.Matches = append(rep.Matches, rm)
			continue
		}
		m := &matchPlay{cfg: cfg, seats: [2]*seat{me, {id: opp}}, index: [2]int{0, 1}, roundID: t.RoundID, matchID: t.MatchID,
			standings: [2]leaguesdk.PlayerRecord{record}}
		choice, err := m.replayMove(ctx, draw, l.id, ids, i)
		if err != nil {
			return nil, err
		}
		choices := map[string]string{rc.Seat: choice, opp: rm.OpponentChoice}
		o, err := draw.OutcomeFor(ids, choices, res.DrawnNumber)
		if err != nil {
			return nil, fmt.Errorf("arena: %s: %w", t.MatchID, err)
		}
		e, err := exp.expected(ids, choices)
		if err != nil {
			return nil, fmt.Errorf("arena: %s: %w", t.MatchID, err)
		}
		parities := map[string]leaguesdk.Parity{rc.Seat: leaguesdk.Parity(choice), opp: leaguesdk.Parity(rm.OpponentChoice)}
		gr := leaguesdk.GameResult{Status: o.Status, WinnerPlayerID: leaguesdk.OptionalString(o.Winner), DrawnNumber: o.DrawnNumber,
			NumberParity: o.NumberParity, Choices: parities, Reason: o.Reason}
		over := &leaguesdk.GameOver{Envelope: m.envelope(leaguesdk.MsgGameOver, time.Now()), MatchID: t.MatchID, GameType: cfg.GameType, GameResult: gr}
		if _, err := ask[leaguesdk.Ack](ctx, me, over, cfg.GameOverTimeout); err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		points := outcomeResult(o, rc.Seat).Points()
		switch points {
		case 3:
			record.Wins++
		case 1:
			record.Draws++
		default:
			record.Losses++
		}
		rm.Choice, rm.Points, rm.Expected = choice, points, e[i]
		expected.add(e[i])
		rep.Matches = append(rep.Matches, rm)
		// The league's record of the match, with the replayed result.
		score := map[string]int{ids[0]: outcomeResult(o, ids[0]).Points(), ids[1]: outcomeResult(o, ids[1]).Points()}
		results[k].Result = leaguesdk.MatchResult{Winner: leaguesdk.OptionalString(o.Winner), Score: score, Status: o.Status,
			Details: leaguesdk.MatchDetails{DrawnNumber: o.DrawnNumber, Choices: parities}}
	}
	rep.Points, rep.Rank = standing(players, results, rc.Seat)
	rep.ExpectedPerMatch, rep.RecordedExpected = expected.estimate(), recordedExp.estimate()
	return rep, nil
}

// replayMove invites the seat (player i of ids) to the match and asks it
// for its move, as the rules' game asks it first.
func (m *matchPlay) replayMove(ctx context.Context, draw rules.DrawRules, league string, ids [2]string, i int) (string, error) {
	role := leaguesdk.PlayerA
	if i == 1 {
		role = leaguesdk.PlayerB
	}
	s := m.seats[0]
	inv := &leaguesdk.GameInvitation{Envelope: m.envelope(leaguesdk.MsgGameInvitation, time.Now()),
		LeagueID: league, RoundID: leaguesdk.RoundID(m.roundID), MatchID: m.matchID, GameType: m.cfg.GameType,
		RoleInMatch: role, OpponentID: ids[1-i], PlayerID: ids[i]}
	if _, err := ask[leaguesdk.GameJoinAck](ctx, s, inv, m.cfg.JoinTimeout); err != nil {
		return "", fmt.Errorf("arena: %s: the invitation: %w", m.matchID, err)
	}
	game, err := draw.NewGame(ids, errNoChance{})
	if err != nil {
		return "", fmt.Errorf("arena: %s: %w", m.matchID, err)
	}
	k := slices.IndexFunc(game.Pending(), func(mv rules.MoveRequest) bool { return mv.PlayerID == ids[i] })
	if k < 0 {
		return "", fmt.Errorf("arena: %s: the game asks no move of %s", m.matchID, ids[i])
	}
	return m.move(ctx, 0, game.Pending()[k])
}
