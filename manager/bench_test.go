package manager_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
	"github.com/agentleague/league/referee"
)

// serveCounted serves h on a loopback listener with net/http's server,
// counting the protocol calls (POST requests) it receives, and returns its
// /mcp endpoint: the bare echo's server.
func serveCounted(b *testing.B, h http.Handler, calls *atomic.Int64) string {
	ln := listen(b)
	srv := &http.Server{Handler: counting(h, calls)}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// serveAgent serves an agent's handler on ln as the agents' Run serves it
// (net/http), counting the protocol calls it receives, and returns
// its /mcp endpoint and a stop that closes the server and lets the agent
// go (the benchmark's cleanup would keep it until the last league ends).
func serveAgent(b *testing.B, ln net.Listener, h http.Handler, calls *atomic.Int64) (string, func()) {
	var served atomic.Pointer[http.Handler]
	counted := http.Handler(counting(h, calls))
	served.Store(&counted)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := served.Load()
		if h == nil {
			http.Error(w, "stopped", http.StatusServiceUnavailable)
			return
		}
		(*h).ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	stop := func() { srv.Close(); served.Store(nil) }
	b.Cleanup(stop)
	return "http://" + ln.Addr().String() + "/mcp", stop
}

// counting counts the POST requests h serves in calls.
func counting(h http.Handler, calls *atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			calls.Add(1)
		}
		h.ServeHTTP(w, r)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// cpuMark is where a measured span starts: the process's CPU time
// (processCPU) and the garbage collector's share of it.
type cpuMark struct {
	cpu, gc  time.Duration
	measured bool // processCPU is available here
}

func markCPU() cpuMark {
	cpu, ok := processCPU()
	return cpuMark{cpu: cpu, gc: gcCPU(), measured: ok}
}

// gcCPU is the CPU time the garbage collector has taken so far, as the
// runtime accounts it.
func gcCPU() time.Duration {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return time.Duration(s[0].Value.Float64() * float64(time.Second))
}

// reportCPU reports, for the span since m, which lasted wall, the CPU time the whole process
// took per call (cpu-us/call: manager, referees, players and the callers
// together, the figure to set beside the echo's), cpu-% (that time as a
// share of the GOMAXPROCS processors' time: below 100, the league waited
// with a processor free, on fsyncs for instance) and gc-% (the garbage
// collector's share of the CPU time).
func reportCPU(b *testing.B, m cpuMark, wall time.Duration, calls int64) {
	if !m.measured {
		return
	}
	cpu, _ := processCPU()
	used := cpu - m.cpu
	if used <= 0 || calls <= 0 || wall <= 0 {
		return
	}
	b.ReportMetric(float64(used.Microseconds())/float64(calls), "cpu-us/call")
	b.ReportMetric(100*used.Seconds()/(wall.Seconds()*float64(runtime.GOMAXPROCS(0))), "cpu-%")
	b.ReportMetric(100*(gcCPU()-m.gc).Seconds()/used.Seconds(), "gc-%")
}

// BenchmarkLeague100 plays a full league of 100 players with 4 referees
// (see leagueBench).
//
//	go test -run '^$' -bench BenchmarkLeague100 -benchtime 1x ./manager/
func BenchmarkLeague100(b *testing.B) { leagueBench(b, b.TempDir(), 100, 4) }

// BenchmarkLeague plays whole leagues of 50 and of 200 players (see
// leagueBench), and measures beside them, in the same run, the calls per
// second a bare net/http JSON echo serves to as many concurrent callers
// as a round of the 200-player league has matches: the ratios of
// matches/s at 200 to matches/s at 50, and of the league's calls/s to the
// echo's, are the figures to compare (docs/PERFORMANCE.md).
//
//	go test -run '^$' -bench '^BenchmarkLeague$' -benchtime 1x -timeout 60m ./manager/
//
// The leagues' data stays on disk until the last of them is done: removing
// a league's files just before the next league starts slows the next
// league's file creation (ext4 passes over recently freed inodes while it
// allocates), which users starting a league do not meet. For the same
// reason, runs to compare should not start within minutes of removing the
// data of an earlier big run (docs/PERFORMANCE.md).
func BenchmarkLeague(b *testing.B) {
	root := b.TempDir()
	b.Run("players=4", func(b *testing.B) { leagueBench(b, root, 4, 2) }) // the demo league of examples/fourplayer
	b.Run("players=50", func(b *testing.B) { leagueBench(b, root, 50, 4) })
	b.Run("players=200", func(b *testing.B) { leagueBench(b, root, 200, 10) })
	b.Run("bare-echo", func(b *testing.B) { echoBench(b, 100) })
}

// echoBench serves a bare net/http JSON echo (decode the request into a
// map, answer it as a JSON-RPC result) and reports the calls per second it
// serves to workers concurrent keep-alive callers sending a
// CHOOSE_PARITY_CALL-sized request, with the CPU figures of reportCPU.
func echoBench(b *testing.B, workers int) {
	var calls atomic.Int64
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": req["params"]})
	})
	url := serveCounted(b, echo, &calls)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": leaguesdk.MethodChooseParity,
		"params": map[string]any{"protocol": leaguesdk.Protocol, "message_type": leaguesdk.MsgChooseParityCall,
			"sender": "referee:REF01", "timestamp": "2025-01-15T10:30:00Z", "conversation_id": "conv-r1m1-001",
			"auth_token": "tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c", "match_id": "R1M1", "player_id": "P01",
			"game_type": "even_odd", "deadline": "2025-01-15T10:30:30Z",
			"context": map[string]any{"opponent_id": "P02", "round_id": 1}}})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	const perWorker = 200
	for range b.N {
		mark, start := markCPU(), time.Now()
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range perWorker {
					resp, err := client.Post(url, "application/json", bytes.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		b.ReportMetric(float64(workers*perWorker)/elapsed.Seconds(), "calls/s")
		reportCPU(b, mark, elapsed, int64(workers*perWorker))
	}
}

// leagueBench plays a full league of the given number of players that
// answer at once (always even or always odd) with the given number of
// referees, everything over HTTP on loopback with the real referee and
// player of this module, every data root on disk under root
// (a directory of its own for each). It reports matches/s, protocol calls/s (every POST
// any agent received), the heap the manager retains after the league, and
// the peak heap of the whole process (manager, referees and players
// together); league-s runs from the first registration to the league's
// completion, play-ms from its start (every player registered) to it;
// cpu-us/call, cpu-% and gc-% (reportCPU) cover the league's span.
func leagueBench(b *testing.B, root string, players, referees int) {
	tempDir := func() string {
		dir, err := os.MkdirTemp(root, "league-")
		if err != nil {
			b.Fatal(err)
		}
		return dir
	}
	for range b.N {
		b.StopTimer()
		base := heapInUse()
		var calls atomic.Int64
		cfg := fastConfig(b, tempDir())
		cfg.MinPlayers = players
		cfg.Listener = listen(b)
		var started atomic.Int64 // when the league started (all registered), UnixNano
		cfg.OnEvent = func(e manager.Event) {
			if e.Kind == manager.EventLeagueStarted {
				started.Store(time.Now().UnixNano())
			}
		}
		m, err := manager.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		mcp, _ := serveAgent(b, listen(b), m.Handler(), &calls)
		ctx, cancel := context.WithCancel(context.Background())
		mgrDone := make(chan error, 1)
		go func() { mgrDone <- m.Run(ctx) }()

		// One transcript store for all the referees, as examples/fourplayer
		// has: their matches that end together share fsyncs.
		refStore, err := referee.OpenStore(tempDir())
		if err != nil {
			b.Fatal(err)
		}
		// And one HTTP client for their calls, as it has too, keeping a
		// connection to the manager for each of a round's reports.
		capacity := (players/2 + referees - 1) / referees
		refClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: max(64, referees*capacity), IdleConnTimeout: 90 * time.Second}}
		var stops []func()
		for i := range referees {
			ln := listen(b)
			ref, err := referee.New(referee.Config{Name: fmt.Sprintf("Referee %d", i+1), League: mcp,
				Endpoint: "http://" + ln.Addr().String() + "/mcp", MaxConcurrentMatches: capacity,
				JoinTimeout: 2 * time.Second, MoveTimeout: 2 * time.Second, RetryDelay: 50 * time.Millisecond,
				ReportTimeout: 2 * time.Second, ShutdownGrace: time.Second, Store: refStore, HTTPClient: refClient})
			if err != nil {
				b.Fatal(err)
			}
			_, stop := serveAgent(b, ln, ref.Handler(), &calls)
			if err := ref.Register(ctx); err != nil {
				b.Fatal(err)
			}
			stops = append(stops, func() { _ = ref.Shutdown(context.Background()); stop() })
		}
		// One history store for all the players, as examples/fourplayer
		// has: their results share fsyncs.
		store, err := pstore.Open(tempDir())
		if err != nil {
			b.Fatal(err)
		}
		var agents []*player.Agent
		for i := range players {
			ln := listen(b)
			a, err := player.New(player.Config{Name: fmt.Sprintf("Player %d", i+1), League: mcp,
				Endpoint: "http://" + ln.Addr().String() + "/mcp", Store: store,
				Strategy: always([]leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd}[i%2])})
			if err != nil {
				b.Fatal(err)
			}
			_, stop := serveAgent(b, ln, a.Handler(), &calls)
			stops = append(stops, stop)
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
		mark, start := markCPU(), time.Now()
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
		play := time.Since(time.Unix(0, started.Load()))
		b.StopTimer()
		reportCPU(b, mark, elapsed, calls.Load()-callsBefore)
		close(stopSampling)
		sampling.Wait()

		if n := len(m.Results()); n != players*(players-1)/2 {
			b.Fatalf("%d results, want %d", n, players*(players-1)/2)
		}
		totalCalls := calls.Load() - callsBefore
		for _, stop := range stops {
			stop()
		}
		refClient.CloseIdleConnections()
		if err := errors.Join(store.Close(), refStore.Close()); err != nil {
			b.Fatal(err)
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
		b.ReportMetric(float64(play.Microseconds())/1000, "play-ms")
		cancel()
		if err := <-mgrDone; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegistration registers 1000 players at once, as a league whose
// players all start together does: 100 concurrent keep-alive callers send
// the registrations over HTTP to a manager whose data root is on disk. It
// reports registrations/s and how many times state.json was saved for them
// (registrations that arrive while it is being saved share the next save).
//
//	go test -run '^$' -bench BenchmarkRegistration -benchtime 1x ./manager/
func BenchmarkRegistration(b *testing.B) {
	const players, callers = 1000, 100
	root := b.TempDir()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: callers}}
	defer client.CloseIdleConnections()
	for range b.N {
		dir, err := os.MkdirTemp(root, "league-")
		if err != nil {
			b.Fatal(err)
		}
		writes := &writeCounter{writes: map[string]int{}}
		cfg := fastConfig(b, dir)
		cfg.Observer = writes
		cfg.NoAgentLog = true
		m := startManager(b, cfg)
		saves := writes.count("state")
		var next atomic.Int64
		start := time.Now()
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				for i := next.Add(1); i <= players; i = next.Add(1) {
					req := playerRegistration(fmt.Sprintf("Agent %d", i), fmt.Sprintf("http://127.0.0.1:9/p%d", i))
					body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": leaguesdk.MethodRegisterPlayer, "params": req})
					resp, err := client.Post(m.MCP, "application/json", bytes.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					reply, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if !bytes.Contains(reply, []byte(`"status":"ACCEPTED"`)) {
						b.Errorf("registration %d: %s", i, reply)
						return
					}
				}
			})
		}
		wg.Wait()
		took := time.Since(start)
		if got := len(m.Standings()); got != players {
			b.Fatalf("%d players registered, want %d", got, players)
		}
		b.ReportMetric(players/took.Seconds(), "registrations/s")
		b.ReportMetric(float64(writes.count("state")-saves), "state-saves")
		m.Stop()
	}
}
