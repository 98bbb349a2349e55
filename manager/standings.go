package manager

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// Points of the league's scoring table: a win earns 3, a draw 1, a loss 0.
// A technical loss scores like a loss for the offender and like a win for
// its opponent; when both players failed, both score 0 and the match still
// counts as played.
const (
	WinPoints  = 3
	DrawPoints = 1
	LossPoints = 0
)

// Tiebreaker is one criterion of the standings order. Rows are ordered by
// the first tiebreaker, rows equal on it by the second, and so on; player_id
// (ascending) always decides last, so every rank is unique.
type Tiebreaker string

// The tiebreakers a league can be configured with.
const (
	// TiebreakPoints orders by points, most first.
	TiebreakPoints Tiebreaker = "points"
	// TiebreakWins orders by wins, most first.
	TiebreakWins Tiebreaker = "wins"
	// TiebreakDraws orders by draws, most first.
	TiebreakDraws Tiebreaker = "draws"
	// TiebreakHeadToHead orders the players still tied by the points they
	// earned in the matches among themselves, most first.
	TiebreakHeadToHead Tiebreaker = "head_to_head"
	// TiebreakPlayerID orders by player id, ascending.
	TiebreakPlayerID Tiebreaker = "player_id"
)

// DefaultTiebreakers is the standings order used when none is configured:
// points, wins, draws, player_id.
func DefaultTiebreakers() []Tiebreaker {
	return []Tiebreaker{TiebreakPoints, TiebreakWins, TiebreakDraws, TiebreakPlayerID}
}

func (t Tiebreaker) valid() bool {
	switch t {
	case TiebreakPoints, TiebreakWins, TiebreakDraws, TiebreakHeadToHead, TiebreakPlayerID:
		return true
	}
	return false
}

// Entrant is a player as the standings know it.
type Entrant struct {
	PlayerID    string `json:"player_id"`
	DisplayName string `json:"display_name,omitempty"`
}

// MatchRecord is a recorded result: the one source of truth the standings
// are computed from. The manager keeps one file per record under
// data/leagues/<league_id>/results/.
type MatchRecord struct {
	MatchID    string                `json:"match_id"`
	RoundID    int                   `json:"round_id"`
	PlayerA    string                `json:"player_A_id"`
	PlayerB    string                `json:"player_B_id"`
	RefereeID  string                `json:"referee_id,omitempty"`
	Result     leaguesdk.MatchResult `json:"result"`
	RecordedAt time.Time             `json:"recorded_at"`
}

// outcome is what a result means for one player of the match.
type outcome struct {
	win, draw, loss, technical bool
}

// outcomes returns what the record's result means for player A and
// player B (see outcomesOf).
func (r *MatchRecord) outcomes() (a, b outcome) {
	winner := 0
	switch string(r.Result.Winner) {
	case r.PlayerA:
		winner = 1
	case r.PlayerB:
		winner = 2
	}
	return outcomesOf(resultStatus(&r.Result), winner)
}

// outcomesOf returns what a result of status (WIN, DRAW or
// TECHNICAL_LOSS, as resultStatus gives it) whose winner is player A (1),
// player B (2) or neither (0) means for player A and player B.
func outcomesOf(status leaguesdk.ResultStatus, winner int) (a, b outcome) {
	switch {
	case status == leaguesdk.ResultDraw:
		return outcome{draw: true}, outcome{draw: true}
	case winner == 1:
		return outcome{win: true}, outcome{loss: true, technical: status == leaguesdk.ResultTechnicalLoss}
	case winner == 2:
		return outcome{loss: true, technical: status == leaguesdk.ResultTechnicalLoss}, outcome{win: true}
	default:
		// No winner and no draw: both players failed.
		return outcome{loss: true, technical: true}, outcome{loss: true, technical: true}
	}
}

// resultStatus returns the result's status, deriving it from winner and
// score when the referee did not send one.
func resultStatus(res *leaguesdk.MatchResult) leaguesdk.ResultStatus {
	if res.Status != "" {
		return res.Status
	}
	if res.Winner != "" {
		return leaguesdk.ResultWin
	}
	// No winner: equal positive scores are a draw; anything else means both failed.
	first, equal, positive := true, true, true
	var v0 int
	for _, v := range res.Score {
		if first {
			v0, first = v, false
		} else if v != v0 {
			equal = false
		}
		if v <= 0 {
			positive = false
		}
	}
	if !first && equal && positive {
		return leaguesdk.ResultDraw
	}
	return leaguesdk.ResultTechnicalLoss
}

// checkResult verifies that a reported result names only the players of
// its match and is self-consistent.
func checkResult(res *leaguesdk.MatchResult, playerA, playerB string) error {
	w := string(res.Winner)
	if w != "" && w != playerA && w != playerB {
		return &leaguesdk.Error{Code: leaguesdk.CodeInvalidChoice, Field: "result.winner",
			Message: fmt.Sprintf("winner %q is not a player of this match (%s vs %s)", w, playerA, playerB)}
	}
	switch res.Status {
	case "", leaguesdk.ResultTechnicalLoss:
	case leaguesdk.ResultWin:
		if w == "" {
			return &leaguesdk.Error{Code: leaguesdk.CodeMissingRequiredField, Field: "result.winner",
				Message: "a WIN result must name its winner"}
		}
	case leaguesdk.ResultDraw:
		if w != "" {
			return &leaguesdk.Error{Code: leaguesdk.CodeInvalidChoice, Field: "result.winner",
				Message: "a DRAW result cannot have a winner"}
		}
	default:
		return &leaguesdk.Error{Code: leaguesdk.CodeInvalidChoice, Field: "result.status",
			Message: fmt.Sprintf("result status %q is none of WIN, DRAW, TECHNICAL_LOSS", res.Status)}
	}
	for id := range res.Score {
		if id != playerA && id != playerB {
			return &leaguesdk.Error{Code: leaguesdk.CodeInvalidChoice, Field: "result.score",
				Message: fmt.Sprintf("score names %q, who is not a player of this match (%s vs %s)", id, playerA, playerB)}
		}
	}
	return nil
}

// tally is one player's record.
type tally struct {
	Entrant
	played, wins, draws, losses, technical, points int
}

func (t *tally) add(o outcome) {
	t.played++
	switch {
	case o.win:
		t.wins++
		t.points += WinPoints
	case o.draw:
		t.draws++
		t.points += DrawPoints
	default:
		t.losses++
		t.points += LossPoints
		if o.technical {
			t.technical++
		}
	}
}

// scored yields each result once: its two players and what it means for
// each. The standings are computed from it, so that the manager can keep
// its results in whatever form costs least.
type scored func(yield func(players [2]string, o [2]outcome) bool)

// scoredRecords is results as scored.
func scoredRecords(results []MatchRecord) scored {
	return func(yield func(players [2]string, o [2]outcome) bool) {
		for i := range results {
			r := &results[i]
			oa, ob := r.outcomes()
			if !yield([2]string{r.PlayerA, r.PlayerB}, [2]outcome{oa, ob}) {
				return
			}
		}
	}
}

// tallies counts the results of every entrant. Results naming a player who
// is not an entrant count for the entrant only.
func tallies(players []Entrant, results scored) map[string]*tally {
	byID := make(map[string]*tally, len(players))
	for _, p := range players {
		byID[p.PlayerID] = &tally{Entrant: p}
	}
	addTallies(byID, results)
	return byID
}

// addTallies adds results to the tallies of their players.
func addTallies(byID map[string]*tally, results scored) {
	for players, o := range results {
		for i, id := range players {
			if t := byID[id]; t != nil {
				t.add(o[i])
			}
		}
	}
}

// ComputeStandings returns the standings table of players after results:
// one row per player with played, wins, draws, losses and points (win 3,
// draw 1, loss 0; a technical loss scores 0 for the offender and 3 for its
// opponent; when both failed, both score 0 and the match still counts as
// played), ordered by tiebreakers ([DefaultTiebreakers] when empty) with
// player_id ascending deciding last, ranked 1…n. It is a pure function:
// the manager calls it on its recorded results whenever it needs the table.
func ComputeStandings(players []Entrant, results []MatchRecord, tiebreakers []Tiebreaker) []leaguesdk.StandingRow {
	rows, _ := computeStandings(players, scoredRecords(results), tiebreakers)
	return rows
}

// computeStandings is ComputeStandings that also returns the tallies.
func computeStandings(players []Entrant, results scored, tiebreakers []Tiebreaker) ([]leaguesdk.StandingRow, map[string]*tally) {
	ts := tallies(players, results)
	return rowsOf(rank(players, results, ts, tiebreakers), ts), ts
}

// rowsOf returns the standings rows of the players in order.
func rowsOf(order []string, ts map[string]*tally) []leaguesdk.StandingRow {
	rows := make([]leaguesdk.StandingRow, len(order))
	for i, id := range order {
		t := ts[id]
		rows[i] = leaguesdk.StandingRow{Rank: i + 1, PlayerID: id, DisplayName: t.DisplayName, Played: t.played,
			Wins: t.wins, Draws: t.draws, Losses: t.losses, Points: t.points}
	}
	return rows
}

// rank returns the player ids in standings order.
func rank(players []Entrant, results scored, ts map[string]*tally, tiebreakers []Tiebreaker) []string {
	if len(tiebreakers) == 0 {
		tiebreakers = DefaultTiebreakers()
	}
	ids := make([]string, 0, len(players))
	seen := make(map[string]bool, len(players))
	for _, p := range players {
		if !seen[p.PlayerID] {
			seen[p.PlayerID] = true
			ids = append(ids, p.PlayerID)
		}
	}
	slices.SortFunc(ids, comparePlayerIDs)
	return orderGroup(ids, results, ts, tiebreakers)
}

// orderGroup orders ids, which are equal on every criterion before
// tiebreakers, by the first tiebreaker and each group of equals by the rest.
// ids arrive sorted by player id, and every sort below is stable.
func orderGroup(ids []string, results scored, ts map[string]*tally, tiebreakers []Tiebreaker) []string {
	if len(ids) < 2 || len(tiebreakers) == 0 {
		return ids
	}
	tb, rest := tiebreakers[0], tiebreakers[1:]
	if tb == TiebreakPlayerID {
		return ids // already in player id order, and ids are unique
	}
	key := func(id string) int {
		t := ts[id]
		switch tb {
		case TiebreakPoints:
			return t.points
		case TiebreakWins:
			return t.wins
		case TiebreakDraws:
			return t.draws
		}
		return 0
	}
	if tb == TiebreakHeadToHead {
		h2h := headToHead(ids, results)
		key = func(id string) int { return h2h[id] }
	}
	keys := make(map[string]int, len(ids))
	for _, id := range ids {
		keys[id] = key(id)
	}
	slices.SortStableFunc(ids, func(a, b string) int { return keys[b] - keys[a] })
	out := make([]string, 0, len(ids))
	for start := 0; start < len(ids); {
		end := start + 1
		for end < len(ids) && keys[ids[end]] == keys[ids[start]] {
			end++
		}
		out = append(out, orderGroup(slices.Clone(ids[start:end]), results, ts, rest)...)
		start = end
	}
	return out
}

// headToHead returns the points each of ids earned in the matches played
// among ids only.
func headToHead(ids []string, results scored) map[string]int {
	mini := make(map[string]*tally, len(ids))
	for _, id := range ids {
		mini[id] = &tally{}
	}
	for players, o := range results {
		ta, tb := mini[players[0]], mini[players[1]]
		if ta == nil || tb == nil {
			continue
		}
		ta.add(o[0])
		tb.add(o[1])
	}
	out := make(map[string]int, len(ids))
	for id, t := range mini {
		out[id] = t.points
	}
	return out
}

// comparePlayerIDs orders player ids with numbers by their number (P9
// before P10), and anything else as strings.
func comparePlayerIDs(a, b string) int {
	pa, na, oka := splitNumbered(a)
	pb, nb, okb := splitNumbered(b)
	if oka && okb && pa == pb && na != nb {
		if na < nb {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

func splitNumbered(s string) (prefix string, n int, ok bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return "", 0, false
	}
	for _, c := range s[i:] {
		n = n*10 + int(c-'0')
	}
	return s[:i], n, true
}

// encodeShared encodes a broadcast's fields other than its envelope once
// (the round's standings table, or its matches), for callShared to send to
// every player with only the envelope encoded per recipient.
func (m *Manager) encodeShared(msg leaguesdk.Message) sharedBody {
	m.sharedEncodes.Add(1)
	body := sharedBody{typ: msg.Header().MessageType}
	body.fields, body.err = fieldsAfterEnvelope(msg)
	if body.err != nil {
		m.log.Error("broadcast does not encode", slog.String("message_type", string(body.typ)),
			slog.String("error", body.err.Error()))
	}
	return body
}

// fieldsAfterEnvelope returns the encoding of msg's members after its
// envelope's, without the object's braces: `"league_id":…,"standings":[…]`.
// Every message type of leaguesdk encodes as its envelope's members
// followed by its own.
func fieldsAfterEnvelope(msg leaguesdk.Message) ([]byte, error) {
	full, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	env, err := json.Marshal(msg.Header())
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(full, env[:len(env)-1])
	switch {
	case !ok || len(rest) == 0:
		return nil, fmt.Errorf("%T does not encode as its envelope followed by its fields", msg)
	case len(rest) == 1:
		return nil, nil // the envelope alone
	case rest[0] != ',':
		return nil, fmt.Errorf("%T does not encode as its envelope followed by its fields", msg)
	}
	return rest[1 : len(rest)-1], nil
}

// sharedBody is a broadcast's message encoded once, or why it is not.
type sharedBody struct {
	typ    leaguesdk.MessageType
	fields []byte
	err    error
}

// callShared sends body to one target, with the target's envelope.
func (m *Manager) callShared(ctx context.Context, t target, method string, body sharedBody) error {
	msg, err := body.to(leaguesdk.NewEnvelope(body.typ, leaguesdk.LeagueManagerSender, t.token, "", m.cfg.Now()))
	if err != nil {
		return err
	}
	return m.call(ctx, t, method, msg)
}

// to returns the message of body with the envelope env, in pieces: the
// envelope is encoded and followed by the shared fields as they are, not
// encoded again nor copied. Joined, the pieces are the bytes json.Marshal
// writes for the whole message.
func (body sharedBody) to(env leaguesdk.Envelope) (wirejson.Parts, error) {
	if body.err != nil {
		return nil, body.err
	}
	head, err := json.Marshal(&env)
	if err != nil {
		return nil, err
	}
	if len(body.fields) == 0 {
		return wirejson.Parts{head}, nil
	}
	head[len(head)-1] = ','
	return wirejson.Parts{head, body.fields, []byte("}")}, nil
}
