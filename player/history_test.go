package player_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
)

// learner records what the agent teaches it.
type learner struct {
	player.Strategy
	mu      sync.Mutex
	learned []player.MatchRecord
	tables  [][]leaguesdk.StandingRow
}

func (l *learner) Learn(_ context.Context, m player.MatchRecord) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.learned = append(l.learned, m)
}

func (l *learner) ObserveStandings(_ context.Context, _ int, table []leaguesdk.StandingRow) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tables = append(l.tables, table)
}

func (l *learner) snapshot() ([]player.MatchRecord, [][]leaguesdk.StandingRow) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]player.MatchRecord(nil), l.learned...), append([][]leaguesdk.StandingRow(nil), l.tables...)
}

func TestHistoryIsRecordedOnceAndSurvivesRestart(t *testing.T) {
	dataRoot := t.TempDir()
	m := startManager(t, &testManager{})
	l := &learner{Strategy: always(leaguesdk.Even)}
	a, _, stop := startAgent(t, player.Config{League: m.URL, DataRoot: dataRoot, Strategy: l})
	<-a.Registered()
	announce(t, a, "R1M1")

	// Match 1: invited, chose even, won.
	call(t, a, leaguesdk.MethodHandleGameInvitation, invitation("R1M1", "P01", "P02", leaguesdk.PlayerA), new(leaguesdk.GameJoinAck))
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P01", "P02", 5*time.Second), new(leaguesdk.ChooseParityResponse))
	over := gameOver("R1M1", "P01", 8, map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd})
	var ack leaguesdk.Ack
	call(t, a, leaguesdk.MethodNotifyMatchResult, over, &ack)
	if ack.MessageType != leaguesdk.MsgAck || ack.Status != leaguesdk.AckOK || ack.AuthToken != playerToken || ack.MatchID != "R1M1" {
		t.Fatalf("ack = %+v", ack)
	}
	// The same GAME_OVER again must not count twice.
	call(t, a, leaguesdk.MethodNotifyMatchResult, over, &ack)
	// Match 2: never invited, never asked; lost by a technical loss.
	tl := gameOver("R2M1", "P03", 0, map[string]leaguesdk.Parity{"P03": leaguesdk.Odd})
	tl.GameResult.Status = leaguesdk.ResultTechnicalLoss
	tl.GameResult.NumberParity = ""
	call(t, a, leaguesdk.MethodNotifyMatchResult, tl, &ack)
	// Match 3: a draw.
	call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver("R3M1", "", 3, map[string]leaguesdk.Parity{"P01": leaguesdk.Odd, "P04": leaguesdk.Odd}), &ack)

	want := []player.MatchRecord{
		{MatchID: "R1M1", LeagueID: testLeague, RoundID: 1, GameType: leaguesdk.GameEvenOdd, OpponentID: "P02", Role: leaguesdk.PlayerA,
			Result: player.Win, MyChoice: leaguesdk.Even, OpponentChoice: leaguesdk.Odd, DrawnNumber: 8, NumberParity: leaguesdk.Even},
		{MatchID: "R2M1", LeagueID: testLeague, GameType: leaguesdk.GameEvenOdd, OpponentID: "P03", Result: player.TechnicalLoss,
			OpponentChoice: leaguesdk.Odd},
		{MatchID: "R3M1", LeagueID: testLeague, GameType: leaguesdk.GameEvenOdd, OpponentID: "P04", Result: player.Draw,
			MyChoice: leaguesdk.Odd, OpponentChoice: leaguesdk.Odd, DrawnNumber: 3, NumberParity: leaguesdk.Odd},
	}
	check := func(t *testing.T, h player.History) {
		t.Helper()
		got := h.Matches()
		if len(got) != len(want) {
			t.Fatalf("history has %d matches, want %d: %+v", len(got), len(want), got)
		}
		for i := range want {
			g := got[i]
			if g.FinishedAt == "" {
				t.Errorf("match %d has no finished_at", i)
			}
			g.FinishedAt = ""
			if g != want[i] {
				t.Errorf("match %d = %+v\nwant %+v", i, g, want[i])
			}
		}
		s := h.Stats()
		if s != (player.Stats{TotalMatches: 3, Wins: 1, Losses: 1, Draws: 1, TechnicalLosses: 1, Points: 4}) {
			t.Errorf("stats = %+v", s)
		}
	}
	check(t, a.History())
	if learned, _ := l.snapshot(); len(learned) != 3 || learned[0].MatchID != "R1M1" || learned[0].Result != player.Win {
		t.Fatalf("learned %+v, want each match once", learned)
	}

	// Restart: a new agent on the same data root, registered as P01 again,
	// knows its past.
	stop()
	// The file of the data layer, complete once the player has stopped.
	raw, err := os.ReadFile(filepath.Join(dataRoot, "data", "players", testLeague, "P01", "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		SchemaVersion string           `json:"schema_version"`
		LastUpdated   string           `json:"last_updated"`
		PlayerID      string           `json:"player_id"`
		Stats         map[string]int   `json:"stats"`
		Matches       []map[string]any `json:"matches"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if _, err := leaguesdk.ParseTime(file.LastUpdated); err != nil || file.SchemaVersion != "1.0.0" || file.PlayerID != "P01" ||
		file.Stats["total_matches"] != 3 || file.Stats["wins"] != 1 || len(file.Matches) != 3 ||
		file.Matches[0]["my_choice"] != "even" || file.Matches[0]["opponent_choice"] != "odd" || file.Matches[0]["drawn_number"] != 8.0 {
		t.Fatalf("history.json = %s", raw)
	}

	seen := make(chan player.History, 1)
	b := runAgent(t, player.Config{League: m.URL, DataRoot: dataRoot, Strategy: player.StrategyFunc(
		func(_ context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
			seen <- c.History
			return leaguesdk.Even, nil
		})})
	check(t, b.History())
	call(t, b, leaguesdk.MethodChooseParity, parityCall("R4M1", "P01", "P02", 5*time.Second), new(leaguesdk.ChooseParityResponse))
	h := <-seen
	check(t, h)
	if even, odd := h.Against("P02").OpponentChoices(); even != 0 || odd != 1 {
		t.Fatalf("opponent P02 chose even %d, odd %d times", even, odd)
	}
	// A GAME_OVER repeated after the restart is still not counted twice.
	call(t, b, leaguesdk.MethodNotifyMatchResult, over, &ack)
	check(t, b.History())
}

func TestResultIsReadFromThePlayersPointOfView(t *testing.T) {
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL})
	tests := []struct {
		status leaguesdk.ResultStatus
		winner string
		want   player.Result
	}{
		{leaguesdk.ResultWin, "P01", player.Win},
		{leaguesdk.ResultWin, "player:P01", player.Win},
		{leaguesdk.ResultWin, "P02", player.Loss},
		{leaguesdk.ResultDraw, "", player.Draw},
		{leaguesdk.ResultTechnicalLoss, "P01", player.Win},
		{leaguesdk.ResultTechnicalLoss, "P02", player.TechnicalLoss},
		{leaguesdk.ResultTechnicalLoss, "", player.TechnicalLoss}, // both failed
	}
	for i, tc := range tests {
		over := gameOver("M"+string(rune('A'+i)), tc.winner, 4, map[string]leaguesdk.Parity{"P01": "even", "P02": "odd"})
		over.GameResult.Status = tc.status
		call(t, a, leaguesdk.MethodNotifyMatchResult, over, new(leaguesdk.Ack))
	}
	got := a.History().Matches()
	if len(got) != len(tests) {
		t.Fatalf("%d records, want %d", len(got), len(tests))
	}
	for i, tc := range tests {
		if got[i].Result != tc.want || got[i].OpponentID != "P02" {
			t.Errorf("%s won by %q: recorded %s against %q, want %s", tc.status, tc.winner, got[i].Result, got[i].OpponentID, tc.want)
		}
	}
}

// TestUnreadableHistoryIsNotOverwritten: a history file that does not
// decode is left for its owner to repair; the player plays on from memory.
func TestUnreadableHistoryIsNotOverwritten(t *testing.T) {
	dataRoot := t.TempDir()
	path := filepath.Join(dataRoot, "data", "players", testLeague, "P01", "history.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := startManager(t, &testManager{})
	a := runAgent(t, player.Config{League: m.URL, DataRoot: dataRoot})
	call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver("R1M1", "P01", 2, map[string]leaguesdk.Parity{"P01": "even", "P02": "odd"}), new(leaguesdk.Ack))
	if a.History().Len() != 1 {
		t.Fatalf("history in memory has %d matches", a.History().Len())
	}
	if raw, _ := os.ReadFile(path); string(raw) != "{not json" {
		t.Fatalf("unreadable history overwritten with %s", raw)
	}
}

// TestReplayGameOverSupersedes: a GAME_OVER of a later attempt replaces the
// recorded result of the same match, in memory and in the history file;
// one of the same or an earlier attempt (or without one, which counts as
// attempt 1) is a repeat and changes nothing.
func TestReplayGameOverSupersedes(t *testing.T) {
	dataRoot := t.TempDir()
	m := startManager(t, &testManager{})
	a, _, stop := startAgent(t, player.Config{League: m.URL, DataRoot: dataRoot, Strategy: always(leaguesdk.Even)})
	<-a.Registered()
	var ack leaguesdk.Ack
	results := func() []player.Result {
		var out []player.Result
		for _, r := range a.History().Matches() {
			out = append(out, r.Result)
		}
		return out
	}

	// Attempt 1 (no attempt field): a win.
	call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver("R1M1", "P01", 8, map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}), &ack)
	// Attempt 2, the replay: a draw. It supersedes.
	replay := gameOver("R1M1", "", 3, map[string]leaguesdk.Parity{"P01": leaguesdk.Odd, "P02": leaguesdk.Odd})
	replay.Attempt = 2
	call(t, a, leaguesdk.MethodNotifyMatchResult, replay, &ack)
	if got := results(); len(got) != 1 || got[0] != player.Draw {
		t.Fatalf("after the replay: %v, want [DRAW]", got)
	}
	// The first attempt's GAME_OVER arriving late, explicit or not, is a repeat.
	late := gameOver("R1M1", "P01", 8, map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd})
	call(t, a, leaguesdk.MethodNotifyMatchResult, late, &ack)
	late.Attempt = 1
	call(t, a, leaguesdk.MethodNotifyMatchResult, late, &ack)
	if got := results(); len(got) != 1 || got[0] != player.Draw {
		t.Fatalf("after late repeats: %v, want [DRAW]", got)
	}
	if st := a.History().Stats(); st.TotalMatches != 1 || st.Draws != 1 || st.Wins != 0 || st.Points != 1 {
		t.Errorf("stats %+v", st)
	}
	stop()

	// The file holds the replay's result, with its attempt.
	b, err := os.ReadFile(filepath.Join(dataRoot, "data", "players", testLeague, "P01", "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Matches []player.MatchRecord `json:"matches"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Matches) != 1 || f.Matches[0].Result != player.Draw || f.Matches[0].Attempt != 2 {
		t.Errorf("history file: %+v", f.Matches)
	}
}

// playAsP02 registers a player called name on root with m, which names
// it P02, has it win the matches, stops it and returns its history.
func playAsP02(t *testing.T, root string, m *testManager, name string, matches ...string) player.History {
	t.Helper()
	startManager(t, m)
	a, _, stop := startAgent(t, player.Config{League: m.URL, DataRoot: root, Name: name})
	<-a.Registered()
	var ack leaguesdk.Ack
	for _, id := range matches {
		call(t, a, leaguesdk.MethodNotifyMatchResult, gameOver(id, "P02", 4, map[string]leaguesdk.Parity{"P02": leaguesdk.Even, "P01": leaguesdk.Odd}), &ack)
	}
	h := a.History()
	stop()
	return h
}

// A history is one agent's in one league: a player given, in another
// league on the same data root, the id another agent had in the first
// reads none of its records; each league's file stays; a player started
// again in its league keeps its history; and EarlierLeagues finds a
// player's own earlier leagues by its name.
func TestHistoryIsOneAgentsInOneLeague(t *testing.T) {
	root := t.TempDir()
	play := func(league, name string, matches ...string) player.History {
		t.Helper()
		return playAsP02(t, root, &testManager{playerID: "P02", league: league}, name, matches...)
	}
	if h := play("league_one", "Odd Olive", "R1M1", "R2M1", "R3M1"); h.Len() != 3 {
		t.Fatalf("first league: %d matches, want 3", h.Len())
	}
	if h := play("league_two", "Agent Beta"); h.Len() != 0 {
		t.Fatalf("P02 of the second league starts with %d matches of another agent's: %+v", h.Len(), h.Matches())
	}
	if h := play("league_two", "Agent Beta", "R1M2"); h.Len() != 1 || h.Stats().Points != 3 {
		t.Fatalf("P02 of the second league, started again: %+v, want its one match", h.Matches())
	}
	for league, want := range map[string]int{"league_one": 3, "league_two": 1} {
		raw, err := os.ReadFile(filepath.Join(root, "data", "players", league, "P02", "history.json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			LeagueID string           `json:"league_id"`
			Manager  string           `json:"manager"`
			Matches  []map[string]any `json:"matches"`
		}
		if err := json.Unmarshal(raw, &f); err != nil || f.LeagueID != league || f.Manager == "" || len(f.Matches) != want {
			t.Errorf("%s's history.json = %s (%v), want %d matches of it", league, raw, err, want)
		}
	}
	earlier, err := pstore.EarlierLeagues(root, "Odd Olive", "league_three")
	if err != nil || len(earlier) != 1 || earlier[0].LeagueID != "league_one" || earlier[0].History.Len() != 3 || earlier[0].PlayerID != "P02" {
		t.Errorf("EarlierLeagues(Odd Olive) = %+v, %v; want league_one's 3 matches", earlier, err)
	}
	if earlier, err := pstore.EarlierLeagues(root, "Agent Beta", "league_two"); err != nil || len(earlier) != 0 {
		t.Errorf("EarlierLeagues(Agent Beta) = %+v, %v; want none: the other P02's are not its own", earlier, err)
	}
}

// A league id used again on a data root (its manager's files removed, say)
// by another manager gives the id P02 to another agent: the earlier
// P02's history file is kept aside, not read.
func TestAnotherAgentsHistoryOfTheSameLeagueIsSetAside(t *testing.T) {
	root := t.TempDir()
	play := func(token, name string, matches ...string) player.History {
		t.Helper()
		return playAsP02(t, root, &testManager{playerID: "P02", league: "league_again", token: token}, name, matches...)
	}
	play("tok_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "Ada", "R1M1", "R2M1")
	if h := play("tok_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "Bo"); h.Len() != 0 {
		t.Fatalf("Bo, P02 of the league used again, starts with %d of Ada's matches", h.Len())
	}
	aside, err := filepath.Glob(filepath.Join(root, "data", "players", "league_again", "P02", "history.*.json"))
	if err != nil || len(aside) != 1 {
		t.Fatalf("set aside: %v (%v), want Ada's file", aside, err)
	}
	raw, err := os.ReadFile(aside[0])
	var f struct {
		DisplayName string            `json:"display_name"`
		Matches     []json.RawMessage `json:"matches"`
	}
	if err == nil {
		err = json.Unmarshal(raw, &f)
	}
	if err != nil || f.DisplayName != "Ada" || len(f.Matches) != 2 {
		t.Errorf("the file set aside: %s (%v), want Ada's two matches", raw, err)
	}
}
