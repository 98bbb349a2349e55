package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// operatorSender is the sender of the start_league calls this program makes.
const operatorSender = "operator:admin"

// startLeague is the program's client mode (-start-league URL): it asks the
// manager at url to start its league now, with the admin token, and prints
// the answer. leagueID is sent when not empty. A manager that is not up yet
// is retried by the client until the call's deadline.
func startLeague(ctx context.Context, url, adminToken, leagueID string, timeout time.Duration, clientTLS *tls.Config, out io.Writer) error {
	if adminToken == "" {
		return errors.New("-start-league needs -admin-token, the token the manager was started with")
	}
	// Retry a manager that is not reachable yet (a pod starting) every
	// second until the deadline, with no breaker to give up earlier.
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{
		Timeout:   timeout,
		Retry:     leaguesdk.RetryPolicy{MaxRetries: math.MaxInt32, Delay: time.Second},
		Breaker:   leaguesdk.BreakerPolicy{Disabled: true},
		TLSConfig: clientTLS,
	})
	defer c.Close()
	req := &leaguesdk.StartLeague{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgStartLeague, operatorSender, adminToken, "", time.Now()),
		LeagueID: leagueID,
	}
	resp, err := leaguesdk.Call[leaguesdk.StartLeagueResponse](ctx, c, url, req)
	if err != nil {
		return fmt.Errorf("start_league at %s: %w", url, err)
	}
	fmt.Fprintf(out, "league %s: %s with %s and %s, %s\n",
		resp.LeagueID, resp.Status, plural(resp.Players, "player"), plural(resp.Referees, "referee"), plural(resp.TotalRounds, "round"))
	return nil
}

// plural writes n and the noun, in the plural unless n is 1: "1 referee",
// "2 referees".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
