package chaos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// strangerStats counts the answers the strangers got.
type strangerStats struct {
	sent, limited, answered, timeouts, refused atomic.Int64
}

func (s *strangerStats) String() string {
	return fmt.Sprintf("%d queries, %d answered 429, %d answered otherwise, %d timed out, %d not connected (manager down)",
		s.sent.Load(), s.limited.Load(), s.answered.Load(), s.timeouts.Load(), s.refused.Load())
}

// strangers sends LEAGUE_QUERYs with a token the manager never issued to
// the manager's own address, perSecond of them a second, until stop.
type strangers struct {
	stats  *strangerStats
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// strangerWorkers is how many strangers send at once.
const strangerWorkers = 8

func newStrangers(url string, perSecond int) *strangers {
	ctx, cancel := context.WithCancel(context.Background())
	s := &strangers{stats: &strangerStats{}, cancel: cancel}
	q := &leaguesdk.LeagueQuery{
		Envelope:    leaguesdk.NewEnvelope(leaguesdk.MsgLeagueQuery, leaguesdk.PlayerSender("P01"), "tok_00000000000000000000000000000000", "", time.Now()),
		LeagueID:    "league_chaos",
		QueryType:   leaguesdk.QueryStandings,
		QueryParams: &leaguesdk.QueryParams{PlayerID: "P01"},
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": leaguesdk.MethodLeagueQuery, "params": q})
	if err != nil {
		panic(err)
	}
	every := time.Second * strangerWorkers / time.Duration(max(perSecond, 1))
	for range strangerWorkers {
		s.wg.Go(func() {
			c := &http.Client{Timeout: 3 * time.Second}
			defer c.CloseIdleConnections()
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				s.stats.sent.Add(1)
				resp, err := c.Post(url, "application/json", bytes.NewReader(body))
				switch {
				case err != nil && isTimeout(err):
					s.stats.timeouts.Add(1)
				case err != nil:
					s.stats.refused.Add(1)
				default:
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == http.StatusTooManyRequests {
						s.stats.limited.Add(1)
					} else {
						s.stats.answered.Add(1)
					}
				}
			}
		})
	}
	return s
}

func (s *strangers) stop() {
	s.cancel()
	s.wg.Wait()
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}
