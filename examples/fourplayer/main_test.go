package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
)

// syncBuffer is a strings.Builder safe for the agents' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestRunPlaysAWholeLeagueAndWritesTheDataLayer(t *testing.T) {
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stdout, stderr syncBuffer
	code := run(ctx, []string{"-ephemeral", "-exit", "-data", data}, &stdout, &stderr)
	out := stdout.String()
	if code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr.String())
	}

	// Progress: registrations in the exercise's order, every round and
	// match, then the final table and the champion.
	for _, want := range []string{
		"REF01 Referee Alpha", "REF02 Referee Beta",
		"P01   Random Rita", "P02   Even Eddie", "P03   Odd Olive", "P04   Hannah History",
		"Round 1\n", "Round 2\n", "Round 3\n", "Round 3 completed",
		"Final standings", "Champion: P0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "REF02"), strings.Index(out, "P01 "); i < 0 || j < i {
		t.Errorf("the players registered before the referees:\n%s", out)
	}
	results := regexp.MustCompile(`(?m)^  R\dM\d +P0\d .* (even|odd|no choice), P0\d .*; number \d+ → .*$`).FindAllString(out, -1)
	if len(results) != 6 {
		t.Errorf("got %d match results with choices and number, want 6:\n%s", len(results), out)
	}
	table := regexp.MustCompile(`(?m)^  [1-4] +P0[1-4] .* 3 +\d +\d +\d +\d+$`).FindAllString(out, -1)
	if len(table) != 4 {
		t.Errorf("the final table has %d rows of 3 matches each, want 4:\n%s", len(table), out)
	}

	// The data and log layers.
	leagues, err := filepath.Glob(filepath.Join(data, "data", "leagues", "*"))
	if err != nil || len(leagues) != 1 {
		t.Fatalf("want one league under data/leagues, got %v (%v)", leagues, err)
	}
	id := filepath.Base(leagues[0])
	files := []string{
		"config/system.json",
		"config/leagues/" + id + ".json",
		"config/games/games_registry.json",
		"data/leagues/" + id + "/standings.json",
		"data/leagues/" + id + "/rounds.json",
		"logs/league/" + id + "/league.log.jsonl",
		"logs/agents/league_manager.log.jsonl",
		"logs/agents/REF01.log.jsonl",
		"logs/agents/REF02.log.jsonl",
	}
	for r := 1; r <= 3; r++ {
		for m := 1; m <= 2; m++ {
			files = append(files, fmt.Sprintf("data/matches/%s/R%dM%d.json", id, r, m))
		}
	}
	for p := 1; p <= 4; p++ {
		files = append(files, fmt.Sprintf("data/players/%s/P%02d/history.json", id, p), fmt.Sprintf("logs/agents/P%02d.log.jsonl", p))
	}
	token := regexp.MustCompile(`tok_[0-9a-f]{32}`)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(data, f))
		if err != nil {
			t.Errorf("the data root lacks %s: %v", f, err)
			continue
		}
		if len(b) == 0 {
			t.Errorf("%s is empty", f)
		}
		if strings.HasSuffix(f, ".jsonl") && token.Match(b) {
			t.Errorf("%s holds an auth token", f)
		}
	}
	// The players' shared history store is closed: every history.json
	// holds the player's three matches, and no journal is left.
	checkHistories(t, data, id)
	if !strings.Contains(out, "League "+id+"'s files take ") {
		t.Errorf("the output does not say how much the league's files take:\n%s", out)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "data", "players", ".journal", "*.jsonl")); len(left) > 0 {
		t.Errorf("the players' history journals are left after the league: %v", left)
	}
}

func TestRunExplainsAPortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port

	var stdout, stderr syncBuffer
	o := options{data: t.TempDir(), players: 2, referees: 1, ports: ports{manager: port, referee: port, player: port}}
	err = runLeague(context.Background(), o, &stdout, &stderr)
	if err == nil {
		t.Fatal("runLeague succeeded on a port in use")
	}
	for _, want := range []string{fmt.Sprintf("port %d is already in use", port), "-ephemeral"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-players", "1"},
		{"-players", "60000"}, // past port 65535
		{"-referees", "101"},  // into the players' ports
		{"-referees", "0"},
		{"-progress", "sometimes"},
		{"-manager", "localhost:8000"},
		{"-manager", "127.0.0.1:8000"},      // no scheme
		{"-manager", "ftp://127.0.0.1/mcp"}, // not HTTP
		{"-unknown"},
		{"stray"},
	} {
		var stdout, stderr syncBuffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("run %q = %d, want 2 (stderr %q)", args, code, stderr.String())
		}
		if stderr.String() == "" {
			t.Errorf("run %q said nothing on stderr", args)
		}
	}
	var stdout, stderr syncBuffer
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-ephemeral") {
		t.Errorf("run -h = %d, %q; want 0 and the flags", code, stderr.String())
	}
}

// TestRunShowsABigLeagueOneLinePerRound plays 12 players (past the cap of
// 99 the command once had, the fixed ports would hold them too): the
// output has one progress line per round with the matches done, the rate
// and the time left, and no line per match or per registration.
func TestRunShowsABigLeagueOneLinePerRound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stdout, stderr syncBuffer
	code := run(ctx, []string{"-ephemeral", "-exit", "-players", "12", "-referees", "3", "-data", t.TempDir()}, &stdout, &stderr)
	out := stdout.String()
	if code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr.String())
	}
	lines := regexp.MustCompile(`(?m)^round (\d+) of 11: (\d+)/66 matches, \d+ matches/s(, about \S+ left|, less than a second left)?$`).FindAllStringSubmatch(out, -1)
	if len(lines) != 11 {
		t.Fatalf("%d round lines, want 11:\n%s", len(lines), out)
	}
	if last := lines[10]; last[1] != "11" || last[2] != "66" {
		t.Errorf("the last round line is %q, want round 11 with 66/66 matches", last[0])
	}
	if strings.Contains(out, " vs ") || strings.Count(out, "registered at") != 3 { // the three referees only
		t.Errorf("per-match or per-player lines in a league shown per round:\n%s", out)
	}
	if !strings.Contains(out, "12 players registered") || !strings.Contains(out, "Final standings") {
		t.Errorf("no registration count or final table:\n%s", out)
	}
}

func TestRoundLine(t *testing.T) {
	p := &progress{matches: 499500, rounds: 999, done: 1500}
	if got, want := p.roundLine(3, 2*time.Second), "round 3 of 999: 1500/499500 matches, 750 matches/s, about 11m4s left"; got != want {
		t.Errorf("roundLine = %q, want %q", got, want)
	}
	p.done = 0
	if got, want := p.roundLine(1, time.Second), "round 1 of 999: 0/499500 matches"; got != want {
		t.Errorf("roundLine with nothing done = %q, want %q", got, want)
	}
	// Near the end and at it, no "about 0s left".
	p = &progress{matches: 1000, rounds: 10, done: 999}
	if got, want := p.roundLine(10, time.Second), "round 10 of 10: 999/1000 matches, 999 matches/s, less than a second left"; got != want {
		t.Errorf("roundLine near the end = %q, want %q", got, want)
	}
	p.done = 1000
	if got, want := p.roundLine(10, time.Second), "round 10 of 10: 1000/1000 matches, 1000 matches/s"; got != want {
		t.Errorf("roundLine at the end = %q, want %q", got, want)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 referees", 1: "1 referee", 2: "2 referees"} {
		if got := plural(n, "referee"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRunStopsCleanlyWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-ephemeral", "-data", t.TempDir(), "-players", "4"}, &stdout, &stderr)
	}()
	cancel()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(stderr.String(), "stopped") {
			t.Errorf("interrupted run = %d, stderr %q; want 1 and a word on why", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}

// Interrupted mid-league, the command stops its referees first: the
// matches they have in flight end, are reported to the manager and
// written settled, and only then do the manager and the players stop. No
// match the referees started is left unreported, and no referee waits out
// its ShutdownGrace for players or a manager already gone.
func TestInterruptedLeagueLeavesNoMatchUnreported(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data := t.TempDir()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-ephemeral", "-exit", "-players", "24", "-referees", "2", "-progress", "match", "-data", data}, &stdout, &stderr)
	}()
	// Interrupted as round 4's first match goes to its referee.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stdout.String(), "R4M") {
		if time.Now().After(deadline) {
			t.Fatalf("round 4 never started:\n%s\n%s", stdout.String(), stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case code := <-done:
		if code != 1 {
			t.Errorf("interrupted run = %d, want 1", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
	if strings.Contains(stderr.String(), "not reported") {
		t.Errorf("a result was not reported:\n%s", stderr.String())
	}
	files, err := filepath.Glob(filepath.Join(data, "data", "matches", "*", "R*M*.json"))
	if err != nil || len(files) < 3*12 {
		t.Fatalf("%d match files, want at least the 36 of rounds 1–3 (%v)", len(files), err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			State    string `json:"state"`
			Reported bool   `json:"reported"`
		}
		if err := json.Unmarshal(raw, &tr); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if tr.State != "FINISHED" || !tr.Reported {
			t.Errorf("%s: state %s, reported %v; want every match started finished and reported", filepath.Base(f), tr.State, tr.Reported)
		}
	}
}

// Without -exit, the dashboard printed at the start outlives the league:
// after the champion, the command says it keeps serving and does, until
// its context ends (Ctrl-C), and then exits 0.
func TestRunKeepsServingTheDashboardUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-ephemeral", "-data", t.TempDir(), "-players", "2", "-referees", "1"}, &stdout, &stderr)
	}()
	deadline := time.After(60 * time.Second)
	for !strings.Contains(stdout.String(), "Ctrl-C") {
		select {
		case code := <-done:
			t.Fatalf("run returned %d before saying it keeps serving:\n%s\n%s", code, stdout.String(), stderr.String())
		case <-deadline:
			t.Fatalf("no word about serving on:\n%s", stdout.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	out := stdout.String()
	if !strings.Contains(out, "Champion: ") || !strings.Contains(out, "-exit") {
		t.Errorf("the output does not show the champion and the -exit flag:\n%s", out)
	}
	url := regexp.MustCompile(`dashboard: (http://\S+/)`).FindStringSubmatch(out)
	if url == nil {
		t.Fatalf("no dashboard URL in:\n%s", out)
	}
	for _, path := range []string{"", "api/state"} {
		resp, err := http.Get(url[1] + path)
		if err != nil {
			t.Fatalf("the dashboard is gone after the league: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s%s = %d after the league", url[1], path, resp.StatusCode)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("Ctrl-C after the league: exit %d, want 0 (stderr %q)", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
}

// TestRunJoinsAManagerElsewhere runs the referees and players of a league
// whose manager runs on its own (-manager), as the 1000-player measurement
// of the manager's heap does: the league completes and the final table
// comes from the manager's GET /api/state.
func TestRunJoinsAManagerElsewhere(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Config{Listener: ln, DataRoot: t.TempDir(), MinPlayers: 6, LeagueID: "league_elsewhere",
		Logger: slog.New(slog.DiscardHandler), NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mctx, stopManager := context.WithCancel(ctx)
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- mgr.Run(mctx) }()
	defer func() {
		stopManager()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	}()

	out := runJoining(ctx, t, mgr, "-ephemeral", "-exit", "-players", "6", "-referees", "2", "-data", t.TempDir(),
		"-manager", "http://"+ln.Addr().String()+"/mcp")
	if !regexp.MustCompile(`(?m)^round 5 of 5: 15/15 matches`).MatchString(out) || !strings.Contains(out, "Final standings") ||
		!strings.Contains(out, "Champion: P0") {
		t.Errorf("no last round line, final table or champion:\n%s", out)
	}
	if strings.Contains(out, "dashboard") {
		t.Errorf("a run without a manager of its own announces a dashboard:\n%s", out)
	}
	// Shown per round, the default with -manager: a line per round with
	// the matches done at its end, and no line per match.
	lines := regexp.MustCompile(`(?m)^round (\d+) of 5: (\d+)/15 matches, \d+ matches/s(, about \S+ left|, less than a second left)?$`).FindAllStringSubmatch(out, -1)
	if len(lines) != 5 {
		t.Fatalf("%d round lines, want 5:\n%s", len(lines), out)
	}
	for i, l := range lines {
		if want := []string{strconv.Itoa(i + 1), strconv.Itoa(3 * (i + 1))}; l[1] != want[0] || l[2] != want[1] {
			t.Errorf("round line %q, want round %s with %s matches done", l[0], want[0], want[1])
		}
	}
	if !strings.Contains(out, "6 players registered") || strings.Contains(out, " vs ") {
		t.Errorf("no registration count, or per-match lines:\n%s", out)
	}
}

// runJoining runs the command with args, which join mgr with -manager and
// -exit, and returns its output once it has exited 0 after mgr's league
// completed.
func runJoining(ctx context.Context, t *testing.T, mgr *manager.Manager, args ...string) string {
	t.Helper()
	var stdout, stderr syncBuffer
	code := run(ctx, args, &stdout, &stderr)
	out := stdout.String()
	if code != 0 {
		t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr.String())
	}
	// The manager's status, not its Done: GET /api/state shows COMPLETED
	// as soon as the status changes, while Done closes only after the
	// manager has also written its final files.
	if st := mgr.Status(); st != manager.StatusCompleted {
		t.Fatalf("run returned while the manager's league was %s:\n%s", st, out)
	}
	return out
}

// startManager runs a real manager on a free port with its data in a
// directory of its own, until the test ends, and returns it with its
// endpoint.
func startManager(t *testing.T, minPlayers int) (*manager.Manager, string, string) {
	t.Helper()
	data := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Config{Listener: ln, DataRoot: data, MinPlayers: minPlayers, RegistrationWindow: -1})
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the manager's Run: %v", err)
		}
	})
	return mgr, "http://" + ln.Addr().String() + "/mcp", data
}

// With -manager and -progress match, the league the manager runs is
// shown, through its GET /api/state, as a manager of the command's own
// would show it: registrations, every round and match, the final table.
func TestRunJoinsAManagerOfItsOwn(t *testing.T) {
	mgr, url, managerData := startManager(t, 4)
	data := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out := runJoining(ctx, t, mgr, "-manager", url, "-ephemeral", "-exit", "-players", "4", "-referees", "1", "-progress", "match", "-data", data)
	for _, want := range []string{
		"the manager at " + url, "REF01 Referee Alpha", "P01   Random Rita", "P04   Hannah History",
		"Round 1\n", "Round 2\n", "Round 3\n", "Round 3 completed", "Final standings",
		"Champion: " + mgr.Champion().PlayerID,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, " vs "); n != 6 {
		t.Errorf("%d matches shown as assigned, want 6:\n%s", n, out)
	}
	results := regexp.MustCompile(`(?m)^  R\dM\d +P0\d .* (even|odd|no choice), P0\d .*; number \d+ → .*$`).FindAllString(out, -1)
	if len(results) != 6 {
		t.Errorf("got %d match results, want 6:\n%s", len(results), out)
	}
	if table := regexp.MustCompile(`(?m)^  [1-4] +P0[1-4] .* 3 +\d +\d +\d +\d+$`).FindAllString(out, -1); len(table) != 4 {
		t.Errorf("the final table has %d rows of 3 matches each, want 4:\n%s", len(table), out)
	}

	// The manager's files are under its own data root; the players' and
	// the referee's under the command's.
	if files, _ := filepath.Glob(filepath.Join(managerData, "data", "leagues", "*", "standings.json")); len(files) != 1 {
		t.Errorf("the manager's data root holds %v, want one standings.json", files)
	}
	if files, _ := filepath.Glob(filepath.Join(data, "data", "leagues", "*")); len(files) != 0 {
		t.Errorf("the command's data root holds a league of a manager: %v", files)
	}
	if files, _ := filepath.Glob(filepath.Join(data, "data", "matches", "*", "R*M*.json")); len(files) != 6 {
		t.Errorf("the referee wrote %d match files, want 6: %v", len(files), files)
	}
	checkHistories(t, data, mgr.LeagueID())
}

// A manager that does not answer is waited for, and then given up on.
func TestRunGivesUpOnAManagerThatDoesNotAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	ln.Close() // nothing listens there now
	var stdout, stderr syncBuffer
	o := options{data: t.TempDir(), players: 2, referees: 1, ephemeral: true, progress: "match", manager: url, managerWait: 300 * time.Millisecond}
	err = runLeague(context.Background(), o, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "no manager answers at http://"+ln.Addr().String()) {
		t.Fatalf("runLeague = %v, want it to say that no manager answers", err)
	}
	if !strings.Contains(stdout.String(), "waiting for the manager") {
		t.Errorf("no word about waiting:\n%s", stdout.String())
	}
}

// checkHistories checks that the history.json of each of the four players
// under data holds the player's three matches.
func checkHistories(t *testing.T, data, leagueID string) {
	t.Helper()
	for p := 1; p <= 4; p++ {
		var h struct {
			Matches []json.RawMessage `json:"matches"`
		}
		b, err := os.ReadFile(filepath.Join(data, "data", "players", leagueID, fmt.Sprintf("P%02d", p), "history.json"))
		if err == nil {
			err = json.Unmarshal(b, &h)
		}
		if err != nil || len(h.Matches) != 3 {
			t.Errorf("P%02d's history.json holds %d matches, want 3 (%v)", p, len(h.Matches), err)
		}
	}
}

// Each referee runs its share of a round at once, never fewer matches
// than a referee's default.
func TestRefereeCapacityHoldsARound(t *testing.T) {
	for _, tc := range []struct{ players, referees, want int }{
		{4, 2, 2}, {12, 3, 2}, {7, 1, 3}, {200, 10, 10}, {1000, 50, 10}, {1001, 50, 10}, {1000, 3, 167},
	} {
		got := refereeCapacity(tc.players, tc.referees)
		if got != tc.want {
			t.Errorf("refereeCapacity(%d, %d) = %d, want %d", tc.players, tc.referees, got, tc.want)
		}
		if perRound := tc.players / 2; got*tc.referees < perRound {
			t.Errorf("%d players, %d referees: room for %d matches at once, a round has %d", tc.players, tc.referees, got*tc.referees, perRound)
		}
	}
}

// The referees' shared client keeps a connection for each report of a
// round: a second round of as many reports at once as the referees run
// matches, all to one manager, dials no new connection. (With 64 idle
// connections to a host, as before, each round of a 200-player league
// dialled 36 connections anew and closed them.)
func TestRefereeClientKeepsARoundOfReportsConnected(t *testing.T) {
	const players, referees = 200, 2
	reports := referees * refereeCapacity(players, referees) // 100 at once
	var mu sync.Mutex
	dialled, arrived := 0, 0
	release := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if arrived++; arrived%reports == 0 {
			close(release) // every report of the round is in: all are answered
		}
		wait := release
		mu.Unlock()
		select {
		case <-wait:
		case <-time.After(10 * time.Second):
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			mu.Lock()
			dialled++
			mu.Unlock()
		}
	}
	srv.Start()
	defer srv.Close()
	c := refereeClient(players, referees)
	defer c.CloseIdleConnections()
	round := func() {
		var wg sync.WaitGroup
		for range reports {
			wg.Go(func() {
				resp, err := c.Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{}`))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
	}
	round()
	mu.Lock()
	first := dialled
	release = make(chan struct{})
	mu.Unlock()
	round()
	mu.Lock()
	defer mu.Unlock()
	if first != reports {
		t.Fatalf("the first round dialled %d connections, want %d (one a report)", first, reports)
	}
	if again := dialled - first; again != 0 {
		t.Errorf("the second round dialled %d connections anew, want 0", again)
	}
}
