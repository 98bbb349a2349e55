package manager_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
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

// BenchmarkQueryLoad plays a 200-player league three times in one run:
// quiet, under load, quiet again. The load is 1000 strangers (tokens of
// no agent) and the league's own 200 players asking for the whole
// schedule (GET_SCHEDULE) as fast as they can from the time every player
// is registered until the league completes: each caller asks again as
// soon as it has its answer, and after a refusal (HTTP 429) as soon as
// Retry-After allows. It reports each league's time and the process's
// processor time over it, the loaded league's slowdown against the mean
// of the quiet ones (slowdown-%) and the growth of its processor time
// (cpu-growth-%: on a machine shared with other work, the figure to read), its technical
// losses, and the load's calls: made, answered with the whole schedule,
// refused over the limits (E010) and refused for their token.
//
//	go test ./manager -run '^$' -bench BenchmarkQueryLoad -benchtime 1x -timeout 30m
func BenchmarkQueryLoad(b *testing.B) {
	const players, referees, strangers = 200, 10, 1000
	root := b.TempDir()
	for range b.N {
		quiet1 := queryLoadLeague(b, root, players, referees, 0)
		loaded := queryLoadLeague(b, root, players, referees, strangers)
		quiet2 := queryLoadLeague(b, root, players, referees, 0)
		quiet := (quiet1.took + quiet2.took) / 2
		b.ReportMetric(quiet1.took.Seconds(), "quiet1-s")
		b.ReportMetric(loaded.took.Seconds(), "loaded-s")
		b.ReportMetric(quiet2.took.Seconds(), "quiet2-s")
		b.ReportMetric(100*(loaded.took.Seconds()/quiet.Seconds()-1), "slowdown-%")
		// On a machine shared with other work the leagues' times swing
		// with it; the processor time the process took (league and load
		// together) does not: its growth is what the load costs.
		quietCPU := (quiet1.cpu + quiet2.cpu) / 2
		b.ReportMetric(quiet1.cpu.Seconds(), "quiet1-cpu-s")
		b.ReportMetric(loaded.cpu.Seconds(), "loaded-cpu-s")
		b.ReportMetric(quiet2.cpu.Seconds(), "quiet2-cpu-s")
		b.ReportMetric(100*(loaded.cpu.Seconds()/quietCPU.Seconds()-1), "cpu-growth-%")
		b.ReportMetric(float64(loaded.technical), "technical-losses")
		b.ReportMetric(float64(quiet1.technical+quiet2.technical), "quiet-technical-losses")
		b.ReportMetric(float64(loaded.load.calls.Load()), "load-calls")
		b.ReportMetric(float64(loaded.load.schedules.Load()), "schedules-served")
		b.ReportMetric(float64(loaded.load.limited.Load()), "load-E010")
		b.ReportMetric(float64(loaded.load.refused.Load()), "load-refused")
		b.ReportMetric(float64(loaded.load.bytes.Load())/(1<<20), "load-MB")
	}
}

// loadCounts counts what the load's callers were answered.
type loadCounts struct {
	calls, schedules, limited, refused, bytes atomic.Int64
}

// queryLoadResult is one league of BenchmarkQueryLoad.
type queryLoadResult struct {
	took      time.Duration // from the league's start (every player registered) to its completion
	cpu       time.Duration // the process's processor time meanwhile (league and load together)
	technical int           // results that are technical losses
	load      *loadCounts
}

// tokenTap keeps the token a player's registration answer carries.
type tokenTap struct{ token atomic.Value }

func (t *tokenTap) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || t.token.Load() != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var reply struct {
		Result struct {
			MessageType string `json:"message_type"`
			AuthToken   string `json:"auth_token"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &reply) == nil && reply.Result.MessageType == string(leaguesdk.MsgLeagueRegisterResponse) && reply.Result.AuthToken != "" {
		t.token.Store(reply.Result.AuthToken)
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// queryLoadLeague plays one league of players players and referees
// referees on loopback, data on disk under root; with strangers > 0, the
// strangers and the league's players ask for the whole schedule while it
// plays.
func queryLoadLeague(b *testing.B, root string, players, referees, strangers int) queryLoadResult {
	b.Helper()
	dir, err := os.MkdirTemp(root, "league-")
	if err != nil {
		b.Fatal(err)
	}
	var calls atomic.Int64
	cfg := fastConfig(b, dir)
	cfg.MinPlayers, cfg.Listener, cfg.NoAgentLog = players, listen(b), true
	var started atomic.Int64
	cfg.OnEvent = func(e manager.Event) {
		if e.Kind == manager.EventLeagueStarted {
			started.Store(time.Now().UnixNano())
		}
	}
	m, err := manager.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	mcp, stopManager := serveAgent(b, listen(b), m.Handler(), &calls)
	ctx, cancel := context.WithCancel(context.Background())
	mgrDone := make(chan error, 1)
	go func() { mgrDone <- m.Run(ctx) }()

	refStore, err := referee.OpenStore(dir)
	if err != nil {
		b.Fatal(err)
	}
	capacity := (players/2 + referees - 1) / referees
	refClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: max(64, referees*capacity)}}
	var stops []func()
	for i := range referees {
		ln := listen(b)
		ref, err := referee.New(referee.Config{Name: fmt.Sprintf("Referee %d", i+1), League: mcp,
			Endpoint: "http://" + ln.Addr().String() + "/mcp", MaxConcurrentMatches: capacity,
			JoinTimeout: 2 * time.Second, MoveTimeout: 2 * time.Second, RetryDelay: 50 * time.Millisecond,
			ReportTimeout: 2 * time.Second, ShutdownGrace: time.Second, Store: refStore, HTTPClient: refClient, NoAgentLog: true})
		if err != nil {
			b.Fatal(err)
		}
		_, stop := serveAgent(b, ln, ref.Handler(), &calls)
		if err := ref.Register(ctx); err != nil {
			b.Fatal(err)
		}
		stops = append(stops, func() { _ = ref.Shutdown(context.Background()); stop() })
	}
	store, err := pstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	var agents []*player.Agent
	var taps []*tokenTap
	for i := range players {
		ln := listen(b)
		tap := &tokenTap{}
		a, err := player.New(player.Config{Name: fmt.Sprintf("Player %d", i+1), League: mcp,
			Endpoint: "http://" + ln.Addr().String() + "/mcp", Store: store, NoAgentLog: true,
			HTTPClient: &http.Client{Transport: tap},
			Strategy:   always([]leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd}[i%2])})
		if err != nil {
			b.Fatal(err)
		}
		_, stop := serveAgent(b, ln, a.Handler(), &calls)
		stops = append(stops, stop)
		agents, taps = append(agents, a), append(taps, tap)
	}
	for _, a := range agents {
		if err := a.Register(ctx); err != nil {
			b.Fatal(err)
		}
	}
	load := &loadCounts{}
	mark := markCPU()
	loadCtx, stopLoad := context.WithTimeout(ctx, 10*time.Minute)
	var loading sync.WaitGroup
	if strangers > 0 {
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: strangers + players}}
		defer client.CloseIdleConnections()
		for i := range strangers {
			loading.Go(func() {
				askSchedules(loadCtx, client, mcp, fmt.Sprintf("player:S%04d", i+1), "tok_00000000000000000000000000000000", load)
			})
		}
		for i, a := range agents {
			token, _ := taps[i].token.Load().(string)
			loading.Go(func() { askSchedules(loadCtx, client, mcp, leaguesdk.PlayerSender(a.ID()), token, load) })
		}
	}
	select {
	case <-m.Done():
	case <-time.After(15 * time.Minute):
		b.Fatalf("league not completed: %+v", m.Progress())
	}
	took := time.Since(time.Unix(0, started.Load()))
	cpu, _ := processCPU()
	stopLoad()
	loading.Wait()

	res := queryLoadResult{took: took, cpu: cpu - mark.cpu, load: load}
	results := m.Results()
	if len(results) != players*(players-1)/2 {
		b.Fatalf("%d results, want %d", len(results), players*(players-1)/2)
	}
	for _, r := range results {
		if r.Result.Status == leaguesdk.ResultTechnicalLoss {
			res.technical++
		}
	}
	for _, stop := range stops {
		stop()
	}
	refClient.CloseIdleConnections()
	cancel()
	if err := <-mgrDone; err != nil {
		b.Fatal(err)
	}
	stopManager()
	if err := store.Close(); err != nil {
		b.Fatal(err)
	}
	if err := refStore.Close(); err != nil {
		b.Fatal(err)
	}
	return res
}

// askSchedules asks the manager at mcp for the whole schedule as sender
// with token, again and again until ctx ends or a million calls were
// made: at once after an answer, after Retry-After after HTTP 429.
func askSchedules(ctx context.Context, client *http.Client, mcp, sender, token string, n *loadCounts) {
	q := &leaguesdk.LeagueQuery{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueQuery, sender, token, "", time.Now()),
		QueryType: leaguesdk.QuerySchedule}
	params, _ := json.Marshal(q)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": leaguesdk.MethodLeagueQuery, "params": json.RawMessage(params)})
	for range 1_000_000 {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, mcp, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		head := make([]byte, 512)
		k, _ := io.ReadFull(resp.Body, head)
		rest, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		n.calls.Add(1)
		n.bytes.Add(int64(k) + rest)
		pause := time.Duration(0)
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			n.limited.Add(1)
			s, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
			pause = time.Duration(max(s, 1)) * time.Second
		case bytes.Contains(head[:k], []byte(`"success":true`)):
			n.schedules.Add(1)
		default:
			n.refused.Add(1)
		}
		if pause > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(pause):
			}
		}
		if ctx.Err() != nil {
			return
		}
	}
}
