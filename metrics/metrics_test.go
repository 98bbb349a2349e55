package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/manager/managermetrics"
	"github.com/agentleague/league/metrics"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
	"github.com/agentleague/league/referee"
)

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// scrape reads GET /metrics at base and parses it as the Prometheus text
// format.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /metrics: %d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("not the Prometheus text format: %v", err)
	}
	return families
}

// value returns the value of the series of family name whose labels
// include want, summed over the matching series.
func value(families map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := families[name]
	if !ok {
		return 0, false
	}
	sum, found := 0.0, false
series:
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				continue series
			}
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Histogram != nil:
			sum += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum, found
}

// agents returns a data root and a function that runs an agent until the
// test ends; the test's cleanup stops the agents and waits for them before
// the data root is removed.
func agents(t *testing.T) (string, func(func(context.Context) error)) {
	data := t.TempDir() // made first, so that it is removed after the agents have stopped
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	return data, func(f func(context.Context) error) {
		wg.Go(func() {
			if err := f(ctx); err != nil {
				t.Error(err)
			}
		})
	}
}

// serveManager runs a manager of cfg on a loopback listener with run,
// serving mm at GET /metrics and watched by it, and returns it with its
// base URL.
func serveManager(t *testing.T, run func(func(context.Context) error), mm *metrics.Metrics, cfg manager.Config) (*manager.Manager, string) {
	t.Helper()
	ln := listen(t)
	cfg.Listener, cfg.NoAgentLog = ln, true
	cfg.Routes = map[string]http.Handler{"GET /metrics": mm.Handler()}
	mgr, err := manager.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	managermetrics.Watch(mm, mgr)
	run(mgr.Run)
	return mgr, "http://" + ln.Addr().String()
}

// TestMetricsOfAWholeLeague plays a league of four players whose manager
// and referee count into Metrics, and reads the counts back through
// GET /metrics on the agents' own ports.
func TestMetricsOfAWholeLeague(t *testing.T) {
	data, run := agents(t)

	mm := metrics.New()
	mgr, base := serveManager(t, run, mm, manager.Config{DataRoot: data, MinPlayers: 4, Observer: mm})

	rm := metrics.New()
	rln := listen(t)
	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: base + "/mcp", Listener: rln, DataRoot: data,
		NoAgentLog: true, Observer: rm, Routes: map[string]http.Handler{"GET /metrics": rm.Handler()}})
	if err != nil {
		t.Fatal(err)
	}
	rm.WatchReferee(ref)
	run(ref.Run)
	<-ref.Registered()

	for _, name := range []string{"Ann", "Bob", "Cid", "Dee"} {
		a, err := player.New(player.Config{Name: name, League: base + "/mcp", Listener: listen(t), DataRoot: data,
			NoAgentLog: true, Strategy: strategies.Always(leaguesdk.Even)})
		if err != nil {
			t.Fatal(err)
		}
		run(a.Run)
	}
	select {
	case <-mgr.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("league did not complete")
	}

	m := settle(t, base, []want{
		{"league_calls_served_total", map[string]string{"method": leaguesdk.MethodRegisterPlayer, "outcome": "ok"}, 4},
		{"league_calls_served_total", map[string]string{"method": leaguesdk.MethodRegisterReferee, "outcome": "ok"}, 1},
		{"league_calls_served_total", map[string]string{"method": leaguesdk.MethodReportMatchResult, "outcome": "ok"}, 6},
		{"league_calls_made_total", map[string]string{"method": leaguesdk.MethodStartMatch, "outcome": "ok"}, 6},
		{"league_matches_finished", nil, 6},
		{"league_matches_scheduled", nil, 6},
		{"league_matches_running", nil, 0},
		{"league_rounds_total", nil, 3},
		{"league_players_registered", nil, 4},
		{"league_status", map[string]string{"status": string(manager.StatusCompleted)}, 1},
		{"league_call_duration_seconds", map[string]string{"side": "served", "method": leaguesdk.MethodReportMatchResult}, 6},
	})
	// Every assignment went through the journal's group commits.
	records, _ := value(m, "league_write_records_total", map[string]string{"file": "assignments"})
	writes, _ := value(m, "league_writes_total", map[string]string{"file": "assignments"})
	if records != 6 || writes < 1 || writes > 6 {
		t.Errorf("assignments: %v records in %v writes, want 6 records in 1 to 6", records, writes)
	}
	if _, ok := m["go_goroutines"]; !ok {
		t.Error("the Go runtime collector is missing")
	}

	settle(t, "http://"+rln.Addr().String(), []want{
		{"league_calls_served_total", map[string]string{"method": leaguesdk.MethodStartMatch, "outcome": "ok"}, 6},
		{"league_calls_made_total", map[string]string{"method": leaguesdk.MethodReportMatchResult, "outcome": "ok"}, 6},
		{"league_calls_made_total", map[string]string{"method": leaguesdk.MethodChooseParity, "outcome": "ok"}, 12},
		{"league_referee_matches_running", nil, 0},
	})
}

// want is one series' expected value.
type want struct {
	name   string
	labels map[string]string
	value  float64
}

// settle scrapes base until every series has its expected value, or 10 s
// have passed, and reports those that do not: an agent counts a call once
// it has read the answer, a moment after its peer saw the call.
func settle(t *testing.T, base string, wants []want) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := scrape(t, base)
		var wrong []string
		for _, w := range wants {
			if got, ok := value(m, w.name, w.labels); !ok || got != w.value {
				wrong = append(wrong, fmt.Sprintf("%s%v = %v (found %v), want %v", w.name, w.labels, got, ok, w.value))
			}
		}
		if len(wrong) == 0 {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s/metrics:\n%s", base, strings.Join(wrong, "\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRateLimitedCallsAreCounted(t *testing.T) {
	mm := metrics.New()
	mm.ObserveCall(leaguesdk.CallEvent{Served: true, Method: "league_query", Outcome: "E010", Took: time.Millisecond})
	mm.ObserveCall(leaguesdk.CallEvent{Served: true, Method: "league_query", Outcome: "ok", Took: time.Millisecond})
	srv := newServer(t, mm.Handler())
	m := scrape(t, srv)
	if v, _ := value(m, "league_rate_limited_total", nil); v != 1 {
		t.Fatalf("league_rate_limited_total = %v, want 1", v)
	}
}

func TestFillsAreCountedByCause(t *testing.T) {
	mm := metrics.New()
	var _ leaguesdk.FillObserver = mm
	mm.ObserveFill(leaguesdk.FillEvent{Cause: leaguesdk.FillBehind, Missing: 2, Matches: 2, Entries: 9, Outcome: "ok"})
	mm.ObserveFill(leaguesdk.FillEvent{Cause: leaguesdk.FillBehind, Missing: 1, Matches: 1, Entries: 9, Outcome: "ok"})
	mm.ObserveFill(leaguesdk.FillEvent{Cause: leaguesdk.FillRestart, Missing: 1, Outcome: "E001"})
	m := scrape(t, newServer(t, mm.Handler()))
	for _, w := range []want{
		{"league_history_fills_total", map[string]string{"cause": leaguesdk.FillBehind, "outcome": "ok"}, 2},
		{"league_history_fills_total", map[string]string{"cause": leaguesdk.FillRestart, "outcome": "E001"}, 1},
		{"league_history_filled_matches_total", map[string]string{"cause": leaguesdk.FillBehind}, 3},
		{"league_history_filled_matches_total", map[string]string{"cause": leaguesdk.FillRestart}, 0},
	} {
		if got, _ := value(m, w.name, w.labels); got != w.value {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.value)
		}
	}
}

func newServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln := listen(t)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	s := &http.Server{Handler: mux}
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(func() { _ = s.Close() })
	return "http://" + ln.Addr().String()
}

// TestHeapPeakIsSampledAtEveryCollection holds 64 MiB through one garbage
// collection and drops it before the next: the peak of the live heap keeps
// the 64 MiB though no scrape happened while they were live, and the live
// figure falls back.
func TestHeapPeakIsSampledAtEveryCollection(t *testing.T) {
	const block = 64 << 20
	mm := metrics.New()
	srv := newServer(t, mm.Handler())
	runtime.GC()
	runtime.GC()
	before, ok := value(scrape(t, srv), "league_heap_live_bytes", nil)
	if !ok || before <= 0 {
		t.Fatalf("league_heap_live_bytes = %v (found %v), want a positive figure", before, ok)
	}

	held := make([]byte, block)
	for i := range held {
		held[i] = 1
	}
	runtime.GC()
	// The sample runs just after the collection, on the runtime's cleanup
	// goroutine; wait for it, without a scrape that would sample too.
	deadline := time.Now().Add(30 * time.Second)
	// The heap beside the block may shrink meanwhile (what earlier tests
	// left is collected), never by half the block.
	for float64(metrics.HeapPeak(mm)) < before+block/2 {
		if time.Now().After(deadline) {
			t.Fatalf("the peak stayed at %d after a collection with %v + %d bytes live", metrics.HeapPeak(mm), before, block)
		}
		time.Sleep(time.Millisecond)
	}
	runtime.KeepAlive(held)
	held = nil
	runtime.GC()

	m := scrape(t, srv)
	live, _ := value(m, "league_heap_live_bytes", nil)
	peak, _ := value(m, "league_heap_live_peak_bytes", nil)
	if live >= before+block/2 {
		t.Errorf("league_heap_live_bytes = %v after the block was dropped, want below %v", live, before+block/2)
	}
	if peak < before+block/2 {
		t.Errorf("league_heap_live_peak_bytes = %v, want at least %v", peak, before+block/2)
	}
	if _, ok := m["go_memstats_heap_inuse_bytes"]; !ok {
		t.Error("go_memstats_heap_inuse_bytes is missing")
	}
}

// TestWaitingMatchesAndFreeCapacity plays a round of three matches on
// referees of capacity one whose players hold their choices until
// released: the manager reports the matches waiting for a referee and the
// referees' free capacity as they change, a referee that joins mid-round
// takes a waiting match, and the agents' lifecycle states are counted.
func TestWaitingMatchesAndFreeCapacity(t *testing.T) {
	data, run := agents(t)

	mgr, base := serveManager(t, run, metrics.New(), manager.Config{DataRoot: data, MinPlayers: 6})
	addReferee := func(name string) {
		ref, err := referee.New(referee.Config{Name: name, League: base + "/mcp", Listener: listen(t), DataRoot: data,
			NoAgentLog: true, MaxConcurrentMatches: 1})
		if err != nil {
			t.Fatal(err)
		}
		run(ref.Run)
		<-ref.Registered()
	}
	addReferee("Referee Alpha")
	settle(t, base, []want{
		{"league_referee_capacity", nil, 1},
		{"league_referee_free_capacity", nil, 1},
		{"league_matches_waiting", nil, 0},
		{"league_agents", map[string]string{"kind": "referee", "state": string(manager.StateRegistered)}, 1},
	})

	release := make(chan struct{})
	hold := player.StrategyFunc(func(ctx context.Context, _ player.ParityCall) (leaguesdk.Parity, error) {
		select {
		case <-release:
			return leaguesdk.Even, nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	for i := range 6 {
		a, err := player.New(player.Config{Name: fmt.Sprintf("Holder %d", i+1), League: base + "/mcp", Listener: listen(t),
			DataRoot: data, NoAgentLog: true, Strategy: hold})
		if err != nil {
			t.Fatal(err)
		}
		run(a.Run)
	}
	// Round 1 has three matches; the one referee runs one of them.
	settle(t, base, []want{
		{"league_matches_running", nil, 1},
		{"league_matches_waiting", nil, 2},
		{"league_referee_capacity", nil, 1},
		{"league_referee_free_capacity", nil, 0},
		{"league_agents", map[string]string{"kind": "player", "state": string(manager.StateActive)}, 6},
	})
	addReferee("Referee Beta") // joins mid-round and takes a waiting match
	settle(t, base, []want{
		{"league_matches_running", nil, 2},
		{"league_matches_waiting", nil, 1},
		{"league_referee_capacity", nil, 2},
		{"league_referee_free_capacity", nil, 0},
		{"league_agents", map[string]string{"kind": "referee"}, 2},
	})
	close(release)
	select {
	case <-mgr.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("league did not complete")
	}
	// At the end every agent is SHUTDOWN: no referee can take a match.
	settle(t, base, []want{
		{"league_matches_waiting", nil, 0},
		{"league_referee_capacity", nil, 0},
		{"league_referee_free_capacity", nil, 0},
		{"league_agents", map[string]string{"kind": "player", "state": string(manager.StateShutdown)}, 6},
		{"league_agents", map[string]string{"kind": "player", "state": string(manager.StateSuspended)}, 0},
	})
}
