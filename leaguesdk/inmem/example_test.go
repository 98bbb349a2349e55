package inmem_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"sync"

	"github.com/agentleague/league/leaguesdk/inmem"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// A league of one process, with no socket: every agent gets a Listener
// of the Network, so that its Run opens no port, and the Network's
// client, through which it reaches the others' handlers.
func Example() {
	dir, err := os.MkdirTemp("", "league")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var n inmem.Network
	defer n.Close() // once the agents have stopped
	ctx, stop := context.WithCancel(context.Background())
	var agents sync.WaitGroup
	defer agents.Wait()
	defer stop()
	run := func(f func(context.Context) error) { agents.Go(func() { _ = f(ctx) }) }

	m, err := manager.New(manager.Config{Listener: n.Listener("manager"), HTTPClient: n.Client(), DataRoot: dir, MinPlayers: 3})
	if err != nil {
		log.Fatal(err)
	}
	n.Handle("manager", m.Handler())
	run(m.Run)

	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: inmem.Endpoint("manager"),
		Listener: n.Listener("referee"), HTTPClient: n.Client(), DataRoot: dir})
	if err != nil {
		log.Fatal(err)
	}
	n.Handle("referee", ref.Handler())
	run(ref.Run)
	<-ref.Registered()

	var players []*player.Agent
	for _, name := range []string{"Agent Alpha", "Agent Beta", "Agent Gamma"} {
		host := fmt.Sprintf("player%d", len(players)+1)
		p, err := player.New(player.Config{Name: name, League: inmem.Endpoint("manager"),
			Listener: n.Listener(host), HTTPClient: n.Client(), DataRoot: dir})
		if err != nil {
			log.Fatal(err)
		}
		n.Handle(host, p.Handler())
		run(p.Run)
		<-p.Registered()
		players = append(players, p)
	}

	<-m.Done()
	fmt.Println(len(m.Results()), "matches recorded")
	for _, p := range players {
		fmt.Println(p.ID(), "at", p.Endpoint(), "played", p.History().Len())
	}
	// Output:
	// 3 matches recorded
	// P01 at http://player1/mcp played 2
	// P02 at http://player2/mcp played 2
	// P03 at http://player3/mcp played 2
}
