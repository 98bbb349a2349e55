package playertest_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"time"

	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/playertest"
)

// Check runs the suite against a player endpoint and returns the report;
// here the endpoint is this module's player, served on a loopback port.
func ExampleCheck() {
	dataRoot, err := os.MkdirTemp("", "playertest-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dataRoot)
	agent, err := player.New(player.Config{Name: "Example Player", League: "http://127.0.0.1:8000/mcp", DataRoot: dataRoot})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(agent.Handler())
	defer srv.Close()

	rep, err := playertest.Check(context.Background(), srv.URL+"/mcp", playertest.Options{ChoiceDeadline: 5 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d checks, %d failed\n", len(rep.Checks), rep.Failed)
	for _, id := range []string{"health", "tool.choose_parity.spec", "choice.parity", "robust.malformed"} {
		c, _ := rep.Find(id)
		fmt.Printf("%s: %s (%s)\n", c.ID, c.Status, c.Rule)
	}
	// Output:
	// 36 checks, 0 failed
	// health: pass (PROFILE §Transport)
	// tool.choose_parity.spec: pass (PROFILE §Methods)
	// choice.parity: pass (PROFILE §Envelope (E004), §Game and scoring)
	// robust.malformed: pass (PROFILE §Transport (JSON-RPC errors))
}
