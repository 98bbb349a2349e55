package metrics_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/metrics"
)

// A Metrics is the Observer of an agent (Config.Observer) and serves what
// it counted at GET /metrics (Config.Routes).
func Example() {
	m := metrics.New()
	// An agent given m as its Observer reports each call like this one.
	m.ObserveCall(leaguesdk.CallEvent{Served: true, Method: "register_player", Outcome: "ok", Took: 2 * time.Millisecond})

	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "league_calls_served_total") {
			fmt.Println(line)
		}
	}
	// Output:
	// league_calls_served_total{method="register_player",outcome="ok"} 1
}
