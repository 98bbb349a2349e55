package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests of this file run the league's standalone programs, built from
// examples/, as processes on loopback: what the manifests run in pods,
// scaled and restarted the way Kubernetes does it.

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// programDir builds the programs the manifests run (manager, referee,
// player), and the model player the process tests run for slow matches,
// once for the test binary, and returns their directory.
func programDir(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "league-programs-"); buildErr != nil {
			return
		}
		build := exec.Command("go", "build", "-o", binDir+string(filepath.Separator), "./examples/manager", "./examples/referee", "./examples/player",
			"./examples/modelplayer")
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

// syncBuffer is a bytes.Buffer safe for a process's output and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// process is a program running as a child of the test.
type process struct {
	name string
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
	err  error // once done is closed
}

// start runs the program bin with args and env added to the test's
// environment; the test's cleanup stops it (SIGTERM, then SIGKILL) and
// waits for it.
func start(t *testing.T, name, bin string, env []string, args ...string) *process {
	t.Helper()
	p := &process{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(filepath.Join(programDir(t), bin), args...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop(10 * time.Second)
		if t.Failed() {
			t.Logf("%s printed:\n%s", name, p.out.String())
		}
	})
	return p
}

// stop sends SIGTERM and waits up to within for the process to end, then
// kills it.
func (p *process) stop(within time.Duration) {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(within):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// await returns the first submatch of re in the process's output, waiting
// for it until within has passed.
func (p *process) await(t *testing.T, re *regexp.Regexp, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			return m[1]
		}
		select {
		case <-p.done:
			t.Fatalf("%s ended (%v) before printing %s:\n%s", p.name, p.err, re, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not print %s within %v:\n%s", p.name, re, within, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// thinkingModel serves the generate-content API the model players' llm
// strategy calls: it answers even or odd at random, after delay, so that each match
// lasts a while and a league of real processes can be scaled mid-way.
func thinkingModel(t *testing.T, delay time.Duration) []string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		word := []string{"even", "odd"}[rand.IntN(2)]
		_ = json.NewEncoder(w).Encode(map[string]any{
			"candidates": []any{map[string]any{"content": map[string]any{"parts": []any{map[string]string{"text": word}}}}}})
	}))
	t.Cleanup(srv.Close)
	return []string{"LEAGUE_LLM_BASE_URL=" + srv.URL, "LEAGUE_LLM_MODEL=thinker", "LEAGUE_LLM_API_KEY=test"}
}

// leagueState is what the tests read of the manager's GET /api/state.
type leagueState struct {
	LeagueID string `json:"league_id"`
	Status   string `json:"status"`
	Referees []struct {
		ID       string `json:"referee_id"`
		Endpoint string `json:"endpoint"`
		Active   int    `json:"active_matches"`
		State    string `json:"state"`
	} `json:"referees"`
	Players []struct {
		ID          string `json:"player_id"`
		DisplayName string `json:"display_name"`
		Endpoint    string `json:"endpoint"`
	} `json:"players"`
	Matches []struct {
		ID      string `json:"match_id"`
		Status  string `json:"status"`
		PlayerA string `json:"player_A_id"`
		PlayerB string `json:"player_B_id"`
		Result  *struct {
			Status string `json:"status"`
		} `json:"result"`
	} `json:"matches"`
	Totals struct {
		Scheduled, Finished, Running int
	} `json:"totals"`
}

// leagueProcs is a manager process and what the tests need to reach it.
type leagueProcs struct {
	t       *testing.T
	base    string // http://127.0.0.1:port
	token   string
	manager *process
	env     []string // of the players: the thinking model
}

// startLeague runs a manager that waits for start_league, on a free port.
func startLeague(t *testing.T, model time.Duration) *leagueProcs {
	t.Helper()
	l := &leagueProcs{t: t, token: "tok_" + strconv.FormatUint(rand.Uint64(), 16), env: thinkingModel(t, model)}
	l.manager = start(t, "manager", "manager", nil, "-port=0", "-data="+t.TempDir(), "-league-id=league_scaling",
		"-min-players=-1", "-registration-window=-1s", "-admin-token="+l.token, "-report-timeout=30s")
	mcp := l.manager.await(t, regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`), 20*time.Second)
	l.base = strings.TrimSuffix(mcp, "/mcp")
	return l
}

func (l *leagueProcs) url() string { return l.base + "/mcp" }

// refereeProc is a referee process with what makes it the same referee
// when started again: its name, data root and port.
type refereeProc struct {
	*process
	name, data string
	port       int
}

// referee runs a referee process of capacity one called name, on a port
// and a data root of its own, and returns it with its referee id once it
// has registered.
func (l *leagueProcs) referee(name string) (*refereeProc, string) {
	l.t.Helper()
	return l.restartReferee(&refereeProc{name: name, data: l.t.TempDir(), port: freePort(l.t)})
}

// restartReferee starts r again on its name, data root and port, as a
// StatefulSet brings a pod back with its claim and its DNS name.
func (l *leagueProcs) restartReferee(r *refereeProc) (*refereeProc, string) {
	l.t.Helper()
	p := start(l.t, r.name, "referee", nil, "-port="+strconv.Itoa(r.port), "-league="+l.url(), "-name="+r.name, "-data="+r.data,
		"-max-concurrent=1", "-grace=30s", "-retries=3", "-retry-delay=1s")
	again := &refereeProc{process: p, name: r.name, data: r.data, port: r.port}
	return again, p.await(l.t, regexp.MustCompile(`msg=registered .*?referee_id=(REF\d+)`), 20*time.Second)
}

// player runs a player process of the llm strategy (the model player
// program, examples/modelplayer, on the thinking model), with data root
// data, on port (0 for any), and returns it with its player id once it has
// registered.
func (l *leagueProcs) player(name, data string, port int) (*process, string) {
	l.t.Helper()
	p := start(l.t, name, "modelplayer", l.env, "-port="+strconv.Itoa(port), "-league="+l.url(), "-name="+name, "-data="+data,
		"-strategy=llm")
	return p, p.await(l.t, regexp.MustCompile(`msg=registered .*?player_id=(P\d+)`), 20*time.Second)
}

// startPlay starts the league through the manager program's client mode,
// as the start-league Job does.
func (l *leagueProcs) startPlay() {
	l.t.Helper()
	out, err := exec.Command(filepath.Join(programDir(l.t), "manager"), "-start-league="+l.url(), "-admin-token="+l.token).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "STARTED") {
		l.t.Fatalf("start-league: %v\n%s", err, out)
	}
}

// state reads the manager's state.
func (l *leagueProcs) state() leagueState {
	l.t.Helper()
	resp, err := http.Get(l.base + "/api/state?round=all")
	if err != nil {
		l.t.Fatal(err)
	}
	defer resp.Body.Close()
	var s leagueState
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		l.t.Fatal(err)
	}
	return s
}

// until polls the manager's state until cond holds, for up to a minute.
func (l *leagueProcs) until(what string, cond func(leagueState) bool) leagueState {
	l.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		s := l.state()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("waiting for %s: the league is %s, %d of %d matches finished", what, s.Status, s.Totals.Finished, s.Totals.Scheduled)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkNoTechnicalLoss checks that the league completed with every match
// played to a result that is not a technical loss.
func checkNoTechnicalLoss(t *testing.T, s leagueState) {
	t.Helper()
	if s.Status != "COMPLETED" || s.Totals.Finished != s.Totals.Scheduled || len(s.Matches) != s.Totals.Scheduled {
		t.Errorf("league %s with %d of %d matches finished (%d listed)", s.Status, s.Totals.Finished, s.Totals.Scheduled, len(s.Matches))
	}
	for _, m := range s.Matches {
		if m.Result == nil || m.Result.Status == "TECHNICAL_LOSS" {
			t.Errorf("match %s (%s vs %s): %s, result %+v", m.ID, m.PlayerA, m.PlayerB, m.Status, m.Result)
		}
	}
}

// TestRefereesScaleMidLeague plays a league of six players over real
// processes while its referees are scaled the way an autoscaler does: two
// referees of capacity one start it, two more join after the first
// results, and then two referees that are running a match are stopped
// with SIGTERM. Each stopped referee finishes its match, reports it and
// exits cleanly; one of them, started again on its name, data root and
// address, comes back under its referee id; the joiners take matches; the
// league completes with every match played and no technical loss.
func TestRefereesScaleMidLeague(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a league of processes")
	}
	l := startLeague(t, 300*time.Millisecond)
	refs := map[string]*refereeProc{}
	for _, name := range []string{"league-referee-0", "league-referee-1"} {
		p, id := l.referee(name)
		refs[id] = p
	}
	for i := range 6 {
		l.player(fmt.Sprintf("league-player-%d", i), t.TempDir(), 0)
	}
	l.startPlay()

	// Scale out once results come in.
	l.until("the first result", func(s leagueState) bool { return s.Totals.Finished >= 1 })
	var joined []string
	for _, name := range []string{"league-referee-2", "league-referee-3"} {
		p, id := l.referee(name)
		refs[id] = p
		joined = append(joined, id)
	}

	// Scale in mid-league: stop two referees while each runs a match.
	var busy []string
	s := l.until("two referees running a match, half-way", func(s leagueState) bool {
		busy = busy[:0]
		for _, r := range s.Referees {
			if r.Active > 0 {
				busy = append(busy, r.ID)
			}
		}
		return len(busy) >= 2 && s.Totals.Finished >= 4
	})
	if s.Status != "RUNNING" || s.Totals.Finished == s.Totals.Scheduled {
		t.Fatalf("the league is %s before the scale-in", s.Status)
	}
	stopped := busy[:2]
	drained := map[string]*process{}
	for _, id := range stopped {
		drained[id] = refs[id].process
		_ = drained[id].cmd.Process.Signal(syscall.SIGTERM)
	}
	for _, id := range stopped {
		p := drained[id]
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("referee %s did not stop within its grace", id)
		}
		if p.err != nil {
			t.Errorf("referee %s exited with %v", id, p.err)
		}
		if strings.Contains(p.out.String(), "abort") {
			t.Errorf("referee %s aborted matches on its way out:\n%s", id, p.out.String())
		}
	}

	// Scaled out again, the first of them comes back as itself: the same
	// name, data root and address, the same referee id.
	back, backID := l.restartReferee(refs[stopped[0]])
	if backID != stopped[0] {
		t.Errorf("referee %s started again registered as %s", stopped[0], backID)
	}
	refs[stopped[0]] = back

	final := l.until("the league to complete", func(s leagueState) bool { return s.Status == "COMPLETED" })
	checkNoTechnicalLoss(t, final)
	if len(final.Referees) != 4 {
		t.Errorf("the manager has %d referees, want the 4 started", len(final.Referees))
	}
	// The referees that joined mid-league took matches.
	for _, id := range joined {
		if n := logged(refs[id].process, "result reported"); n == 0 {
			t.Errorf("referee %s joined mid-league and ran no match", id)
		}
	}
	// The stopped ones ran theirs to the end, the one in play when SIGTERM
	// came included: every match they accepted was played and reported.
	for _, id := range stopped {
		p := drained[id]
		if accepted := logged(p, "match accepted"); accepted == 0 || logged(p, "match finished") != accepted || logged(p, "result reported") != accepted {
			t.Errorf("referee %s accepted %d matches, finished %d and reported %d", id, accepted, logged(p, "match finished"), logged(p, "result reported"))
		}
	}
	checkMonitoredSeries(t, l, refs)
}

// logged counts the lines of a referee's log with message msg: "match
// accepted", "match finished", "result reported".
func logged(p *process, msg string) int {
	return strings.Count(p.out.String(), `msg="`+msg+`"`)
}

// checkMonitoredSeries checks that every series the monitoring component
// and the queue autoscaling read is exported by the manager, a referee or
// a player still running after the league.
func checkMonitoredSeries(t *testing.T, l *leagueProcs, refs map[string]*refereeProc) {
	t.Helper()
	exported := map[string]bool{}
	scrape := func(base string) {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Errorf("GET %s/metrics: %v", base, err)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, m := range regexp.MustCompile(`(?m)^(league_[a-z_]+)`).FindAllStringSubmatch(string(body), -1) {
			exported[m[1]] = true
		}
	}
	scrape(l.base)
	for _, p := range refs {
		select {
		case <-p.done:
			continue
		default:
		}
		scrape(strings.TrimSuffix(p.await(t, regexp.MustCompile(`msg=registered .*?endpoint=(http://\S+)/mcp`), time.Second), "/mcp"))
	}
	used := monitoredSeries(t)
	for _, name := range used {
		if !exported[name] {
			t.Errorf("the monitoring reads %s, which no agent exports", name)
		}
	}
	if !slices.Contains(used, "league_matches_waiting") {
		t.Errorf("monitored series %v", used)
	}
}

// freePort returns a loopback port that was free a moment ago: a player
// restarted on it keeps its endpoint, as a pod keeps its DNS name.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestKilledPlayerComesBackAsItself kills a player process mid-league
// (SIGKILL, as when its node dies) and starts it again with the same data
// root, name and endpoint, as a StatefulSet pod comes back with its volume
// and DNS name: it registers with the token it kept, gets its id back and
// plays its remaining matches as itself, and its history holds all of
// them.
func TestKilledPlayerComesBackAsItself(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a league of processes")
	}
	l := startLeague(t, 200*time.Millisecond)
	l.referee("league-referee-0")
	l.referee("league-referee-1")
	data, port := t.TempDir(), freePort(t)
	phoenix, id := l.player("league-player-0", data, port)
	for i := 1; i < 4; i++ {
		l.player(fmt.Sprintf("league-player-%d", i), t.TempDir(), 0)
	}
	l.startPlay()

	played := func(s leagueState) (finished, all int) {
		for _, m := range s.Matches {
			if m.PlayerA == id || m.PlayerB == id {
				all++
				if m.Status == "FINISHED" {
					finished++
				}
			}
		}
		return finished, all
	}
	s := l.until("the player's first result", func(s leagueState) bool { f, _ := played(s); return f >= 1 })
	if f, all := played(s); f == all || s.Status != "RUNNING" {
		t.Fatalf("the player has played %d of its %d matches, league %s: nothing left to play", f, all, s.Status)
	}
	_ = phoenix.cmd.Process.Kill()
	<-phoenix.done

	again, againID := l.player("league-player-0", data, port)
	if againID != id {
		t.Fatalf("the restarted player registered as %s, want %s", againID, id)
	}
	final := l.until("the league to complete", func(s leagueState) bool { return s.Status == "COMPLETED" })
	checkNoTechnicalLoss(t, final)
	if len(final.Players) != 4 {
		t.Errorf("the manager has %d players, want 4", len(final.Players))
	}
	// Its history, kept on its data root across the kill, holds every one
	// of its matches: the restarted process played the rest as itself. The
	// player rewrites the file when it stops (its journal holds the results
	// meanwhile), as a pod does on SIGTERM.
	again.stop(10 * time.Second)
	if again.err != nil {
		t.Errorf("the restarted player exited with %v", again.err)
	}
	var history struct {
		PlayerID string            `json:"player_id"`
		Matches  []json.RawMessage `json:"matches"`
	}
	path := filepath.Join(data, "data", "players", final.LeagueID, id, "history.json") // one file per league
	raw, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(raw, &history)
	}
	if err != nil || len(history.Matches) != 3 || history.PlayerID != id {
		t.Errorf("%s: %v; %d matches of %s, want 3 of %s", path, err, len(history.Matches), history.PlayerID, id)
	}
	if !regexp.MustCompile(`msg=registered .*?player_id=` + id + ` .*history_matches=[1-9]`).MatchString(again.out.String()) {
		t.Errorf("the restarted player did not find its history:\n%s", again.out.String())
	}
}

// monitoredSeries returns the names of the series the monitoring and the
// queue autoscaling components read: the agents must export each of them.
func monitoredSeries(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, dir := range []string{"monitoring", "autoscaling-queue"} {
		files, err := filepath.Glob(filepath.Join(componentsRoot, dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if filepath.Base(f) == "kustomization.yaml" {
				continue
			}
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range regexp.MustCompile(`\bleague_[a-z_]+\b`).FindAllString(string(raw), -1) {
				if n != "league_dashboard" && !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	}
	slices.Sort(names)
	return names
}
