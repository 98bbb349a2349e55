package store_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/store"
)

// exampleManager serves the registration of a league manager: enough for
// the examples to register players.
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

// Players run in one process share one Store: the results of players
// whose matches end at the same time are made durable by one fsync.
func ExampleOpen() {
	manager := exampleManager()
	defer manager.Close()
	dataRoot, err := os.MkdirTemp("", "league-data")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dataRoot)

	s, err := store.Open(dataRoot)
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var running sync.WaitGroup
	for _, name := range []string{"Agent Alpha", "Agent Beta", "Agent Gamma"} {
		a, err := player.New(player.Config{Name: name, League: manager.URL + "/mcp", Addr: "127.0.0.1:0", Store: s})
		if err != nil {
			log.Fatal(err)
		}
		running.Go(func() { _ = a.Run(ctx) })
		<-a.Registered()
		fmt.Println(name, "registered as", a.ID())
	}
	stop()
	running.Wait()
	// After the players: every history.json complete, the journal removed.
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Agent Alpha registered as P01
	// Agent Beta registered as P02
	// Agent Gamma registered as P03
}
