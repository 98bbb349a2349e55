package manager_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"os"
	"sync"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
	"github.com/agentleague/league/referee"
)

// zeros is a random source that always draws the same number, so that the
// example's output is always the same.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// A whole league in one process: a manager, a referee and four players,
// each on its own loopback listener, exactly as they would run on separate
// machines. The referee's number is fixed here (it is 1, odd, every time),
// so the odd players win every match against the even ones.
func Example_league() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data, err := os.MkdirTemp("", "league-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(data)
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		return ln
	}
	var wg sync.WaitGroup
	run := func(f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil {
				log.Print(err)
			}
		}()
	}
	defer wg.Wait() // after cancel: every agent has stopped

	ln := listen()
	league := "http://" + ln.Addr().String() + "/mcp"
	mgr, err := manager.New(manager.Config{Listener: ln, DataRoot: data, MinPlayers: 4})
	if err != nil {
		log.Fatal(err)
	}
	run(mgr.Run)

	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: league, Listener: listen(), DataRoot: data, Rand: zeros{}})
	if err != nil {
		log.Fatal(err)
	}
	run(ref.Run)
	<-ref.Registered()

	for _, p := range []struct {
		name   string
		parity leaguesdk.Parity
	}{{"Eve", leaguesdk.Even}, {"Otto", leaguesdk.Odd}, {"Evan", leaguesdk.Even}, {"Olga", leaguesdk.Odd}} {
		a, err := player.New(player.Config{Name: p.name, League: league, Listener: listen(), DataRoot: data, Strategy: strategies.Always(p.parity)})
		if err != nil {
			log.Fatal(err)
		}
		run(a.Run)
		<-a.Registered()
	}

	<-mgr.Done()
	for _, row := range mgr.Standings() {
		fmt.Printf("%d %s %-4s W%d D%d L%d %d points\n", row.Rank, row.PlayerID, row.DisplayName, row.Wins, row.Draws, row.Losses, row.Points)
	}
	fmt.Println("champion:", mgr.Champion().PlayerID)
	cancel()
	// Output:
	// 1 P02 Otto W2 D1 L0 7 points
	// 2 P04 Olga W2 D1 L0 7 points
	// 3 P01 Eve  W0 D1 L2 1 points
	// 4 P03 Evan W0 D1 L2 1 points
	// champion: P02
}
