package manager

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/leaguesdk"
	refpkg "github.com/agentleague/league/referee"
)

// The viewer's pages (the dashboard's view.html: a league's course, a
// player, a match) read GET api/view/…, served by the manager for its
// league while it runs and by a [Viewer] for any league of a data root
// once it has ended. Both read a leagueView: the live manager's in memory
// under its lock, a finished league's loaded from its files once.

// leagueView is a league as the viewer's pages read it.
type leagueView struct {
	id, gameType string
	status       LeagueStatus
	players      []Entrant
	rounds       [][]*match
	champion     *leaguesdk.Champion
	tiebreakers  []Tiebreaker
	// dataRoot is where the referees' transcripts are looked for
	// (data/matches/<league>/<match>.json); "" when there is none.
	dataRoot string
	// live is true while a manager serves the league.
	live bool
	// results is the number of results recorded: the standings in tables
	// are of that many.
	results int
	tables  *viewTables
	// latest, when not nil, returns the standings after every result
	// recorded: the live manager's own, kept up to date as results come.
	latest func() []leaguesdk.StandingRow
}

// viewTables keeps the standings after the rounds asked for: at 1000
// players one table takes some 0.4 s to rank (the head-to-head
// tiebreaker reads every result for each group of equals), and a reader
// moving the round slider asks for the same ones again.
type viewTables struct {
	mu      sync.Mutex
	results int
	rows    map[int][]leaguesdk.StandingRow
}

// maxViewTables bounds the tables kept.
const maxViewTables = 128

// viewSource gives the viewer a league: f is called with it, and must not
// keep it (the live manager's is read under its lock).
type viewSource func(f func(v *leagueView)) error

// errNoLeague is returned by a viewSource whose league is not there.
var errNoLeague = errors.New("no such league")

// viewLeagueInfo is GET api/view/league.
type viewLeagueInfo struct {
	LeagueID     string              `json:"league_id"`
	GameType     string              `json:"game_type"`
	Status       LeagueStatus        `json:"status"`
	Live         bool                `json:"live"`
	TotalRounds  int                 `json:"total_rounds"`
	RoundsPlayed int                 `json:"rounds_played"`
	Matches      int                 `json:"matches"`
	Finished     int                 `json:"finished"`
	Champion     *leaguesdk.Champion `json:"champion"`
	Players      []Entrant           `json:"players"`
}

// viewTable is GET api/view/standings?round=k: the standings after
// the results of rounds 1…k.
type viewTable struct {
	Round        int                     `json:"round"`
	RoundsPlayed int                     `json:"rounds_played"`
	Standings    []leaguesdk.StandingRow `json:"standings"`
}

// viewSeries is one player's points after each round.
type viewSeries struct {
	PlayerID    string `json:"player_id"`
	DisplayName string `json:"display_name,omitempty"`
	Rank        int    `json:"rank"`
	Points      []int  `json:"points"`
}

// viewCourse is GET api/view/course?top=n&players=a,b: the points after
// each round played of the leaders and of the players picked, and the
// field's median.
type viewCourse struct {
	Rounds []int        `json:"rounds"`
	Series []viewSeries `json:"series"`
	Median []float64    `json:"median"`
}

// viewMatchRow is a match as the schedule and a player's page list it.
type viewMatchRow struct {
	MatchID     string `json:"match_id"`
	RoundID     int    `json:"round_id"`
	PlayerA     string `json:"player_A_id"`
	PlayerB     string `json:"player_B_id"`
	RefereeID   string `json:"referee_id,omitempty"`
	Status      string `json:"status"`
	ChoiceA     string `json:"choice_A,omitempty"`
	ChoiceB     string `json:"choice_B,omitempty"`
	DrawnNumber int    `json:"drawn_number,omitempty"`
	Result      string `json:"result,omitempty"` // WIN, DRAW, TECHNICAL_LOSS
	Winner      string `json:"winner,omitempty"`
	Reason      string `json:"reason,omitempty"`
	PointsA     int    `json:"points_A"`
	PointsB     int    `json:"points_B"`
}

// viewRound is GET api/view/round/{k}: the matches of round k.
type viewRound struct {
	Round   int            `json:"round"`
	Matches []viewMatchRow `json:"matches"`
}

// viewPlayer is GET api/view/player/{id}.
type viewPlayer struct {
	PlayerID    string                 `json:"player_id"`
	DisplayName string                 `json:"display_name,omitempty"`
	Standing    *leaguesdk.StandingRow `json:"standing"`
	Matches     []viewMatchRow         `json:"matches"`
	// Differed and Compared count the matches where both choices are
	// known, and those where the player's differed from its opponent's.
	Differed   int         `json:"differed"`
	Compared   int         `json:"compared"`
	DifferRate float64     `json:"differ_rate"`
	Course     viewCourse  `json:"course"`
	Latency    viewLatency `json:"latency"`
	// TechnicalLosses are the matches the player lost on a technical
	// loss, with their causes.
	TechnicalLosses []viewTechnical `json:"technical_losses"`
}

// viewLatency is how long a player took to answer the referees.
type viewLatency struct {
	// Answers is how many answers the transcripts read hold;
	// Transcripts how many of the player's matches had one.
	Answers     int     `json:"answers"`
	Transcripts int     `json:"transcripts"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	MaxMs       float64 `json:"max_ms"`
}

// viewTechnical is a technical loss and its cause.
type viewTechnical struct {
	MatchID string `json:"match_id"`
	RoundID int    `json:"round_id"`
	Cause   string `json:"cause"`
}

// viewMatch is GET api/view/match/{id}.
type viewMatch struct {
	viewMatchRow
	NumberParity string `json:"number_parity,omitempty"`
	// Rule is the rule of the game that decided the result.
	Rule       string `json:"rule,omitempty"`
	RecordedAt string `json:"recorded_at,omitempty"`
	// Cause is, for a technical loss, why the offender lost.
	Cause        string   `json:"cause,omitempty"`
	Unresponsive []string `json:"unresponsive,omitempty"`
	// Transcript is the referee's record of the match, when the manager
	// can read it (a data root shared with the referees); Source says
	// where what the page shows comes from.
	Transcript *viewTranscript `json:"transcript"`
	Source     string          `json:"source"`
}

// viewTranscript is a referee's transcript as the match page shows it.
type viewTranscript struct {
	RefereeID string                  `json:"referee_id"`
	State     refpkg.State            `json:"state"`
	Lifecycle []refpkg.LifecycleEntry `json:"lifecycle"`
	Messages  []viewMessage           `json:"messages"`
}

// viewMessage is one message of a match, with, for an answer, how long it
// took against the time it was given.
type viewMessage struct {
	At          string          `json:"at"`
	OffsetMs    float64         `json:"offset_ms"`
	Direction   string          `json:"direction"`
	Peer        string          `json:"peer"`
	Method      string          `json:"method"`
	MessageType string          `json:"message_type,omitempty"`
	LatencyMs   *float64        `json:"latency_ms,omitempty"`
	BudgetMs    *float64        `json:"budget_ms,omitempty"`
	Late        bool            `json:"late,omitempty"`
	Error       string          `json:"error,omitempty"`
	Message     json.RawMessage `json:"message,omitempty"`
}

// leaguePoints are the points of a player for each outcome.
func outcomePoints(o outcome) int {
	switch {
	case o.win:
		return WinPoints
	case o.draw:
		return DrawPoints
	}
	return LossPoints
}

// rowOf returns mt as a schedule row.
func rowOf(mt *match) viewMatchRow {
	ref, status := mt.shown()
	r := viewMatchRow{MatchID: mt.MatchID, RoundID: mt.RoundID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB,
		RefereeID: ref, Status: string(status)}
	rec := mt.record
	if rec == nil {
		return r
	}
	r.ChoiceA, r.ChoiceB = string(rec.choices[0].Value()), string(rec.choices[1].Value())
	r.DrawnNumber, r.Result, r.Reason = int(rec.drawn), string(rec.status.Value()), rec.reason.Value()
	if w := rec.flags.winner(); w > 0 {
		r.Winner = [2]string{mt.PlayerA, mt.PlayerB}[w-1]
	}
	oa, ob := rec.outcomes()
	r.PointsA, r.PointsB = outcomePoints(oa), outcomePoints(ob)
	return r
}

// roundsPlayed returns how many rounds, from the first, hold a result.
func (v *leagueView) roundsPlayed() int {
	n := 0
	for i, round := range v.rounds {
		for _, mt := range round {
			if mt.record != nil {
				n = i + 1
				break
			}
		}
	}
	return n
}

// finished returns the matches of rounds 1…k with a result.
func (v *leagueView) finished(k int) []*match {
	var out []*match
	for _, round := range v.rounds[:min(k, len(v.rounds))] {
		for _, mt := range round {
			if mt.record != nil {
				out = append(out, mt)
			}
		}
	}
	return out
}

func (v *leagueView) info() viewLeagueInfo {
	in := viewLeagueInfo{LeagueID: v.id, GameType: v.gameType, Status: v.status, Live: v.live, TotalRounds: len(v.rounds),
		RoundsPlayed: v.roundsPlayed(), Players: v.players}
	for _, round := range v.rounds {
		in.Matches += len(round)
		for _, mt := range round {
			if mt.record != nil {
				in.Finished++
			}
		}
	}
	if v.champion != nil {
		c := *v.champion
		in.Champion = &c
	}
	return in
}

// standingsAfter returns the standings after the results of rounds 1…k.
func (v *leagueView) standingsAfter(k int) []leaguesdk.StandingRow { return v.standingsJob(k)() }

// standingsJob returns what makes the standings after the results of
// rounds 1…k: the table kept, the live manager's own (after the last
// round played), or one ranked from a copy of the results, so that the
// ranking can run once the live manager's lock is released.
func (v *leagueView) standingsJob(k int) func() []leaguesdk.StandingRow {
	k = min(max(k, 0), len(v.rounds))
	if v.latest != nil && k >= v.roundsPlayed() {
		rows := slices.Clone(v.latest())
		return func() []leaguesdk.StandingRow { return rows }
	}
	c := v.tables
	if c != nil {
		c.mu.Lock()
		rows, ok := c.rows[k]
		if c.results != v.results {
			ok = false
		}
		c.mu.Unlock()
		if ok {
			return func() []leaguesdk.StandingRow { return rows }
		}
	}
	type result struct {
		players [2]string
		o       [2]outcome
	}
	var results []result
	for _, mt := range v.finished(k) {
		oa, ob := mt.record.outcomes()
		results = append(results, result{[2]string{mt.PlayerA, mt.PlayerB}, [2]outcome{oa, ob}})
	}
	players, tiebreakers, n := slices.Clone(v.players), slices.Clone(v.tiebreakers), v.results
	return func() []leaguesdk.StandingRow {
		rows, _ := computeStandings(players, func(yield func(players [2]string, o [2]outcome) bool) {
			for _, r := range results {
				if !yield(r.players, r.o) {
					return
				}
			}
		}, tiebreakers)
		if c != nil {
			c.mu.Lock()
			if c.results != n || len(c.rows) >= maxViewTables {
				c.results, c.rows = n, map[int][]leaguesdk.StandingRow{}
			}
			c.rows[k] = rows
			c.mu.Unlock()
		}
		return rows
	}
}

// course returns the points after each round played of the top leaders
// (by the standings now) and of the players picked, and the field's
// median after each round.
func (v *leagueView) course(top int, picked []string) viewCourse { return v.courseJob(top, picked)() }

// courseJob returns what makes the course: the results it needs are
// copied now, in a few words each, and added up when it is called, so
// that the live manager's lock is held only for the copy (the sums and
// medians of 1000 players over 999 rounds take some 0.1 s).
func (v *leagueView) courseJob(top int, picked []string) func() viewCourse {
	played := v.roundsPlayed()
	type result struct {
		a, b   string
		pa, pb int8
	}
	n := 0
	for _, round := range v.rounds[:played] {
		n += len(round)
	}
	results := make([]result, 0, n)
	ends := make([]int, played) // where each round's results end in results
	for r := range played {
		for _, mt := range v.rounds[r] {
			if mt.record == nil {
				continue
			}
			oa, ob := mt.record.outcomes()
			results = append(results, result{mt.PlayerA, mt.PlayerB, int8(outcomePoints(oa)), int8(outcomePoints(ob))})
		}
		ends[r] = len(results)
	}
	players := slices.Clone(v.players)
	standingsJob := v.standingsJob(played)
	picked = slices.Clone(picked)
	return func() viewCourse {
		c := viewCourse{Rounds: make([]int, played), Median: make([]float64, played), Series: []viewSeries{}}
		index := make(map[string]int, len(players))
		for i, p := range players {
			index[p.PlayerID] = i
		}
		standings := standingsJob()
		want := map[string]bool{}
		var order []string
		add := func(id string) {
			if _, ok := index[id]; ok && !want[id] {
				want[id] = true
				order = append(order, id)
			}
		}
		for i := 0; i < len(standings) && i < top; i++ {
			add(standings[i].PlayerID)
		}
		for _, id := range picked {
			add(id)
		}
		rankOf := make(map[string]int, len(standings))
		for _, r := range standings {
			rankOf[r.PlayerID] = r.Rank
		}
		series := make([]viewSeries, len(order))
		for i, id := range order {
			series[i] = viewSeries{PlayerID: id, DisplayName: players[index[id]].DisplayName, Rank: rankOf[id], Points: make([]int, played)}
		}
		totals := make([]int, len(players))
		sorted := make([]int, len(players))
		from := 0
		for r := range played {
			c.Rounds[r] = r + 1
			for _, res := range results[from:ends[r]] {
				if i, ok := index[res.a]; ok {
					totals[i] += int(res.pa)
				}
				if i, ok := index[res.b]; ok {
					totals[i] += int(res.pb)
				}
			}
			from = ends[r]
			for i, id := range order {
				series[i].Points[r] = totals[index[id]]
			}
			copy(sorted, totals)
			slices.Sort(sorted)
			c.Median[r] = median(sorted)
		}
		c.Series = series
		return c
	}
}

// median returns the median of sorted values, 0 of none.
func median(sorted []int) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return float64(sorted[n/2])
	}
	return float64(sorted[n/2-1]+sorted[n/2]) / 2
}

// round returns the matches of round k.
func (v *leagueView) round(k int) (viewRound, bool) {
	if k < 1 || k > len(v.rounds) {
		return viewRound{}, false
	}
	out := viewRound{Round: k, Matches: make([]viewMatchRow, len(v.rounds[k-1]))}
	for i, mt := range v.rounds[k-1] {
		out.Matches[i] = rowOf(mt)
	}
	return out, true
}

// match returns the match of the given id.
func (v *leagueView) match(id string) *match {
	if pos, ok := positionOf(id); ok && pos[0] < len(v.rounds) && pos[1] < len(v.rounds[pos[0]]) {
		if mt := v.rounds[pos[0]][pos[1]]; mt.MatchID == id {
			return mt
		}
	}
	for mt := range v.allMatches() {
		if mt.MatchID == id {
			return mt
		}
	}
	return nil
}

func (v *leagueView) allMatches() func(yield func(*match) bool) {
	return func(yield func(*match) bool) {
		for _, round := range v.rounds {
			for _, mt := range round {
				if !yield(mt) {
					return
				}
			}
		}
	}
}

// player returns a player's page without its course and standing
// (playerJob) and what its transcripts tell (withLatency), and whether
// the player is in the league.
func (v *leagueView) player(id string) (viewPlayer, bool) {
	p := viewPlayer{PlayerID: id, Matches: []viewMatchRow{}, TechnicalLosses: []viewTechnical{}}
	found := false
	for _, e := range v.players {
		if e.PlayerID == id {
			p.DisplayName, found = e.DisplayName, true
		}
	}
	if !found {
		return p, false
	}
	for mt := range v.allMatches() {
		if mt.PlayerA != id && mt.PlayerB != id {
			continue
		}
		row := rowOf(mt)
		p.Matches = append(p.Matches, row)
		if mt.record == nil {
			continue
		}
		mine, theirs := row.ChoiceA, row.ChoiceB
		me := 0
		if mt.PlayerB == id {
			mine, theirs, me = theirs, mine, 1
		}
		if mine != "" && theirs != "" {
			p.Compared++
			if mine != theirs {
				p.Differed++
			}
		}
		oa, ob := mt.record.outcomes()
		if o := [2]outcome{oa, ob}[me]; o.technical || (o.loss && row.Result == string(leaguesdk.ResultTechnicalLoss)) {
			p.TechnicalLosses = append(p.TechnicalLosses, viewTechnical{MatchID: mt.MatchID, RoundID: mt.RoundID, Cause: row.Reason})
		}
	}
	if p.Compared > 0 {
		p.DifferRate = float64(p.Differed) / float64(p.Compared)
	}
	return p, true
}

// playerJob returns what completes a player's page once the live
// manager's lock is released: its course and its standing.
func (v *leagueView) playerJob(id string) func(p *viewPlayer) {
	course, standings := v.courseJob(1, []string{id}), v.standingsJob(len(v.rounds))
	return func(p *viewPlayer) {
		p.Course = course()
		for _, r := range standings() {
			if r.PlayerID == id {
				row := r
				p.Standing = &row
			}
		}
	}
}

// ruleOf says which rule of the even/odd game decided a result.
func ruleOf(r viewMatchRow) string {
	switch {
	case r.Result == string(leaguesdk.ResultTechnicalLoss) && r.Winner != "":
		return "technical loss: a player that does not answer in time, or answers against the protocol, loses (0 points) and its opponent wins (3 points)"
	case r.Result == string(leaguesdk.ResultTechnicalLoss):
		return "technical loss of both players: neither answered as the protocol asks, both score 0"
	case r.ChoiceA != "" && r.ChoiceA == r.ChoiceB:
		return "equal choices are a draw whatever the number (1 point each)"
	case r.Winner != "":
		return "the player whose choice matches the drawn number's parity wins (3 points), the other loses (0)"
	}
	return ""
}

// matchPage returns a match's page from what the manager recorded; the
// transcript is added by withTranscript.
func (v *leagueView) matchPage(mt *match) viewMatch {
	p := viewMatch{viewMatchRow: rowOf(mt), Source: "the manager's record of the result"}
	if mt.record == nil {
		p.Source = "the manager's schedule (no result yet)"
		return p
	}
	full := mt.record.full(mt)
	p.RecordedAt = full.RecordedAt.Format(time.RFC3339Nano)
	p.Unresponsive = full.Result.Details.Unresponsive
	if p.DrawnNumber > 0 {
		p.NumberParity = string(leaguesdk.ParityOf(p.DrawnNumber))
	}
	p.Rule = ruleOf(p.viewMatchRow)
	if p.Result == string(leaguesdk.ResultTechnicalLoss) {
		p.Cause = p.Reason
	}
	return p
}

// transcriptOf reads a match's transcript from dataRoot; nil when it has
// none there.
func transcriptOf(dataRoot, leagueID, matchID string) *refpkg.Transcript {
	if dataRoot == "" {
		return nil
	}
	t, err := refpkg.ReadTranscript(dataRoot, leagueID, matchID)
	if err != nil {
		return nil
	}
	return t
}

// withTranscript adds the referee's transcript to a match's page, and
// from it the cause of a technical loss.
func (p *viewMatch) withTranscript(t *refpkg.Transcript) {
	if t == nil {
		return
	}
	p.Source = "the referee's transcript and the manager's record"
	vt := &viewTranscript{RefereeID: t.RefereeID, State: t.State, Lifecycle: t.Lifecycle}
	vt.Messages = messagesOf(t)
	p.Transcript = vt
	if p.Result == string(leaguesdk.ResultTechnicalLoss) || p.Status != string(leaguesdk.MatchFinished) {
		// The recorded reason, then what the transcript adds to it: each
		// failed call's error and each late answer once.
		var causes []string
		add := func(c string) {
			for _, had := range causes {
				if strings.Contains(had, c) {
					return
				}
			}
			causes = append(causes, c)
		}
		if p.Reason != "" {
			add(p.Reason)
		}
		for _, m := range vt.Messages {
			if m.Error != "" && !strings.Contains(p.Reason, m.Error) {
				add(m.Peer + " " + m.Method + ": " + m.Error)
			} else if m.Late {
				add(m.Peer + " answered " + m.Method + " after its deadline")
			}
		}
		for _, l := range t.Lifecycle {
			if l.State == refpkg.StateAborted && l.Note != "" {
				add("aborted: " + l.Note)
			}
		}
		p.Cause = strings.Join(causes, "; ")
	}
}

// messagesOf returns a transcript's messages with, for each answer, its
// latency: from the referee's call to the same peer and method, against
// the deadline that call gave.
func messagesOf(t *refpkg.Transcript) []viewMessage {
	out := make([]viewMessage, 0, len(t.Transcript))
	var first time.Time
	type call struct {
		at       time.Time
		deadline time.Time
	}
	open := map[[2]string]call{}
	for i, e := range t.Transcript {
		at, _ := time.Parse(time.RFC3339Nano, e.At)
		if i == 0 {
			first = at
		}
		m := viewMessage{At: e.At, OffsetMs: ms(at.Sub(first)), Direction: e.Direction, Peer: e.Peer, Method: e.Method,
			Error: e.Error, Message: e.Message}
		var head struct {
			MessageType string `json:"message_type"`
			Deadline    string `json:"deadline"`
		}
		if len(e.Message) > 0 && json.Unmarshal(e.Message, &head) == nil {
			m.MessageType = head.MessageType
		}
		key := [2]string{e.Peer, e.Method}
		switch e.Direction {
		case refpkg.Sent:
			c := call{at: at}
			if d, err := time.Parse(time.RFC3339Nano, head.Deadline); err == nil {
				c.deadline = d
				b := ms(d.Sub(at))
				m.BudgetMs = &b
			}
			open[key] = c
		case refpkg.Received:
			if c, ok := open[key]; ok {
				l := ms(at.Sub(c.at))
				m.LatencyMs = &l
				if !c.deadline.IsZero() {
					b := ms(c.deadline.Sub(c.at))
					m.BudgetMs = &b
					m.Late = at.After(c.deadline)
				}
				delete(open, key)
			}
		}
		out = append(out, m)
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// answerLatencies returns how long peer took to answer each call of a
// transcript.
func answerLatencies(t *refpkg.Transcript, peer string) []float64 {
	var out []float64
	for _, m := range messagesOf(t) {
		if m.Peer == peer && m.Direction == refpkg.Received && m.LatencyMs != nil {
			out = append(out, *m.LatencyMs)
		}
	}
	return out
}

// percentile returns the p-th percentile (0…100) of sorted values, by the
// nearest rank.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// serveView answers GET api/view/… from src. path is what follows
// "api/view/".
func serveView(w http.ResponseWriter, r *http.Request, src viewSource, path string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	q := r.URL.Query()
	var out any
	var found = true
	var after func() // file reads and rankings, outside src's lock
	err := src(func(v *leagueView) {
		switch {
		case path == "league":
			out = v.info()
		case path == "standings":
			k := v.roundsPlayed()
			if s := q.Get("round"); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil || n < 0 {
					found = false
					return
				}
				k = min(n, len(v.rounds))
			}
			job, played := v.standingsJob(k), v.roundsPlayed()
			after = func() { out = viewTable{Round: k, RoundsPlayed: played, Standings: job()} }
		case path == "course":
			top, _ := strconv.Atoi(q.Get("top"))
			var picked []string
			if s := q.Get("players"); s != "" {
				picked = strings.Split(s, ",")
			}
			job := v.courseJob(min(max(top, 0), 20), picked[:min(len(picked), 20)])
			after = func() { out = job() }
		case strings.HasPrefix(path, "round/"):
			k, err := strconv.Atoi(strings.TrimPrefix(path, "round/"))
			if out, found = v.round(k); err != nil {
				found = false
			}
		case strings.HasPrefix(path, "player/"):
			id := strings.TrimPrefix(path, "player/")
			var p viewPlayer
			if p, found = v.player(id); !found {
				return
			}
			root, league, finish := v.dataRoot, v.id, v.playerJob(id)
			after = func() { finish(&p); p.withLatency(root, league); out = p }
		case strings.HasPrefix(path, "match/"):
			mt := v.match(strings.TrimPrefix(path, "match/"))
			if mt == nil {
				found = false
				return
			}
			p := v.matchPage(mt)
			root, league := v.dataRoot, v.id
			after = func() { p.withTranscript(transcriptOf(root, league, p.MatchID)); out = p }
			out = p
		default:
			found = false
		}
	})
	if errors.Is(err, errNoLeague) || errors.Is(err, fs.ErrNotExist) {
		http.Error(w, "no such league", http.StatusNotFound)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if !found {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if after != nil {
		after()
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, out)
}

// withLatency adds to a player's page what the transcripts of its matches
// under dataRoot tell: its answer latency, and the errors behind its
// technical losses.
func (p *viewPlayer) withLatency(dataRoot, leagueID string) {
	var lat []float64
	tl := map[string]int{}
	for i, t := range p.TechnicalLosses {
		tl[t.MatchID] = i
	}
	for _, m := range p.Matches {
		if m.Status != string(leaguesdk.MatchFinished) {
			continue
		}
		t := transcriptOf(dataRoot, leagueID, m.MatchID)
		if t == nil {
			continue
		}
		p.Latency.Transcripts++
		lat = append(lat, answerLatencies(t, p.PlayerID)...)
		if i, ok := tl[m.MatchID]; ok {
			var page viewMatch
			page.viewMatchRow = m
			page.withTranscript(t)
			if page.Cause != "" {
				p.TechnicalLosses[i].Cause = page.Cause
			}
		}
	}
	slices.Sort(lat)
	p.Latency.Answers = len(lat)
	p.Latency.P50Ms, p.Latency.P99Ms = percentile(lat, 50), percentile(lat, 99)
	if len(lat) > 0 {
		p.Latency.MaxMs = lat[len(lat)-1]
	}
}

// managerView is the live manager's league for the viewer.
func (m *Manager) managerView(f func(v *leagueView)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	v := leagueView{id: m.cfg.LeagueID, gameType: m.cfg.GameType, status: m.status, players: m.entrantsLocked(),
		rounds: m.rounds, champion: m.champion, tiebreakers: m.cfg.Tiebreakers, dataRoot: m.cfg.DataRoot, live: true,
		results: len(m.records), tables: &m.viewTables, latest: m.standingsLocked}
	f(&v)
	return nil
}
