package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// playLeague plays a league of four players whose referee shares the
// manager's data root, over loopback, and returns the data root, the
// league's id and its champion once every agent has stopped.
func playLeague(t *testing.T) (string, string, *leaguesdk.Champion) {
	t.Helper()
	dir := t.TempDir()
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	run := func(what string, f func(context.Context) error) {
		wg.Go(func() {
			if err := f(ctx); err != nil {
				t.Errorf("%s: %v", what, err)
			}
		})
	}
	ln := listen()
	mgr, err := manager.New(manager.Config{LeagueID: "league_viewer", DataRoot: dir, Listener: ln, MinPlayers: 4,
		RegistrationWindow: -1, NoAgentLog: true})
	if err != nil {
		t.Fatal(err)
	}
	run("manager", mgr.Run)
	mcp := "http://" + ln.Addr().String() + "/mcp"
	ref, err := referee.New(referee.Config{Name: "Referee", League: mcp, Listener: listen(), DataRoot: dir,
		RetryDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	run("referee", ref.Run)
	<-ref.Registered()
	for i := range 4 {
		p, err := player.New(player.Config{Name: fmt.Sprintf("Player %d", i+1), League: mcp, Listener: listen(),
			DataRoot: dir, Strategy: player.Random(nil)})
		if err != nil {
			t.Fatal(err)
		}
		run("player", p.Run)
	}
	select {
	case <-mgr.Done():
	case <-time.After(time.Minute):
		t.Fatal("the league did not complete")
	}
	champ := mgr.Champion()
	cancel()
	wg.Wait()
	if champ == nil {
		t.Fatal("no champion")
	}
	return dir, mgr.LeagueID(), champ
}

func TestHTMLFileAndServer(t *testing.T) {
	dir, id, champ := playLeague(t)

	out := filepath.Join(t.TempDir(), "league.html")
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"-data", dir, "-html", out}, &stdout, &stderr, nil); err != nil {
		t.Fatalf("-html: %v (%s)", err, stderr.String())
	}
	page, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="league-data"`, `"champion":{"player_id":"` + champ.PlayerID + `"`, "uPlot", `"match/R1M1"`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the offline file lacks %q", want)
		}
	}
	for _, ref := range []string{`src="`, `href="http`, `<link rel="stylesheet"`} {
		if strings.Contains(string(page), ref) {
			t.Errorf("the offline file loads something (%q)", ref)
		}
	}
	if !strings.Contains(stdout.String(), id) {
		t.Errorf("-html said %q, want the league's id", stdout.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-data", dir, "-port", "0"}, &strings.Builder{}, &stderr, func(u string) { urls <- u })
	}()
	base := <-urls
	resp, err := http.Get(base + "league/" + id + "/api/view/league")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Status   string              `json:"status"`
		Champion *leaguesdk.Champion `json:"champion"`
	}
	err = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if err != nil || info.Status != "COMPLETED" || info.Champion == nil || info.Champion.PlayerID != champ.PlayerID {
		t.Errorf("the served league: %+v (%v), want COMPLETED with champion %s", info, err, champ.PlayerID)
	}
	resp, err = http.Post(base+"league/"+id+"/api/view/league", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405: the viewer is read-only", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the viewer stopped with %v", err)
	}
}
