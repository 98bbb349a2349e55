package chaos_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// report is what the checks of a league found.
type report struct {
	matches   int
	technical int
	causes    *counter
	filled    int // history records a player filled from the manager
	missing   int // history records missing at the end
	checked   int
	held      int
	failed    []string
}

func (r *report) failedList() string {
	if len(r.failed) == 0 {
		return ""
	}
	return "; failed: " + strings.Join(r.failed, ", ")
}

// invariant records the check named what: it held when problems is empty.
func (r *report) invariant(t *testing.T, what string, problems []string) {
	t.Helper()
	r.checked++
	if len(problems) == 0 {
		r.held++
		return
	}
	r.failed = append(r.failed, what)
	if len(problems) > 10 {
		problems = append(problems[:10], fmt.Sprintf("and %d more", len(problems)-10))
	}
	t.Errorf("invariant %q does not hold:\n  %s", what, strings.Join(problems, "\n  "))
}

// refereeResult is the result in a referee's match transcript
// (data/matches/<league_id>/<match_id>.json).
type refereeResult struct {
	Status      leaguesdk.ResultStatus `json:"status"`
	Winner      string                 `json:"winner"`
	Score       map[string]int         `json:"score"`
	DrawnNumber int                    `json:"drawn_number"`
	Choices     map[string]string      `json:"choices"`
}

type transcript struct {
	MatchID string         `json:"match_id"`
	Result  *refereeResult `json:"result"`
}

// historyFile is a player's history.json, as much as the checks read.
type historyFile struct {
	PlayerID     string `json:"player_id"`
	Registration *struct {
		AuthToken string `json:"auth_token"`
	} `json:"registration"`
	Matches []struct {
		MatchID    string `json:"match_id"`
		OpponentID string `json:"opponent_id"`
		Result     string `json:"result"`
		Attempt    int    `json:"attempt"`
		Filled     bool   `json:"filled"`
	} `json:"matches"`
}

// check checks the league's invariants from the manager's answers (run.final)
// and the agents' own files, once every agent has stopped.
func (l *league) check(t *testing.T, run runResult) report {
	t.Helper()
	r := report{causes: &counter{}}
	s := run.final
	r.matches = len(s.Matches)

	r.invariant(t, "league completes", problemsIf(s.Status != manager.StatusCompleted, "status %s", s.Status))
	r.invariant(t, "league completes within a minute of the last fault", problemsIf(run.afterFault > afterLastFault,
		"completed %v after the last fault", run.afterFault))
	// Every agent started again around the end (refused then: the league
	// is over) serves on.
	r.invariant(t, "every agent process alive at the end", run.dead)

	// One result per scheduled match: every pair of players exactly once,
	// each match finished with a result.
	var problems []string
	n := len(l.players)
	if len(s.Matches) != n*(n-1)/2 {
		problems = append(problems, fmt.Sprintf("%d matches scheduled, want %d", len(s.Matches), n*(n-1)/2))
	}
	ids, pairs := map[string]bool{}, map[[2]string]bool{}
	for _, m := range s.Matches {
		pair := [2]string{min(m.PlayerAID, m.PlayerBID), max(m.PlayerAID, m.PlayerBID)}
		if ids[m.MatchID] || pairs[pair] {
			problems = append(problems, "match "+m.MatchID+" or its pair twice")
		}
		ids[m.MatchID], pairs[pair] = true, true
		if m.Status != leaguesdk.MatchFinished || m.Result == nil {
			problems = append(problems, fmt.Sprintf("%s: %s without a result", m.MatchID, m.Status))
		}
	}
	r.invariant(t, "one result per scheduled match", problems)

	// Each result equals the transcript of the referee the manager has it
	// from.
	problems = nil
	refByID := map[string]*agent{}
	tokens := map[*agent]string{}
	for _, ref := range l.refs {
		regs, _ := filepath.Glob(filepath.Join(ref.data, "data", "referees", "*", "registration.json"))
		for _, path := range regs {
			var reg struct {
				RefereeID string `json:"referee_id"`
				AuthToken string `json:"auth_token"`
			}
			if err := readJSON(path, &reg); err != nil {
				problems = append(problems, err.Error())
				continue
			}
			refByID[reg.RefereeID], tokens[ref] = ref, reg.AuthToken
		}
	}
	for _, m := range s.Matches {
		if m.Result == nil {
			continue
		}
		ref := refByID[m.RefereeID]
		if ref == nil {
			problems = append(problems, fmt.Sprintf("%s: decided by %q, which no referee's files name", m.MatchID, m.RefereeID))
			continue
		}
		var tr transcript
		if err := readJSON(filepath.Join(ref.data, "data", "matches", l.id, m.MatchID+".json"), &tr); err != nil || tr.Result == nil {
			problems = append(problems, fmt.Sprintf("%s: no result in %s's transcript (%v)", m.MatchID, m.RefereeID, err))
			continue
		}
		got, want := tr.Result, m.Result
		if got.Status != want.Status || got.Winner != string(want.Winner) || !maps.Equal(got.Score, want.Score) ||
			got.DrawnNumber != want.Details.DrawnNumber || len(got.Choices) != len(want.Details.Choices) {
			problems = append(problems, fmt.Sprintf("%s: manager %+v, referee %s %+v", m.MatchID, *want, m.RefereeID, *got))
		}
		for id, c := range got.Choices {
			if string(want.Details.Choices[id]) != c {
				problems = append(problems, fmt.Sprintf("%s: %s chose %s in the transcript, %s in the result", m.MatchID, id, c, want.Details.Choices[id]))
			}
		}
	}
	r.invariant(t, "each result equals the deciding referee's transcript", problems)

	// Standings equal a recomputation from the results.
	type tally struct{ played, wins, draws, losses, points int }
	want := map[string]*tally{}
	for _, m := range s.Matches {
		if m.Result == nil {
			continue
		}
		for _, id := range []string{m.PlayerAID, m.PlayerBID} {
			if want[id] == nil {
				want[id] = &tally{}
			}
			w := want[id]
			w.played++
			w.points += m.Result.Score[id]
			switch {
			case m.Result.Status == leaguesdk.ResultDraw:
				w.draws++
			case string(m.Result.Winner) == id:
				w.wins++
			default:
				w.losses++
			}
		}
		if m.Result.Status == leaguesdk.ResultTechnicalLoss {
			r.technical++
			r.causes.add(cause(m.Result.Details.Reason))
		}
	}
	problems = nil
	if len(s.Standings) != n {
		problems = append(problems, fmt.Sprintf("%d rows, want %d", len(s.Standings), n))
	}
	for _, row := range s.Standings {
		w := want[row.PlayerID]
		if w == nil {
			w = &tally{}
		}
		if got := (tally{row.Played, row.Wins, row.Draws, row.Losses, row.Points}); got != *w {
			problems = append(problems, fmt.Sprintf("%s: standings %+v, results %+v", row.PlayerID, got, *w))
		}
	}
	r.invariant(t, "standings equal a recomputation", problems)

	// Every player's history is complete and equals the league's results.
	problems = nil
	byPlayer := map[string]map[string]leaguesdk.ScheduleEntry{}
	for _, m := range s.Matches {
		for _, id := range []string{m.PlayerAID, m.PlayerBID} {
			if byPlayer[id] == nil {
				byPlayer[id] = map[string]leaguesdk.ScheduleEntry{}
			}
			byPlayer[id][m.MatchID] = m
		}
	}
	for _, p := range l.players {
		files, _ := filepath.Glob(filepath.Join(p.data, "data", "players", l.id, "*", "history.json"))
		if len(files) != 1 {
			problems = append(problems, fmt.Sprintf("%s: %d history files", p.name, len(files)))
			continue
		}
		var h historyFile
		if err := readJSON(files[0], &h); err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if h.Registration != nil {
			tokens[p] = h.Registration.AuthToken
		}
		seen := map[string]bool{}
		for _, rec := range h.Matches {
			m, ok := byPlayer[h.PlayerID][rec.MatchID]
			switch {
			case seen[rec.MatchID]:
				problems = append(problems, fmt.Sprintf("%s: %s twice", h.PlayerID, rec.MatchID))
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: %s is not one of its matches", h.PlayerID, rec.MatchID))
			case rec.Result != outcome(m, h.PlayerID):
				problems = append(problems, fmt.Sprintf("%s: %s recorded %s, the league has %s", h.PlayerID, rec.MatchID, rec.Result, outcome(m, h.PlayerID)))
			}
			seen[rec.MatchID] = true
			if rec.Filled {
				r.filled++
			}
		}
		for id := range byPlayer[h.PlayerID] {
			if !seen[id] {
				r.missing++
				problems = append(problems, fmt.Sprintf("%s: %s missing from its history", h.PlayerID, id))
			}
		}
	}
	r.invariant(t, "every player's history complete and equal to the results", problems)

	// After the faults, each agent's goroutines, open files and memory are
	// back within a bound of their level before.
	problems = nil
	for a, u := range run.usage {
		before, after := u[0], u[1]
		if !withinBounds(before, after) {
			problems = append(problems, fmt.Sprintf("%s: goroutines %d→%d, open files %d→%d, RSS %.0f→%.0f MiB", a.name,
				before.goroutines, after.goroutines, before.fds, after.fds, before.rss/(1<<20), after.rss/(1<<20)))
		}
	}
	r.invariant(t, "resources back within bounds after the faults", problems)

	// No agent's token in another agent's files or logs; none in the
	// manager's logs.
	problems = nil
	for a := range tokens {
		if tokens[a] == "" {
			problems = append(problems, a.name+": no token found in its files")
		}
	}
	for _, a := range l.all {
		roots := []string{a.data, a.logPath}
		if a == l.mgr {
			roots = []string{filepath.Join(a.data, "logs"), a.logPath} // it issued every token: its registry holds them
		}
		for other, tok := range tokens {
			if other == a || tok == "" {
				continue
			}
			for _, root := range roots {
				if where := findIn(root, tok); where != "" {
					problems = append(problems, fmt.Sprintf("%s's token in %s's %s", other.name, a.name, where))
				}
			}
		}
	}
	r.invariant(t, "no token of one agent in another's files or logs", problems)
	return r
}

// outcome is a match's result for player id as a history records it.
func outcome(m leaguesdk.ScheduleEntry, id string) string {
	switch res := m.Result; {
	case res.Status == leaguesdk.ResultDraw:
		return "DRAW"
	case string(res.Winner) == id:
		return "WIN"
	case res.Status == leaguesdk.ResultTechnicalLoss:
		return "TECHNICAL_LOSS"
	}
	return "LOSS"
}

// cause is a technical loss's reason without the ids and figures that
// vary from match to match.
func cause(reason string) string {
	fields := strings.Fields(reason)
	for i, f := range fields {
		if strings.ContainsAny(f, "0123456789") {
			fields[i] = "#"
		}
	}
	if len(fields) > 8 {
		fields = fields[:8]
	}
	if len(fields) == 0 {
		return "(no reason)"
	}
	return strings.Join(fields, " ")
}

func problemsIf(bad bool, format string, args ...any) []string {
	if !bad {
		return nil
	}
	return []string{fmt.Sprintf(format, args...)}
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// findIn returns the first file under root (a file or a directory) that
// holds needle, or "".
func findIn(root, needle string) string {
	found := ""
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found != "" {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(needle)) {
			found = strings.TrimPrefix(path, filepath.Dir(root)+string(filepath.Separator))
		}
		return nil
	})
	return found
}

// withinBounds reports whether an agent's resources after the faults are
// within a bound of their level before.
func withinBounds(before, after usage) bool {
	return after.goroutines <= 2*before.goroutines+64 && after.fds <= 2*before.fds+32 && after.rss <= 3*before.rss+96<<20
}

// historyGaps returns how many of player p's matches in the league's final
// state s its records do not hold with the league's result yet, read
// while it runs: history.json, then the lines of its store's journals
// (data/players/.journal/*.jsonl) over it, the later attempt of a match
// winning. The check at the end reads history.json alone, once the player
// has stopped and written it whole.
func (l *league) historyGaps(p *agent, s manager.Snapshot) int {
	type record struct {
		PlayerID string `json:"player_id"`
		MatchID  string `json:"match_id"`
		Result   string `json:"result"`
		Attempt  int    `json:"attempt"`
	}
	var id string
	have := map[string]record{}
	keep := func(r record) {
		if old, ok := have[r.MatchID]; !ok || r.Attempt >= old.Attempt {
			have[r.MatchID] = r
		}
	}
	// The journals first: a compaction writes history.json before it
	// drops the lines history.json then holds.
	journals, _ := filepath.Glob(filepath.Join(p.data, "data", "players", ".journal", "*.jsonl"))
	var lines [][]byte
	for _, path := range journals {
		b, _ := os.ReadFile(path)
		if i := bytes.IndexByte(b, 0); i >= 0 { // space reserved ahead of the records
			b = b[:i]
		}
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	files, _ := filepath.Glob(filepath.Join(p.data, "data", "players", l.id, "*", "history.json"))
	if len(files) == 1 {
		var h historyFile
		if readJSON(files[0], &h) == nil {
			id = h.PlayerID
			for _, m := range h.Matches {
				keep(record{MatchID: m.MatchID, Result: m.Result, Attempt: m.Attempt})
			}
		}
	}
	for _, line := range lines {
		var r record
		if json.Unmarshal(line, &r) == nil && r.MatchID != "" && (id == "" || r.PlayerID == id) {
			id = r.PlayerID
			keep(r)
		}
	}
	if id == "" {
		return len(l.players) - 1
	}
	gaps := 0
	for _, m := range s.Matches {
		if (m.PlayerAID == id || m.PlayerBID == id) && (m.Result == nil || have[m.MatchID].Result != outcome(m, id)) {
			gaps++
		}
	}
	return gaps
}
