package manager_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
)

// managerProcess is examples/manager (or another agent's command) running
// as a process of its own.
type managerProcess struct {
	cmd      *exec.Cmd
	endpoint string // its /mcp URL
	stderr   *syncBuffer
	exited   chan struct{}
}

// syncBuffer is a strings.Builder safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) WriteString(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(v)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listeningLine = regexp.MustCompile(`listening on (http://127\.0\.0\.1:(\d+)/mcp)`)

// startProcess runs the manager binary with args and waits until it says
// where it listens.
func startProcess(t *testing.T, bin string, args ...string) *managerProcess {
	t.Helper()
	return startCommand(t, listeningLine, bin, args...)
}

// startCommand runs bin with args until the test ends and waits for a line
// of its standard error that matches ready, whose first group is the
// agent's endpoint.
func startCommand(t *testing.T, ready *regexp.Regexp, bin string, args ...string) *managerProcess {
	t.Helper()
	cmd := exec.Command(bin, args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &managerProcess{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	found := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			p.stderr.WriteString(line + "\n")
			if m := ready.FindStringSubmatch(line); m != nil {
				found <- m[1]
			}
		}
	}()
	go func() {
		<-copied
		_ = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	select {
	case p.endpoint = <-found:
	case <-p.exited:
		t.Fatalf("%s exited at start:\n%s", filepath.Base(bin), p.stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not say where it listens:\n%s", filepath.Base(bin), p.stderr.String())
	}
	return p
}

// buildBinary builds the command pkg into a temporary directory and
// returns the path of the executable.
func buildBinary(t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", bin, pkg)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// state fetches the process's /api/state.
func (p *managerProcess) state(t *testing.T) (manager.Snapshot, bool) {
	resp, err := http.Get(strings.TrimSuffix(p.endpoint, "/mcp") + "/api/state")
	if err != nil {
		return manager.Snapshot{}, false
	}
	defer resp.Body.Close()
	var s manager.Snapshot
	b, _ := io.ReadAll(resp.Body)
	return s, json.Unmarshal(b, &s) == nil
}

func finished(s manager.Snapshot) int {
	n := 0
	for _, m := range s.Matches {
		if m.Result != nil {
			n++
		}
	}
	return n
}

// crashLeague is a league of 6 players run by examples/manager as a
// process that a test kills with SIGKILL and starts again on the same
// data root and port.
type crashLeague struct {
	t             *testing.T
	bin, dir, id  string
	port          string
	reportTimeout string
	players       int // -min-players, 6 unless set before start
	p             *managerProcess
	outputs       []*syncBuffer // the standard error of every run
}

func startCrashLeague(t *testing.T, leagueID, reportTimeout string) *crashLeague {
	return startCrashLeagueOf(t, 6, leagueID, reportTimeout)
}

// startCrashLeagueOf is startCrashLeague for a league of players players.
func startCrashLeagueOf(t *testing.T, players int, leagueID, reportTimeout string) *crashLeague {
	c := &crashLeague{t: t, bin: buildBinary(t, "github.com/agentleague/league/examples/manager"), dir: t.TempDir(),
		id: leagueID, port: "0", reportTimeout: reportTimeout, players: players}
	c.start()
	c.port = listeningLine.FindStringSubmatch(c.p.stderr.String())[2]
	return c
}

func (c *crashLeague) start() {
	c.p = startProcess(c.t, c.bin, "-port", c.port, "-data", c.dir, "-league-id", c.id, "-min-players", fmt.Sprint(c.players),
		"-registration-window", "-1s", "-report-timeout", c.reportTimeout, "-start-match-timeout", "5s",
		"-broadcast-timeout", "1s", "-retry-delay", "50ms")
	c.outputs = append(c.outputs, c.p.stderr)
}

// restart kills the manager with SIGKILL and starts it again.
func (c *crashLeague) restart() {
	c.t.Helper()
	if err := c.p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatal(err)
	}
	<-c.p.exited
	c.start()
	if !strings.Contains(c.p.stderr.String(), "status RUNNING") {
		c.t.Errorf("restarted manager does not resume a running league:\n%s", c.p.stderr.String())
	}
}

// completed waits for the league to complete and checks its books: every
// match (15 of 6 players) recorded once, and standings equal to those
// recomputed from the records on disk, which it returns with the final
// snapshot.
func (c *crashLeague) completed() (manager.Snapshot, []manager.MatchRecord) {
	t := c.t
	t.Helper()
	var final manager.Snapshot
	waitFor(t, 90*time.Second, "the league to complete", func() bool {
		s, ok := c.p.state(t)
		final = s
		return ok && s.Status == manager.StatusCompleted
	})
	records, err := manager.LoadResults(c.dir, c.id)
	if err != nil {
		t.Fatal(err)
	}
	want := c.players * (c.players - 1) / 2
	if len(records) != want || finished(final) != want {
		t.Fatalf("%d records on disk, %d finished matches, want %d", len(records), finished(final), want)
	}
	seen := map[string]bool{}
	for _, r := range records {
		if seen[r.MatchID] {
			t.Fatalf("%s recorded twice", r.MatchID)
		}
		seen[r.MatchID] = true
	}
	var entrants []manager.Entrant
	for i, row := range final.Standings {
		if row.State != string(manager.StateShutdown) {
			t.Errorf("%s is %s after the league's end, want SHUTDOWN", row.PlayerID, row.State)
		}
		final.Standings[i].State = ""
	}
	for _, pl := range final.Players {
		entrants = append(entrants, manager.Entrant{PlayerID: pl.PlayerID, DisplayName: pl.DisplayName})
	}
	if got, want := fmt.Sprint(final.Standings), fmt.Sprint(manager.ComputeStandings(entrants, records, nil)); got != want {
		t.Fatalf("final standings\n%s\nwant (recomputed from the records)\n%s", got, want)
	}
	return final, records
}

// TestKillAndRestartProcess runs examples/manager as a process with real
// referees and players, kills it with SIGKILL twice during the league, and
// starts it again each time on the same data root and port. The league
// completes; every match is recorded once, and the final standings are
// those computed from the match records on disk.
func TestKillAndRestartProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a manager process")
	}
	t.Parallel()
	c := startCrashLeague(t, "league_crash", "2s")
	startReferee(t, c.p.endpoint, "Referee Alpha", refereeOptions{capacity: 2})
	startReferee(t, c.p.endpoint, "Referee Beta", refereeOptions{capacity: 2})
	startPlayers(t, c.p.endpoint, 6, slow(15*time.Millisecond))

	for _, killAt := range []int{3, 8} {
		waitFor(t, 30*time.Second, fmt.Sprintf("%d results", killAt), func() bool {
			s, ok := c.p.state(t)
			return ok && finished(s) >= killAt
		})
		c.restart()
	}
	final, _ := c.completed()
	if final.Champion == nil || final.Champion.PlayerID != final.Standings[0].PlayerID {
		t.Errorf("champion %+v", final.Champion)
	}
	p := c.p

	// A clean stop on SIGTERM.
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		t.Fatal("manager did not stop on SIGTERM")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d after SIGTERM:\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "rank") {
		t.Logf("output of the last run:\n%s", p.stderr.String())
	}
}
