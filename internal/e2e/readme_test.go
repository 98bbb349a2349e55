package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
)

// readmeCommands returns the commands of the README's "A league in seven
// terminals", in their order, each split into its words (double quotes
// group words; a trailing # comment is dropped).
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "\n## A league in seven terminals\n")
	if i < 0 {
		t.Fatal(`README.md has no "A league in seven terminals" section`)
	}
	text = text[i:]
	start := strings.Index(text, "```sh\n")
	end := strings.Index(text[start+6:], "\n```")
	if start < 0 || end < 0 {
		t.Fatal("no shell block in the README's seven terminals")
	}
	var cmds [][]string
	for _, line := range strings.Split(text[start+6:start+6+end], "\n") {
		if c := strings.Index(line, "#"); c >= 0 {
			line = line[:c]
		}
		var words []string
		for _, m := range regexp.MustCompile(`"([^"]*)"|(\S+)`).FindAllStringSubmatch(line, -1) {
			words = append(words, m[1]+m[2])
		}
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
	}
	return cmds
}

// waitOutput waits until p has printed text matching re, and returns the
// match's groups.
func waitOutput(t *testing.T, p *program, re *regexp.Regexp, within time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			return m
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before printing %q:\n%s", p.name, re, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not print %q within %s:\n%s", p.name, re, within, p.out.String())
		}
	}
}

// historyFile is what a test reads of a player's history.json.
type historyFile struct {
	PlayerID    string `json:"player_id"`
	DisplayName string `json:"display_name"`
	LeagueID    string `json:"league_id"`
	Stats       struct {
		TotalMatches int `json:"total_matches"`
		Points       int `json:"points"`
	} `json:"stats"`
	Matches []struct {
		MatchID    string `json:"match_id"`
		LeagueID   string `json:"league_id"`
		OpponentID string `json:"opponent_id"`
		Result     string `json:"result"`
	} `json:"matches"`
}

func readHistory(t *testing.T, data, leagueID, playerID string) historyFile {
	t.Helper()
	var h historyFile
	b, err := os.ReadFile(filepath.Join(data, "data", "players", leagueID, playerID, "history.json"))
	if err == nil {
		err = json.Unmarshal(b, &h)
	}
	if err != nil {
		t.Fatalf("%s's history.json of %s: %v", playerID, leagueID, err)
	}
	return h
}

// checkHistoriesAgainst checks that each player's history.json of the
// league lists exactly its matches of the league, each with the result
// the manager recorded, and stats that agree with the standings.
func checkHistoriesAgainst(t *testing.T, data string, state manager.Snapshot) {
	t.Helper()
	points := map[string]int{}
	for _, r := range state.Standings {
		points[r.PlayerID] = r.Points
	}
	for _, p := range state.Players {
		h := readHistory(t, data, state.LeagueID, p.PlayerID)
		want := map[string]string{} // match → result for p
		for _, m := range state.Matches {
			if m.PlayerAID != p.PlayerID && m.PlayerBID != p.PlayerID {
				continue
			}
			opp := m.PlayerBID
			if opp == p.PlayerID {
				opp = m.PlayerAID
			}
			result := "LOSS"
			switch {
			case m.Result == nil:
				t.Fatalf("%s has no result in a completed league", m.MatchID)
			case string(m.Result.Winner) == p.PlayerID:
				result = "WIN"
			case m.Result.Winner == "":
				result = "DRAW"
			}
			want[m.MatchID+" "+opp] = result
		}
		got := map[string]string{}
		for _, r := range h.Matches {
			if r.LeagueID != state.LeagueID {
				t.Errorf("%s's history of %s holds a record of league %q", p.PlayerID, state.LeagueID, r.LeagueID)
			}
			result := r.Result
			if result == "TECHNICAL_LOSS" {
				result = "LOSS"
			}
			got[r.MatchID+" "+r.OpponentID] = result
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(h.Matches) != len(want) {
			t.Errorf("%s's history.json lists %v, want the league's %v", p.PlayerID, got, want)
		}
		if h.LeagueID != state.LeagueID || h.DisplayName != p.DisplayName || h.Stats.TotalMatches != len(want) || h.Stats.Points != points[p.PlayerID] {
			t.Errorf("%s's history.json: league %q, name %q, %d matches, %d points; want %s, %q, %d, %d",
				p.PlayerID, h.LeagueID, h.DisplayName, h.Stats.TotalMatches, h.Stats.Points, state.LeagueID, p.DisplayName, len(want), points[p.PlayerID])
		}
	}
}

// TestReadmeLeaguesInOneDataRoot follows the README in order, in one data
// root, with the programs built: examples/fourplayer -exit, then the
// seven terminals' commands as written (free ports instead of the fixed
// ones). The second league completes; while every program still runs,
// each player's history.json lists exactly its matches of that league,
// with the league's results, and its stats and last log line are of that
// league alone; the first league's files are still there.
func TestReadmeLeaguesInOneDataRoot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the programs and plays two leagues")
	}
	bin := buildExamples(t, "fourplayer", "manager", "referee", "player")
	data := t.TempDir()

	first := exec.Command(filepath.Join(bin, "fourplayer"), "-ephemeral", "-exit", "-data", data)
	if out, err := first.CombinedOutput(); err != nil {
		t.Fatalf("fourplayer -exit: %v\n%s", err, out)
	}
	leagues, err := manager.Leagues(data)
	if err != nil || len(leagues) != 1 || leagues[0].Status != manager.StatusCompleted {
		t.Fatalf("after fourplayer: leagues %+v (%v)", leagues, err)
	}
	firstID := leagues[0].ID

	var mgr *program
	var league string
	var players []*program
	for i, words := range readmeCommands(t) {
		if len(words) < 3 || words[0] != "go" || words[1] != "run" || !strings.HasPrefix(words[2], "./examples/") {
			t.Fatalf("README command %d is not go run ./examples/…: %q", i+1, words)
		}
		prog := strings.TrimPrefix(words[2], "./examples/")
		args := slices.Clone(words[3:])
		if j := slices.Index(args, "-port"); j >= 0 && j+1 < len(args) {
			args[j+1] = "0" // a free port, not the README's fixed one
		} else {
			args = append(args, "-port", "0")
		}
		args = append(args, "-data", data)
		if prog != "manager" {
			args = append(args, "-league", league)
		}
		p := startCommand(t, fmt.Sprintf("%d %s", i+1, prog), exec.Command(filepath.Join(bin, prog), args...))
		switch prog {
		case "manager":
			mgr = p
			league = waitOutput(t, p, regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`), 30*time.Second)[1]
		default:
			// In the README's order: each registers before the next starts.
			waitOutput(t, mgr, regexp.MustCompile(fmt.Sprintf(`(?s)(registered as .*){%d}`, i)), 30*time.Second)
			if prog == "player" {
				players = append(players, p)
			}
		}
	}

	base := strings.TrimSuffix(league, "/mcp")
	var state manager.Snapshot
	deadline := time.Now().Add(2 * time.Minute)
	for state.Status != manager.StatusCompleted {
		if time.Now().After(deadline) {
			t.Fatalf("the second league did not complete: %+v\nmanager:\n%s", state, mgr.out.String())
		}
		time.Sleep(100 * time.Millisecond)
		resp, err := http.Get(base + "/api/state")
		if err != nil {
			continue
		}
		state = manager.Snapshot{}
		err = json.NewDecoder(resp.Body).Decode(&state)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if state.LeagueID == firstID || len(state.Players) != 4 || len(state.Matches) != 6 {
		t.Fatalf("second league %s with %d players and %d matches, want a new league of 4 and 6", state.LeagueID, len(state.Players), len(state.Matches))
	}

	// Nothing is stopped: every player has acknowledged LEAGUE_COMPLETED,
	// and its history.json holds the league's results.
	checkHistoriesAgainst(t, data, state)
	points := map[string]int{}
	for _, r := range state.Standings {
		points[r.PlayerID] = r.Points
	}
	for i, p := range players {
		id := fmt.Sprintf("P%02d", i+1)
		line := fmt.Sprintf("league %s completed: %s won ", state.LeagueID, id)
		pts := fmt.Sprint(points[id]) + " points"
		if points[id] == 1 {
			pts = "1 point"
		}
		re := regexp.MustCompile(regexp.QuoteMeta(line) + `\d+, drew \d+, lost \d+: ` + pts + `\b`)
		waitOutput(t, p, re, 10*time.Second)
	}

	// The first league's files are all still there, its histories its own.
	for _, path := range manager.LeagueFiles(data, firstID) {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the first league's %s: %v", path, err)
		}
	}
	for i := range 4 {
		h := readHistory(t, data, firstID, fmt.Sprintf("P%02d", i+1))
		if len(h.Matches) != 3 || h.Stats.TotalMatches != 3 || strings.HasPrefix(h.DisplayName, "Agent ") {
			t.Errorf("the first league's %s history: %d matches by %q", h.PlayerID, len(h.Matches), h.DisplayName)
		}
	}
}
