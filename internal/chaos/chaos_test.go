package chaos_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/agentleague/league/manager"
)

// size is how big a run is and how many faults it brings.
type size struct {
	players, referees int
	netFaults         int // toxics added
	kills             int // kill events, several agents at once in some
	managerKills      int // of the kill events, those of the manager
	strangers         int // queries per second the strangers send, all told
	rateLimit         int // the manager's -rate-limit
	timeout           time.Duration
}

var (
	short = size{players: 12, referees: 2, netFaults: 40, kills: 8, managerKills: 2, strangers: 300, rateLimit: 30, timeout: 3 * time.Minute}
	long  = size{players: 50, referees: 3, netFaults: 320, kills: 56, managerKills: 7, strangers: 600, rateLimit: 30, timeout: 40 * time.Minute}
)

// runConfig reads the run's size and seed from the environment:
// CHAOS_LONG=1 for the long run, CHAOS_SEED to replay a seed (default 1),
// CHAOS_PLAYERS to change the number of players; CHAOS_DIR keeps the
// agents' files and logs, and the faults' log (chaos/faults.log), there;
// CHAOS_TRACE=1 has the players record every message in their agent logs.
func runConfig(t *testing.T) (size, uint64, string) {
	sz, name := short, "short"
	if os.Getenv("CHAOS_LONG") != "" {
		sz, name = long, "long"
	}
	if v := os.Getenv("CHAOS_PLAYERS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			t.Fatalf("CHAOS_PLAYERS=%q: want a number of at least 2", v)
		}
		sz.players = n
	}
	seed := uint64(1)
	if v := os.Getenv("CHAOS_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CHAOS_SEED=%q: %v", v, err)
		}
		seed = s
	}
	return sz, seed, name
}

func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a league of processes")
	}
	sz, seed, name := runConfig(t)
	t.Logf("chaos %s run: seed %d (replay: CHAOS_SEED=%d%s go test -run TestChaos -v)", name, seed, seed,
		map[bool]string{true: " CHAOS_LONG=1", false: ""}[name == "long"])
	dir := t.TempDir()
	if keep := os.Getenv("CHAOS_DIR"); keep != "" { // the agents' files and logs are kept there
		dir = keep
	}
	bins := buildAgents(t, filepath.Join(dir, "bin"))
	px := startProxies(t)

	// The same league without faults (strangers' queries included), for
	// its time and as the proof that the query load alone costs nothing.
	calm := newLeague(t, px, bins, filepath.Join(dir, "calm"), sz)
	calmRun := calm.play(t, sz, nil)
	calm.stopAll()
	calmReport := calm.check(t, calmRun)
	if calmReport.technical != 0 {
		t.Errorf("the league without faults had %d technical losses under the strangers' load: %v", calmReport.technical, calmReport.causes)
	}

	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	l := newLeague(t, px, bins, filepath.Join(dir, "chaos"), sz)
	f := newFaults(rng, l, px, sz, calmRun.elapsed)
	if flog, err := os.Create(filepath.Join(l.dir, "faults.log")); err == nil { // kept with CHAOS_DIR
		defer flog.Close()
		f.log = flog
	}
	run := l.play(t, sz, f)
	l.stopAll()
	report := l.check(t, run)

	t.Logf("seed %d: %d players, %d referees, %d matches", seed, sz.players, sz.referees, report.matches)
	t.Logf("network faults: %d %v", f.netTotal(), f.netByKind())
	t.Logf("kills: %d events, %d agents %v", f.killEvents.Load(), f.killTotal(), f.killsByKind())
	t.Logf("technical losses: %d %v (without faults: %d)", report.technical, report.causes, calmReport.technical)
	t.Logf("history records filled from the manager: %d; missing at the end: %d; agents not alive at the end: %d of %d",
		report.filled, report.missing, len(run.dead), len(l.all))
	t.Logf("league completed %.1fs after the last fault (0: before it)", run.afterFault.Seconds())
	t.Logf("strangers: %s; without faults: %s", run.strangers, calmRun.strangers)
	t.Logf("league time %.1fs, without faults %.1fs (%.1fx)", run.elapsed.Seconds(), calmRun.elapsed.Seconds(),
		run.elapsed.Seconds()/calmRun.elapsed.Seconds())
	t.Logf("at rest %.1fs after the league (without faults %.1fs); resources before faults and after: %s",
		run.rest.Seconds(), calmRun.rest.Seconds(), run.resources)
	t.Logf("invariants held: %d of %d%s", report.held, report.checked, report.failedList())
	for _, lg := range []*league{calm, l} {
		for _, a := range lg.all {
			if len(a.crashes) > 0 {
				t.Errorf("%s exited on its own %d times: %v; its log ends: %s", a.name, len(a.crashes), a.crashes, a.lastLine())
			}
			if where := findIn(a.logPath, "DATA RACE"); where != "" {
				t.Errorf("%s: the race detector reported a data race in %s", a.name, where)
			}
		}
	}
}

// league is one league's agents: a manager, referees and players.
type league struct {
	id      string
	dir     string
	mgr     *agent
	refs    []*agent
	players []*agent
	all     []*agent
}

func newLeague(t *testing.T, px *proxies, bins map[string]string, dir string, sz size) *league {
	t.Helper()
	l := &league{id: "league_chaos", dir: dir}
	l.mgr = newAgent(t, px, bins, dir, kindManager, "Manager")
	for i := range sz.referees {
		l.refs = append(l.refs, newAgent(t, px, bins, dir, kindReferee, fmt.Sprintf("Referee %02d", i+1)))
	}
	for i := range sz.players {
		l.players = append(l.players, newAgent(t, px, bins, dir, kindPlayer, fmt.Sprintf("Player %02d", i+1)))
	}
	l.all = append(append([]*agent{l.mgr}, l.refs...), l.players...)
	port := func(a *agent) string { return strconv.Itoa(a.port) }
	l.mgr.args = []string{"-port", port(l.mgr), "-data", l.mgr.data, "-league-id", l.id, "-endpoint", l.mgr.url(),
		"-min-players", strconv.Itoa(sz.players), "-registration-window", "-1s", "-report-timeout", "8s",
		"-start-match-timeout", "3s", "-broadcast-timeout", "2s", "-retry-delay", "200ms",
		"-rate-limit", strconv.Itoa(sz.rateLimit)}
	for _, r := range l.refs {
		r.args = []string{"-port", port(r), "-data", r.data, "-name", r.name, "-league", l.mgr.url(), "-endpoint", r.url(),
			"-join-timeout", "2s", "-move-timeout", "3s", "-retries", "2", "-retry-delay", "200ms", "-grace", "2s",
			"-max-concurrent", "8"}
	}
	for _, p := range l.players {
		p.args = []string{"-port", port(p), "-data", p.data, "-name", p.name, "-league", l.mgr.url(), "-endpoint", p.url(),
			"-strategy", "random"}
		if os.Getenv("CHAOS_TRACE") != "" { // every message a player sends and receives, in its agent log
			p.args = append(p.args, "-trace")
		}
	}
	t.Cleanup(l.stopAll)
	return l
}

// stopAll stops every agent cleanly (SIGTERM), all at once.
func (l *league) stopAll() {
	var wg sync.WaitGroup
	for _, a := range l.all {
		wg.Go(a.stop)
	}
	wg.Wait()
}

// state is the manager's GET /api/state, with every match of the league
// (a round at a time for a league of many matches).
func (l *league) state(all bool) (manager.Snapshot, error) {
	var s manager.Snapshot
	if err := getJSON(l.mgr.direct()+"/api/state", &s); err != nil {
		return s, err
	}
	if !all || s.MatchesRound == 0 {
		return s, nil
	}
	s.Matches = nil
	for r := 1; r <= s.TotalRounds; r++ {
		var round manager.Snapshot
		if err := getJSON(l.mgr.direct()+"/api/state?round="+strconv.Itoa(r), &round); err != nil {
			return s, err
		}
		s.Matches = append(s.Matches, round.Matches...)
	}
	return s, nil
}

// runResult is what a run of a league observed.
type runResult struct {
	elapsed   time.Duration
	strangers *strangerStats
	resources string
	final     manager.Snapshot
	usage     map[*agent][2]usage // before faults, after
	rest      time.Duration       // from the league's end until every agent was at rest
	// afterFault is how long the league took to complete after the last
	// fault ended (0 when it completed first); dead are the agents whose
	// process was not running once the agents were at rest.
	afterFault time.Duration
	dead       []string
}

// play starts the league's agents, runs the faults f (none when nil) and
// the strangers' queries while the league runs, and returns once it has
// completed, every agent is up again and its resources are sampled.
func (l *league) play(t *testing.T, sz size, f *faults) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sz.timeout)
	defer cancel()
	if err := l.mgr.start(ctx); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(l.all))
	for _, a := range l.all[1:] {
		wg.Go(func() {
			if err := a.start(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// The league starts once every player has registered.
	var s manager.Snapshot
	for deadline := time.Now().Add(2 * time.Minute); s.Status != manager.StatusRunning && s.Status != manager.StatusCompleted; {
		var err error
		if s, err = l.state(false); time.Now().After(deadline) {
			t.Fatalf("the league did not start within 2 minutes: %v %v", s.Status, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	st := newStrangers(l.mgr.direct()+"/mcp", sz.strangers)
	// The level before the faults is taken once the first round is over:
	// the agents hold their connections to one another by then.
	for s.Status == manager.StatusRunning && s.CurrentRound < 2 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
		s, _ = l.state(false)
	}
	res := runResult{usage: map[*agent][2]usage{}}
	for _, a := range l.all {
		u, err := a.sample()
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		res.usage[a] = [2]usage{u}
	}
	res.strangers = st.stats
	faultsCtx, stopFaults := context.WithCancel(ctx)
	var faultsDone sync.WaitGroup
	if f != nil {
		faultsDone.Go(func() { f.run(faultsCtx) })
	}
	endKilled := false
	for {
		s, err := l.state(false)
		if err == nil {
			if s.Status == manager.StatusCompleted {
				break
			}
			// The faults stop as the last round starts, but for a kill of
			// a player then and others once the league completed (below).
			if f != nil && s.CurrentRound >= s.TotalRounds-1 && !endKilled {
				endKilled = true
				f.killAroundTheEnd(0)
			}
			if s.CurrentRound >= s.TotalRounds && faultsCtx.Err() == nil {
				if f != nil {
					f.logf("round %d of %d started: the faults stop", s.CurrentRound, s.TotalRounds)
				}
				stopFaults()
			}
		}
		if last := f.lastOrZero(); faultsCtx.Err() != nil && !last.IsZero() && time.Since(last) > afterLastFault {
			stopFaults()
			faultsDone.Wait()
			st.stop()
			t.Fatalf("the league did not complete within %v of the last fault (last state: %v %d/%d rounds, %d/%d matches)",
				afterLastFault, s.Status, s.CurrentRound, s.TotalRounds, s.Totals.Finished, s.Totals.Scheduled)
		}
		if ctx.Err() != nil {
			stopFaults()
			faultsDone.Wait()
			st.stop()
			t.Fatalf("the league did not complete within %v (last state: %v %d/%d rounds, %d/%d matches)", sz.timeout,
				s.Status, s.CurrentRound, s.TotalRounds, s.Totals.Finished, s.Totals.Scheduled)
		}
		time.Sleep(10 * time.Millisecond)
	}
	res.elapsed = time.Since(start)
	if last := f.lastOrZero(); !last.IsZero() {
		res.afterFault = max(time.Since(last), 0)
	}
	stopFaults()
	faultsDone.Wait()
	st.stop()
	if f != nil {
		// Killed as the league completed, started again after its end:
		// refused (the league is over), they serve on, and a player takes
		// the results it missed from the manager.
		f.killAroundTheEnd(1)
		f.endDone.Wait()
	}
	var err error
	if res.final, err = l.state(true); err != nil {
		t.Fatal(err)
	}
	// Players fill their histories after the last standings, and the
	// agents let go of what the faults made them hold: the samples are
	// taken once every live player's history holds the league's results
	// and every agent is back within bounds, or after restWait.
	var waited []string
	var sampleErrs []error
	restStart := time.Now()
	for deadline := restStart.Add(restWait); ; time.Sleep(100 * time.Millisecond) {
		waited, sampleErrs = l.notAtRest(res.final, res.usage)
		if len(waited)+len(sampleErrs) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, err := range sampleErrs {
		t.Errorf("after the league: %v", err)
	}
	if len(waited) > 0 {
		t.Logf("not at rest %v after the league (the checks below tell why): %s", restWait, strings.Join(waited, "; "))
	}
	res.rest = time.Since(restStart)
	for _, a := range l.all {
		if !a.running() {
			res.dead = append(res.dead, fmt.Sprintf("%s: not running (its log ends: %s)", a.name, a.lastLine()))
		}
	}
	var b strings.Builder
	for _, kind := range []string{kindManager, kindReferee, kindPlayer} {
		var before, after usage
		n := 0
		for a, u := range res.usage {
			if a.kind == kind {
				n++
				before.goroutines, before.fds, before.rss = max(before.goroutines, u[0].goroutines), max(before.fds, u[0].fds), max(before.rss, u[0].rss)
				after.goroutines, after.fds, after.rss = max(after.goroutines, u[1].goroutines), max(after.fds, u[1].fds), max(after.rss, u[1].rss)
			}
		}
		fmt.Fprintf(&b, "%s (max of %d): goroutines %d→%d, open files %d→%d, RSS %.0f→%.0f MiB; ", kind, n,
			before.goroutines, after.goroutines, before.fds, after.fds, before.rss/(1<<20), after.rss/(1<<20))
	}
	res.resources = strings.TrimSuffix(b.String(), "; ")
	return res
}

// restWait bounds the wait for the agents to be at rest after the league.
const restWait = time.Minute

// afterLastFault bounds the time the league may take to complete once the
// last fault has ended.
const afterLastFault = time.Minute

// lastOrZero is f.lastEnded, the zero time for a run without faults.
func (f *faults) lastOrZero() time.Time {
	if f == nil {
		return time.Time{}
	}
	return f.lastEnded()
}

// notAtRest samples every agent still up (res.usage holds the samples
// before the faults; the ones after are stored in it) and returns what is
// not at rest yet: a live player whose history lacks a result of the
// league's final state s, or holds another one; an agent whose resources
// are not back within bounds. It returns the agents it failed to sample
// apart.
func (l *league) notAtRest(s manager.Snapshot, usage map[*agent][2]usage) (out []string, errs []error) {
	for _, a := range l.all {
		u, err := a.sample()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a.name, err))
			continue
		}
		pair := usage[a]
		pair[1] = u
		usage[a] = pair
		if !withinBounds(pair[0], pair[1]) {
			out = append(out, a.name+": resources not back within bounds")
		}
		if a.kind == kindPlayer {
			if gaps := l.historyGaps(a, s); gaps > 0 {
				out = append(out, fmt.Sprintf("%s: %d results not in its history yet", a.name, gaps))
			}
		}
	}
	return out, errs
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// counter counts events by name.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) add(k string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[k]++
}

func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.n {
		n += v
	}
	return n
}

func (c *counter) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	parts := make([]string, 0, len(c.n))
	for _, k := range sortedKeys(c.n) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.n[k]))
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// faults runs a league's network faults and kills, drawn from one seeded
// random source in advance, so that a seed names the same faults in the
// same order.
type faults struct {
	l          *league
	px         *proxies
	net        []netFault
	kills      [][]int // indexes into l.all, several at once in some
	netEvery   time.Duration
	killEvery  time.Duration
	restarts   []time.Duration // the pause before each restart, in kill order
	netCount   counter
	killCount  counter
	killEvents atomic.Int32
	// endKills are killed around the league's end: endKills[0] as the
	// round before the last starts, endKills[1] once the league has
	// completed; each is started again after its endPauses, so that it
	// registers after the end most likely.
	endKills  [2][]int
	endPauses [2][]time.Duration
	endDone   sync.WaitGroup // the end's restarts
	// last is when the last fault ended (unix nanoseconds): a toxic
	// removed, a connection reset, a killed agent started again.
	last  atomic.Int64
	logMu sync.Mutex
	log   io.Writer // each fault as it comes and goes, with its time (faults.log)
}

// logf writes one line of the faults' log.
func (f *faults) logf(format string, args ...any) {
	f.logMu.Lock()
	defer f.logMu.Unlock()
	fmt.Fprintf(f.log, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05.000")}, args...)...)
}

// netFault is one toxic on one agent's proxy for a while.
type netFault struct {
	agent        int
	kind, stream string
	attrs        toxiclient.Attributes
	hold         time.Duration
	change       toxiclient.Attributes // when set, the toxic is changed to these halfway
}

func newFaults(rng *rand.Rand, l *league, px *proxies, sz size, calm time.Duration) *faults {
	f := &faults{l: l, px: px, log: io.Discard}
	for _, a := range l.all {
		a.toxicSlot = make(chan struct{}, 1)
	}
	// Spread over about the time the league takes without faults: the
	// faults slow it, so they end before it does.
	f.netEvery = max(calm/time.Duration(sz.netFaults), 5*time.Millisecond)
	f.killEvery = max(calm/time.Duration(sz.kills), 50*time.Millisecond)
	ms := func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }
	for range sz.netFaults {
		nf := netFault{agent: rng.IntN(len(l.all)), stream: []string{"upstream", "downstream"}[rng.IntN(2)],
			hold: time.Duration(ms(200, 1500)) * time.Millisecond}
		switch rng.IntN(9) {
		case 7, 8:
			// Every open connection of the agent closed at once while
			// calls are held in flight by a latency: a load balancer, a
			// NAT table or a pod's network dropping its state.
			nf.kind = "reset_all"
			nf.attrs = toxiclient.Attributes{"latency": ms(150, 400)}
			if rng.IntN(3) > 0 { // a referee, most often: it carries the most calls at once
				nf.agent = 1 + rng.IntN(len(l.refs))
			}
		case 0:
			nf.kind = "latency"
			nf.attrs = toxiclient.Attributes{"latency": ms(20, 400), "jitter": ms(0, 200)}
			nf.change = toxiclient.Attributes{"latency": ms(20, 400), "jitter": ms(0, 200)}
		case 1:
			nf.kind = "bandwidth"
			nf.attrs = toxiclient.Attributes{"rate": ms(2, 64)}
			nf.change = toxiclient.Attributes{"rate": ms(2, 64)}
		case 2:
			nf.kind = "reset_peer"
			nf.attrs = toxiclient.Attributes{"timeout": ms(0, 300)}
		case 3:
			nf.kind = "timeout"
			nf.attrs = toxiclient.Attributes{"timeout": ms(100, 1500)}
		case 4:
			nf.kind = "limit_data"
			nf.attrs = toxiclient.Attributes{"bytes": ms(64, 4096)}
		case 5:
			nf.kind = "slicer"
			avg := ms(1, 64) // the variation must stay below the average (toxiproxy's slicer panics otherwise)
			nf.attrs = toxiclient.Attributes{"average_size": avg, "size_variation": ms(0, min(avg-1, 16)), "delay": ms(0, 2000)}
		default:
			nf.kind = "slow_close"
			nf.attrs = toxiclient.Attributes{"delay": ms(100, 1500)}
		}
		f.net = append(f.net, nf)
	}
	managerKill := map[int]bool{}
	for len(managerKill) < sz.managerKills {
		managerKill[rng.IntN(sz.kills)] = true
	}
	for i := range sz.kills {
		var targets []int
		switch {
		case managerKill[i]:
			targets = []int{0}
			if rng.IntN(3) == 0 { // with a player or a referee
				targets = append(targets, 1+rng.IntN(len(l.all)-1))
			}
		default:
			for n := 1 + rng.IntN(3); len(targets) < n; {
				if k := 1 + rng.IntN(len(l.all)-1); !containsInt(targets, k) {
					targets = append(targets, k)
				}
			}
		}
		f.kills = append(f.kills, targets)
		for range targets {
			f.restarts = append(f.restarts, time.Duration(ms(100, 1500))*time.Millisecond)
		}
	}
	// Around the end: a player as the round before the last starts, back
	// after the end most likely; a player and a referee, and one more
	// agent, once the league completed.
	// Never the manager: started again after the end, it would begin the
	// next league.
	other := func() int { return 1 + rng.IntN(len(l.all)-1) }
	player := func() int { return 1 + len(l.refs) + rng.IntN(len(l.players)) }
	f.endKills[0] = []int{player()}
	f.endPauses[0] = []time.Duration{time.Duration(ms(1000, 3000)) * time.Millisecond}
	f.endKills[1] = []int{player(), 1 + rng.IntN(len(l.refs))}
	if k := other(); !containsInt(f.endKills[1], k) {
		f.endKills[1] = append(f.endKills[1], k)
	}
	for range f.endKills[1] {
		f.endPauses[1] = append(f.endPauses[1], time.Duration(ms(100, 1000))*time.Millisecond)
	}
	return f
}

// ended records that a fault ended now.
func (f *faults) ended() { f.last.Store(time.Now().UnixNano()) }

// lastEnded returns when the last fault ended, the zero time when none has.
func (f *faults) lastEnded() time.Time {
	if n := f.last.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// killAroundTheEnd kills the agents of endKills[phase] (those up) and
// starts each again after its pause, on a goroutine of f.endDone.
func (f *faults) killAroundTheEnd(phase int) {
	for i, k := range f.endKills[phase] {
		a := f.l.all[k]
		if !a.up() {
			continue
		}
		a.kill()
		f.ended()
		f.killCount.add(a.kind + " at the end")
		f.logf("%s: killed (%s)", a.name, []string{"the round before the last started", "the league completed"}[phase])
		pause := f.endPauses[phase][i]
		f.endDone.Go(func() {
			time.Sleep(pause)
			for range 100 {
				if a.start(context.Background()) == nil || a.running() {
					f.ended()
					f.logf("%s: started again after the end's kill", a.name)
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (f *faults) netTotal() int               { return f.netCount.total() }
func (f *faults) netByKind() *counter         { return &f.netCount }
func (f *faults) killTotal() int              { return f.killCount.total() }
func (f *faults) killsByKind() *counter       { return &f.killCount }
func (f *faults) restart(i int) time.Duration { return f.restarts[i%len(f.restarts)] }

// run brings the faults until they are all done or ctx ends; it returns
// once every toxic is removed and every killed agent runs again.
func (f *faults) run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { f.runNet(ctx, &wg) })
	wg.Go(func() { f.runKills(ctx, &wg) })
	wg.Wait()
	f.logf("faults over: removing what is left")
	for _, a := range f.l.all { // no toxic outlives the faults
		a.proxyMu.Lock()
		toxics, err := a.proxy.Toxics()
		if err != nil {
			f.logf("%s: toxics not listed: %v", a.name, err)
		}
		for _, x := range toxics {
			f.removeToxic(a, x.Name, x.Type)
		}
		for i := 0; !a.proxy.Enabled && i < 50; i++ { // nor a proxy left disabled
			if a.proxy.Enable() != nil {
				time.Sleep(100 * time.Millisecond)
			}
		}
		a.proxyMu.Unlock()
	}
}

// removeToxic removes a toxic from a's proxy; a.proxyMu must be held. A
// timeout toxic is removed with its whole proxy, made again at once on the
// same address: removing it from a live connection leaves toxiproxy's
// chain of that connection stale (v2.12.0, link.go's RemoveToxic returns
// early after the timeout toxic's Cleanup), and the next toxic added to
// it panics (AddToxic's index out of range). Disabling the proxy first is
// not enough, since its connections leave the chain only as each of them
// ends; a proxy made again starts with a chain of its own. Other toxics of
// the proxy go with it, a little before their time.
func (f *faults) removeToxic(a *agent, name, kind string) {
	if kind != "timeout" {
		err := a.proxy.RemoveToxic(name)
		f.logf("%s: %s %s removed (%v)", a.name, kind, name, err)
		return
	}
	old := a.proxy
	err := old.Delete()
	for range 50 { // its port may be held a moment
		px, cerr := f.px.client.CreateProxy(old.Name, old.Listen, old.Upstream)
		if cerr == nil {
			a.proxy = px
			f.logf("%s: %s %s removed with its proxy (delete: %v), proxy made again", a.name, kind, name, err)
			return
		}
		f.logf("%s: proxy not made again yet: %v", a.name, cerr)
		time.Sleep(100 * time.Millisecond)
	}
	f.logf("%s: proxy NOT made again after %s %s", a.name, kind, name)
}

// sleep waits d or until ctx ends, and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// runNet brings the network faults, one every netEvery, each on its
// agent's proxy for its hold. A proxy carries one toxic at a time: a fault
// whose proxy carries one already waits for it to go (until ctx ends).
// Toxiproxy (v2.12.0) can wedge a proxy whose chain holds several toxics:
// removing one of them then never returns, its API answers 503 after 25 s
// to every call on that proxy, and no data crosses it again (seen with a
// bandwidth toxic removed behind a reset_peer; toxiproxy issue #558).
func (f *faults) runNet(ctx context.Context, wg *sync.WaitGroup) {
	for i, nf := range f.net {
		if !sleep(ctx, f.netEvery) {
			return
		}
		a := f.l.all[nf.agent]
		name := "fault" + strconv.Itoa(i)
		wg.Go(func() {
			select {
			case a.toxicSlot <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-a.toxicSlot }()
			if nf.kind == "reset_all" {
				f.resetAll(ctx, a, name, nf)
				return
			}
			a.proxyMu.Lock()
			_, err := a.proxy.AddToxic(name, nf.kind, nf.stream, 1, nf.attrs)
			a.proxyMu.Unlock()
			f.logf("%s: %s %s %s %v for %v added (%v)", a.name, nf.kind, name, nf.stream, nf.attrs, nf.hold, err)
			if err != nil {
				return
			}
			f.netCount.add(nf.kind)
			if nf.change != nil && sleep(ctx, nf.hold/2) {
				// Changed by taking it away and putting the new one in its
				// place: toxiproxy's UpdateToxic writes the attributes of a
				// toxic that is running, a data race the race detector
				// reports (v2.12.0).
				a.proxyMu.Lock()
				if err := a.proxy.RemoveToxic(name); err == nil {
					_, err := a.proxy.AddToxic(name, nf.kind, nf.stream, 1, nf.change)
					if err == nil {
						f.netCount.add(nf.kind + " changed")
					}
					f.logf("%s: %s %s changed to %v (%v)", a.name, nf.kind, name, nf.change, err)
				} else {
					f.logf("%s: %s %s not removed to change it: %v", a.name, nf.kind, name, err)
				}
				a.proxyMu.Unlock()
			}
			sleep(ctx, nf.hold/2)
			a.proxyMu.Lock()
			f.removeToxic(a, name, nf.kind)
			a.proxyMu.Unlock()
			f.ended()
		})
	}
}

// resetAll closes every open connection of a's proxy at once while calls
// to a are in flight: a latency toxic holds the calls; for a referee, the
// reset waits (up to the fault's hold) until the manager gives out matches
// (its count of matches with a referee rises, to two or more): the calls
// giving this referee its share are held by the latency meanwhile. Closing is
// toxiproxy's disabling of the proxy, which closes each connection it
// carries, enabled again at once.
//
// (The counts are read from /metrics: GET /api/state is slowed down by
// the strangers' queries.)
func (f *faults) resetAll(ctx context.Context, a *agent, name string, nf netFault) {
	a.proxyMu.Lock()
	_, err := a.proxy.AddToxic(name, "latency", "downstream", 1, nf.attrs)
	a.proxyMu.Unlock()
	if err != nil {
		f.logf("%s: reset_all %s: latency not added (%v)", a.name, name, err)
		return
	}
	held, polls, pollErrs := 0, 0, 0
	if a.kind == kindReferee {
		for deadline := time.Now().Add(nf.hold); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(5 * time.Millisecond) {
			// The matches with a referee, as the manager counts them:
			// those of this referee among them wait for the answers to
			// their start_match calls, which the latency holds.
			polls++
			n, ok := f.l.mgr.gauge("league_matches_running")
			if !ok {
				pollErrs++
				continue
			}
			// Matches given out since the last poll: their start_match
			// calls were sent a moment ago, and wait for the latency.
			if rose := polls > 1 && int(n) > held; rose && n >= 2 {
				held = int(n)
				time.Sleep(20 * time.Millisecond)
				break
			}
			held = int(n)
		}
	} else {
		sleep(ctx, nf.hold/2)
	}
	a.proxyMu.Lock()
	derr := a.proxy.Disable()
	eerr := error(nil)
	for i := 0; i < 50; i++ {
		if eerr = a.proxy.Enable(); eerr == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	f.removeToxic(a, name, "latency")
	a.proxyMu.Unlock()
	f.ended()
	f.netCount.add("reset_all")
	f.logf("%s: reset_all %s: every connection closed with %d matches with a referee, %d polls (%d failed) (disable: %v, enable: %v)",
		a.name, name, held, polls, pollErrs, derr, eerr)
}

func (f *faults) runKills(ctx context.Context, wg *sync.WaitGroup) {
	n := 0
	for _, targets := range f.kills {
		if !sleep(ctx, f.killEvery) {
			return
		}
		var down []*agent
		for _, k := range targets {
			a := f.l.all[k]
			for wait := 0; !a.up() && wait < 100 && ctx.Err() == nil; wait++ {
				time.Sleep(50 * time.Millisecond) // starting again: killed once it serves
			}
			if a.up() {
				down = append(down, a)
			}
		}
		if len(down) == 0 {
			continue
		}
		f.killEvents.Add(1)
		var killed sync.WaitGroup
		for _, a := range down {
			killed.Go(a.kill)
			f.killCount.add(a.kind)
			f.logf("%s: killed", a.name)
		}
		killed.Wait()
		for _, a := range down {
			pause := f.restart(n)
			n++
			wg.Go(func() {
				time.Sleep(pause) // restarted even when the faults stop meanwhile
				for range 100 {
					if a.start(context.Background()) == nil || a.running() {
						f.ended()
						f.logf("%s: started again", a.name)
						return
					}
					time.Sleep(100 * time.Millisecond) // the port may still be held a moment
				}
			})
		}
	}
}
