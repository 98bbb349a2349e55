package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// progress prints the league as the manager's events arrive. The manager
// calls OnEvent from several goroutines.
type progress struct {
	mu         sync.Mutex
	w          io.Writer
	names      map[string]string // agent id → display name
	strategies map[string]string // display name → strategy

	// perRound prints one line per round instead of a line per match and
	// per registration, for leagues beyond a screenful.
	perRound        bool
	matches, rounds int // of the whole league
	done            int // matches with a result
	players         int // registered
	started         time.Time
}

func (p *progress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, args...)
}

func (p *progress) setStrategy(name, describe string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.strategies == nil {
		p.strategies = map[string]string{}
	}
	p.strategies[name] = describe
}

// who names a player: "P01 Random Rita".
func (p *progress) who(id string) string {
	if n := p.names[id]; n != "" {
		return id + " " + n
	}
	return id
}

func (p *progress) event(ev manager.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.w
	// Shown either way: referees, players (one line each, or counted),
	// warnings and the league's start.
	switch ev.Kind {
	case manager.EventRefereeRegistered:
		p.names[ev.AgentID] = ev.DisplayName
		fmt.Fprintf(w, "referee   %-5s %-16s registered at %s\n", ev.AgentID, ev.DisplayName, ev.Endpoint)
		return
	case manager.EventPlayerRegistered:
		p.names[ev.AgentID] = ev.DisplayName
		p.players++
		if !p.perRound {
			fmt.Fprintf(w, "player    %-5s %-16s registered at %s  (%s)\n", ev.AgentID, ev.DisplayName, ev.Endpoint, p.strategies[ev.DisplayName])
		}
		return
	case manager.EventRegistrationRejected, manager.EventWarning, manager.EventMatchReassigned:
		fmt.Fprintf(w, "          ! %s\n", ev.Message)
		return
	case manager.EventLeagueStarted:
		p.started = time.Now()
		if p.perRound {
			fmt.Fprintf(w, "%s registered\n", plural(p.players, "player"))
		}
		fmt.Fprintf(w, "\n%s\n", ev.Message)
		return
	case manager.EventMatchResult:
		p.done++
	}
	if p.perRound {
		if ev.Kind == manager.EventRoundCompleted {
			fmt.Fprintln(w, p.roundLine(ev.RoundID, time.Since(p.started)))
		}
		return
	}
	switch ev.Kind {
	case manager.EventRoundStarted:
		fmt.Fprintf(w, "\nRound %d\n", ev.RoundID)
	case manager.EventMatchAssigned:
		fmt.Fprintf(w, "  %-6s %s vs %s → %s\n", ev.MatchID, p.who(ev.PlayerA), p.who(ev.PlayerB), ev.RefereeID)
	case manager.EventMatchResult:
		fmt.Fprintf(w, "  %-6s %s\n", ev.MatchID, p.describe(ev))
	case manager.EventRoundCompleted:
		fmt.Fprintf(w, "Round %d completed\n", ev.RoundID)
	}
}

// roundLine is the progress line of a league shown per round: "round 3 of
// 999: 1500/499500 matches, 812 matches/s, about 10m12s left".
func (p *progress) roundLine(round int, elapsed time.Duration) string {
	line := fmt.Sprintf("round %d of %d: %d/%d matches", round, p.rounds, p.done, p.matches)
	if p.done == 0 || elapsed <= 0 {
		return line
	}
	rate := float64(p.done) / elapsed.Seconds()
	line += fmt.Sprintf(", %.0f matches/s", rate)
	switch left := time.Duration(float64(p.matches-p.done) / rate * float64(time.Second)).Round(time.Second); {
	case p.done >= p.matches:
		return line
	case left < time.Second:
		return line + ", less than a second left"
	default:
		return line + fmt.Sprintf(", about %s left", left)
	}
}

// plural writes n and the noun, in the plural unless n is 1: "1 referee",
// "2 referees".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// describe tells a match's result: "P01 Random Rita even, P02 Even Eddie
// even; number 7 → draw".
func (p *progress) describe(ev manager.Event) string {
	r := ev.Result
	if r == nil {
		return ev.Message
	}
	var choices []string
	for _, id := range []string{ev.PlayerA, ev.PlayerB} {
		c := string(r.Details.Choices[id])
		if c == "" {
			c = "no choice"
		}
		choices = append(choices, p.who(id)+" "+c)
	}
	s := strings.Join(choices, ", ")
	if r.Details.DrawnNumber != 0 {
		s += fmt.Sprintf("; number %d", r.Details.DrawnNumber)
	}
	switch {
	case r.Status == leaguesdk.ResultTechnicalLoss:
		s += fmt.Sprintf(" → technical loss, %s wins (%s)", orNobody(string(r.Winner)), r.Details.Reason)
	case r.Winner != "":
		s += " → " + p.who(string(r.Winner)) + " wins"
	default:
		s += " → draw"
	}
	return s
}

func orNobody(id string) string {
	if id == "" {
		return "nobody"
	}
	return id
}

// final prints the standings table and the champion.
func (p *progress) final(rows []leaguesdk.StandingRow, champ *leaguesdk.Champion) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.w
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Rank < rows[j].Rank })
	fmt.Fprintf(w, "\nFinal standings\n")
	fmt.Fprintf(w, "  %-4s %-22s %6s %4s %4s %4s %6s\n", "rank", "player", "played", "W", "D", "L", "points")
	for _, r := range rows {
		name := r.DisplayName
		if name == "" {
			name = p.names[r.PlayerID]
		}
		fmt.Fprintf(w, "  %-4d %-22s %6d %4d %4d %4d %6d\n", r.Rank, r.PlayerID+" "+name, r.Played, r.Wins, r.Draws, r.Losses, r.Points)
	}
	if champ == nil {
		fmt.Fprintf(w, "\nNo champion.\n")
		return
	}
	name := champ.DisplayName
	if name == "" {
		name = p.names[champ.PlayerID]
	}
	fmt.Fprintf(w, "\nChampion: %s %s with %s\n", champ.PlayerID, name, plural(champ.Points, "point"))
}

// dataUsage says how much the league's files took, and, when the data
// root holds more leagues than one, how much they all take and how to keep
// fewer: each run adds a league, and a big one is hundreds of megabytes.
func (p *progress) dataUsage(o options, leagueID string) {
	p.printf("League %s's files take %s under %s (its id names them in config/, data/ and logs/).\n",
		leagueID, manager.LeagueUsage(o.data, leagueID), o.data)
	leagues, err := manager.Leagues(o.data)
	if err != nil || len(leagues) < 2 {
		return
	}
	var all manager.Usage
	for _, l := range leagues {
		u := manager.LeagueUsage(o.data, l.ID)
		all.Files += u.Files
		all.Bytes += u.Bytes
	}
	hint := "-keep N keeps only the last N leagues"
	if o.keep > 0 {
		hint = fmt.Sprintf("-keep %d keeps the last %d", o.keep, o.keep)
	}
	p.printf("%s holds %d leagues, %s; %s.\n", o.data, len(leagues), all, hint)
}
