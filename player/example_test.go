package player_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// A strategy is a function of what the player knows. This one picks the
// other parity than the opponent mostly chose: no draws, and half the
// decisive games.
func ExampleStrategyFunc() {
	beat := player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (player.Parity, error) {
		if c.History.Against(c.OpponentID).OpponentMostly() == player.Even {
			return player.Odd, nil
		}
		return player.Even, nil
	})

	past := player.NewHistory(
		player.MatchRecord{MatchID: "R1M1", OpponentID: "P02", Result: player.Win, MyChoice: player.Odd, OpponentChoice: player.Even},
		player.MatchRecord{MatchID: "R2M1", OpponentID: "P03", Result: player.Draw, MyChoice: player.Odd, OpponentChoice: player.Odd},
	)
	for _, opponent := range []string{"P02", "P03"} {
		choice, _ := beat.ChooseParity(context.Background(), player.ParityCall{MatchID: "R4M1", OpponentID: opponent, History: past})
		fmt.Printf("against %s: %s\n", opponent, choice)
	}
	// Output:
	// against P02: odd
	// against P03: even
}

// exampleManager is a stand-in league manager that accepts every player,
// the first as P01, the second as P02…
func exampleManager() *httptest.Server {
	var registered atomic.Int32
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return leaguesdk.LeagueManagerSender }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodRegisterPlayer, Public: true},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.LeagueRegisterRequest) (*leaguesdk.LeagueRegisterResponse, error) {
			return &leaguesdk.LeagueRegisterResponse{
				Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender,
					leaguesdk.NewToken(), in.ConversationID, time.Now()),
				Status: leaguesdk.StatusAccepted, PlayerID: fmt.Sprintf("P%02d", registered.Add(1)), LeagueID: "league_2025_even_odd",
			}, nil
		})
	return httptest.NewServer(srv)
}

// Running an agent: it serves, registers, and plays until its context ends.
func ExampleAgent_Run() {
	manager := exampleManager()
	defer manager.Close()

	dataRoot, err := os.MkdirTemp("", "league-data") // the history is kept here
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dataRoot)

	ln, err := net.Listen("tcp", "127.0.0.1:0") // or leave Listener nil and set Addr
	if err != nil {
		log.Fatal(err)
	}
	a, err := player.New(player.Config{
		Name:     "Agent Alpha",
		League:   manager.URL + "/mcp",
		Listener: ln,
		DataRoot: dataRoot,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()

	<-a.Registered()
	fmt.Println("registered as", a.ID())
	stop() // in a program: signal.NotifyContext(ctx, os.Interrupt)
	fmt.Println("stopped:", <-done)
	// Output:
	// registered as P01
	// stopped: <nil>
}
