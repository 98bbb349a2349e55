package referee_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/referee"
)

// A referee is configured, then run until interrupted: it serves, registers
// with the manager (retrying while the manager is not up) and runs the
// matches the manager assigns.
func ExampleNew() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ref, err := referee.New(referee.Config{
		Name:                 "Referee Alpha",
		League:               "http://127.0.0.1:8000/mcp",
		Addr:                 "127.0.0.1:8001",
		MaxConcurrentMatches: 4,
		MoveTimeout:          10 * time.Second,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := ref.Run(ctx); err != nil {
		log.Fatal(err)
	}
}

// The even/odd rules on their own: both players choose, then the number is
// drawn (here from a fixed source, so that the output is known; a referee
// uses crypto/rand).
func ExampleEvenOdd() {
	game, err := referee.EvenOdd{}.NewGame([2]string{"P01", "P02"}, bytes.NewReader([]byte{7})) // draws 8
	if err != nil {
		log.Fatal(err)
	}
	for _, mv := range game.Pending() {
		fmt.Println(mv.PlayerID, "must", mv.MoveType, mv.ValidOptions)
	}
	_ = game.Apply("P01", "even")
	_ = game.Apply("P02", "odd")
	o := game.Outcome()
	fmt.Println(o.Status, o.Winner, o.DrawnNumber, o.Reason)
	// Output:
	// P01 must choose_parity [even odd]
	// P02 must choose_parity [even odd]
	// WIN P01 8 P01 chose even, number was 8 (even)
}

// A registry of game types marshals to the games-registry shape.
func ExampleGames() {
	b, _ := json.MarshalIndent(referee.DefaultGames(), "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "game_registry": {
	//     "even_odd": {
	//       "display_name": "Even/Odd",
	//       "move_types": [
	//         "choose_parity"
	//       ],
	//       "valid_choices": {
	//         "choose_parity": [
	//           "even",
	//           "odd"
	//         ]
	//       },
	//       "min_players": 2,
	//       "max_players": 2,
	//       "rules_module": "referee.EvenOdd"
	//     }
	//   }
	// }
}

// Referees run in one process share one Store: the matches that end at the
// same time on any of them are made durable by one fsync. They may share
// one HTTP client as well (Config.HTTPClient).
func ExampleOpenStore() {
	dataRoot, err := os.MkdirTemp("", "league-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dataRoot)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	mgr, err := manager.New(manager.Config{Listener: ln, DataRoot: dataRoot})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var running sync.WaitGroup
	running.Go(func() { _ = mgr.Run(ctx) })

	store, err := referee.OpenStore(dataRoot)
	if err != nil {
		log.Fatal(err)
	}
	// One HTTP client for both referees: a connection to a player is
	// dialled once for them both.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	for _, name := range []string{"Referee Alpha", "Referee Beta"} {
		ref, err := referee.New(referee.Config{Name: name, League: "http://" + ln.Addr().String() + "/mcp",
			Addr: "127.0.0.1:0", Store: store, HTTPClient: client})
		if err != nil {
			log.Fatal(err)
		}
		running.Go(func() { _ = ref.Run(ctx) })
		<-ref.Registered()
		fmt.Println(name, "registered as", ref.ID())
	}
	stop()
	running.Wait()
	// After the referees: every match file written and durable, the
	// journals removed.
	if err := store.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Referee Alpha registered as REF01
	// Referee Beta registered as REF02
}
