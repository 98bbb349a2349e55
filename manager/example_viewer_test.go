package manager_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
	"github.com/agentleague/league/referee"
)

// A league that has ended, shown from its data root alone: a league of
// two players is played (its referee keeping its transcripts under the
// same data root) and stopped; a Viewer then serves its pages read-only,
// here one match as the page reads it, and writes the league as one HTML
// file that opens with the network off.
func ExampleViewer() {
	data, err := os.MkdirTemp("", "league-viewer-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(data)
	leagueID := playTwoPlayers(data)

	v, err := manager.NewViewer(manager.ViewerConfig{DataRoot: data})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(v.Handler()) // its pages at /league/<id>/
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/league/" + leagueID + "/api/view/match/R1M1")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		ChoiceA     string `json:"choice_A"`
		ChoiceB     string `json:"choice_B"`
		DrawnNumber int    `json:"drawn_number"`
		Winner      string `json:"winner"`
		Rule        string `json:"rule"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("R1M1: %s vs %s, number %d, %s wins: %s\n", m.ChoiceA, m.ChoiceB, m.DrawnNumber, m.Winner, m.Rule)

	var page strings.Builder
	if err := v.WriteHTML(context.Background(), &page, leagueID); err != nil {
		log.Fatal(err)
	}
	fmt.Println("offline file:", strings.HasPrefix(page.String(), "<!doctype html>"), !strings.Contains(page.String(), `src="`))
	// Output:
	// R1M1: even vs odd, number 1, P02 wins: the player whose choice matches the drawn number's parity wins (3 points), the other loses (0)
	// offline file: true true
}

// playTwoPlayers plays a league of an even and an odd player under data
// root data, the number always 1, and returns its id once every agent has
// stopped.
func playTwoPlayers(data string) string {
	ctx, cancel := context.WithCancel(context.Background())
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		return ln
	}
	var wg sync.WaitGroup
	run := func(f func(context.Context) error) {
		wg.Go(func() {
			if err := f(ctx); err != nil {
				log.Print(err)
			}
		})
	}
	ln := listen()
	league := "http://" + ln.Addr().String() + "/mcp"
	mgr, err := manager.New(manager.Config{Listener: ln, DataRoot: data, MinPlayers: 2, NoAgentLog: true})
	if err != nil {
		log.Fatal(err)
	}
	run(mgr.Run)
	ref, err := referee.New(referee.Config{Name: "Referee", League: league, Listener: listen(), DataRoot: data, Rand: zeros{}})
	if err != nil {
		log.Fatal(err)
	}
	run(ref.Run)
	<-ref.Registered()
	for _, p := range []leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd} {
		a, err := player.New(player.Config{Name: string(p), League: league, Listener: listen(),
			DataRoot: filepath.Join(data, "players"), Strategy: strategies.Always(p)})
		if err != nil {
			log.Fatal(err)
		}
		run(a.Run)
		<-a.Registered()
	}
	<-mgr.Done()
	cancel()
	wg.Wait()
	return mgr.LeagueID()
}
