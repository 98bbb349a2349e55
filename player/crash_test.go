package player_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// The crash test runs this test binary as a child that plays as a player
// against the parent's stand-in manager; the parent acknowledges GAME_OVERs
// through it, kills it with SIGKILL, and finds every acknowledged result
// in the history a new player on the same data root starts with.
const (
	crashLeagueEnv = "PLAYER_CRASH_LEAGUE"
	crashDataEnv   = "PLAYER_CRASH_DATA"
)

func TestPlayerCrashChild(t *testing.T) {
	league, data := os.Getenv(crashLeagueEnv), os.Getenv(crashDataEnv)
	if league == "" {
		t.Skip("runs only as the child of TestKilledPlayerKeepsEveryAcknowledgedResult")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	a, err := player.New(player.Config{Name: "Agent Alpha", League: league, DataRoot: data, Addr: "127.0.0.1:0",
		Strategy: always(leaguesdk.Even)})
	if err != nil {
		fmt.Println("new:", err)
		os.Exit(2)
	}
	go func() {
		<-a.Registered()
		fmt.Println("endpoint", a.Endpoint())
	}()
	_ = a.Run(ctx)
}

func TestKilledPlayerKeepsEveryAcknowledgedResult(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	m := startManager(t, &testManager{})
	data := t.TempDir()
	lines, cmd := startChild(t, "TestPlayerCrashChild", crashLeagueEnv+"="+m.URL, crashDataEnv+"="+data)
	endpoint := make(chan string, 1)
	go func() {
		for line := range lines {
			if ep, ok := strings.CutPrefix(line, "endpoint "); ok {
				endpoint <- ep
			}
		}
	}()
	var ep string
	select {
	case ep = <-endpoint:
	case <-time.After(20 * time.Second):
		t.Fatal("the child player did not register")
	}

	// More results than the history file is rewritten for: most live only
	// in the journal when the player dies.
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	defer c.Close()
	const acked = 45
	for i := 1; i <= acked; i++ {
		over := gameOver(fmt.Sprintf("R%dM1", i), "P01", 2, map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd})
		var ack leaguesdk.Ack
		if err := c.Call(context.Background(), ep, leaguesdk.MethodNotifyMatchResult, over, &ack); err != nil || ack.Status != leaguesdk.AckOK {
			t.Fatalf("GAME_OVER %d: %v %+v", i, err, ack)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	b := runAgent(t, player.Config{League: m.URL, DataRoot: data})
	h := b.History()
	if h.Len() != acked || h.Stats().Wins != acked {
		t.Fatalf("after SIGKILL the history has %d matches (%d wins), want all %d acknowledged", h.Len(), h.Stats().Wins, acked)
	}
	for i, r := range h.Matches() {
		if want := fmt.Sprintf("R%dM1", i+1); r.MatchID != want {
			t.Fatalf("match %d is %s, want %s", i, r.MatchID, want)
		}
	}
}

// startChild runs this test binary as a child process running only the
// test named test, with env added to its environment, and returns the
// lines it prints and its command. The child is killed at the end of the
// test at the latest.
func startChild(t *testing.T, test string, env ...string) (<-chan string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines, cmd
}
