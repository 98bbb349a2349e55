package manager_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// serveCounted serves h on a loopback listener, counting the protocol calls
// (POST requests) it receives, and returns its /mcp endpoint.
func serveCounted(b *testing.B, h http.Handler, calls *atomic.Int64) (string, *http.Server) {
	return serveCountedOn(b, listen(b), h, calls)
}

func serveCountedOn(b *testing.B, ln net.Listener, h http.Handler, calls *atomic.Int64) (string, *http.Server) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			calls.Add(1)
		}
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp", srv
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkLeague100 plays a full league of 100 players that answer at once
// (always even or always odd) with 4 referees: 99 rounds, 4950 matches,
// everything over HTTP on loopback with the real referee and player of this
// module. It reports matches/s, protocol calls/s (every POST any agent
// received), the heap the manager retains after the league, and the peak
// heap of the whole process (manager, referees and players together).
//
//	go test -run '^$' -bench BenchmarkLeague100 -benchtime 1x ./manager/
func BenchmarkLeague100(b *testing.B) {
	const players, referees = 100, 4
	for range b.N {
		b.StopTimer()
		base := heapInUse()
		var calls atomic.Int64
		cfg := fastConfig(b, b.TempDir())
		cfg.MinPlayers = players
		cfg.Listener = listen(b)
		m, err := manager.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		mcp, _ := serveCounted(b, m.Handler(), &calls)
		ctx, cancel := context.WithCancel(context.Background())
		mgrDone := make(chan error, 1)
		go func() { mgrDone <- m.Run(ctx) }()

		var stops []func()
		for i := range referees {
			ln := listen(b)
			ref, err := referee.New(referee.Config{Name: fmt.Sprintf("Referee %d", i+1), League: mcp,
				Endpoint: "http://" + ln.Addr().String() + "/mcp", MaxConcurrentMatches: (players/2 + referees - 1) / referees,
				JoinTimeout: 2 * time.Second, MoveTimeout: 2 * time.Second, RetryDelay: 50 * time.Millisecond,
				ReportTimeout: 2 * time.Second, ShutdownGrace: time.Second, DataRoot: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			_, srv := serveCountedOn(b, ln, ref.Handler(), &calls)
			if err := ref.Register(ctx); err != nil {
				b.Fatal(err)
			}
			stops = append(stops, func() { _ = ref.Shutdown(context.Background()); srv.Close(); srv.Handler = nil })
		}
		var agents []*player.Agent
		for i := range players {
			ln := listen(b)
			a, err := player.New(player.Config{Name: fmt.Sprintf("Player %d", i+1), League: mcp,
				Endpoint: "http://" + ln.Addr().String() + "/mcp", DataRoot: b.TempDir(),
				Strategy: always([]leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd}[i%2])})
			if err != nil {
				b.Fatal(err)
			}
			_, srv := serveCountedOn(b, ln, a.Handler(), &calls)
			stops = append(stops, func() { srv.Close(); srv.Handler = nil })
			agents = append(agents, a)
		}
		var peak atomic.Uint64
		stopSampling := make(chan struct{})
		var sampling sync.WaitGroup
		sampling.Add(1)
		go func() {
			defer sampling.Done()
			var ms runtime.MemStats
			for {
				select {
				case <-stopSampling:
					return
				case <-time.After(100 * time.Millisecond):
					runtime.ReadMemStats(&ms)
					if ms.HeapAlloc > peak.Load() {
						peak.Store(ms.HeapAlloc)
					}
				}
			}
		}()

		callsBefore := calls.Load()
		b.StartTimer()
		start := time.Now()
		for _, a := range agents {
			if err := a.Register(ctx); err != nil {
				b.Fatal(err)
			}
		}
		select {
		case <-m.Done():
		case <-time.After(10 * time.Minute):
			b.Fatalf("league not completed: %+v", m.Snapshot().Status)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		close(stopSampling)
		sampling.Wait()

		if n := len(m.Results()); n != players*(players-1)/2 {
			b.Fatalf("%d results, want %d", n, players*(players-1)/2)
		}
		totalCalls := calls.Load() - callsBefore
		for _, stop := range stops {
			stop()
		}
		agents, stops = nil, nil
		after := heapInUse()
		retained := after - min(base, after)
		b.ReportMetric(float64(len(m.Results()))/elapsed.Seconds(), "matches/s")
		b.ReportMetric(float64(totalCalls)/elapsed.Seconds(), "calls/s")
		b.ReportMetric(float64(totalCalls), "calls")
		b.ReportMetric(float64(retained)/(1<<20), "mgr-heap-MB")
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
		b.ReportMetric(elapsed.Seconds(), "league-s")
		cancel()
		if err := <-mgrDone; err != nil {
			b.Fatal(err)
		}
	}
}
