package arena

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/leaguesdk/inmem"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
	"github.com/agentleague/league/referee"
	"github.com/agentleague/league/rules"
)

// leagueReferees is the number of referees of a league in League mode.
const leagueReferees = 2

// runLeagues plays cfg.Rounds whole leagues, one after the other, each
// with a manager, two referees and a player per entry over an in-memory
// network, and tallies their recorded results.
func runLeagues(ctx context.Context, cfg Config, names []string, start time.Time) (*recorder, error) {
	root := cfg.DataRoot
	if root == "" {
		dir, err := os.MkdirTemp("", "arena-league-")
		if err != nil {
			return nil, fmt.Errorf("arena: %w", err)
		}
		defer os.RemoveAll(dir)
		root = dir
	}
	n := len(cfg.Entries)
	strats := make([]player.Strategy, n)
	for i := range n {
		s, err := entryStrategy(cfg, i)
		if err != nil {
			return nil, err
		}
		strats[i] = s
	}
	rec := newRecorder(n)
	exp := newExpecter(cfg.Rules)
	total := cfg.Rounds * n * (n - 1) / 2
	for k := range cfg.Rounds {
		results, ids, err := playLeague(ctx, cfg, strats, names, k, filepath.Join(root, "league_"+strconv.Itoa(k+1)), rec)
		if err != nil {
			return nil, err
		}
		for _, r := range results {
			p, ok := leagueOutcome(r, ids, exp)
			if !ok {
				return nil, fmt.Errorf("arena: league %d recorded match %s between players it does not know", k+1, r.MatchID)
			}
			rec.add(p)
		}
		if cfg.Progress != nil {
			cfg.Progress(Progress{Played: rec.matches, Total: total, Elapsed: time.Since(start)})
		}
	}
	return rec, nil
}

// leagueOutcome reads a manager's record of a match.
func leagueOutcome(r manager.MatchRecord, ids map[string]int, exp *expecter) (played, bool) {
	a, okA := ids[r.PlayerA]
	b, okB := ids[r.PlayerB]
	if !okA || !okB {
		return played{}, false
	}
	p := played{players: [2]int{a, b}}
	for k, id := range []string{r.PlayerA, r.PlayerB} {
		won := string(r.Result.Winner) == id
		switch {
		case r.Result.Status == leaguesdk.ResultDraw:
			p.result[k] = player.Draw
		case won:
			p.result[k] = player.Win
		case r.Result.Status == leaguesdk.ResultTechnicalLoss:
			p.result[k] = player.TechnicalLoss
		default:
			p.result[k] = player.Loss
		}
		p.points[k] = p.result[k].Points()
		if pts, ok := r.Result.Score[id]; ok {
			p.points[k] = pts
		}
	}
	p.differ = -1
	players := [2]string{r.PlayerA, r.PlayerB}
	ca, cb := r.Result.Details.Choices[r.PlayerA], r.Result.Details.Choices[r.PlayerB]
	switch {
	case r.Result.Status == leaguesdk.ResultTechnicalLoss:
		p.expected, p.hasExpected = [2]float64{float64(p.points[0]), float64(p.points[1])}, exp != nil
	case ca != "" && cb != "":
		p.differ = 0
		if ca != cb {
			p.differ = 1
		}
		if exp != nil {
			e, err := exp.expected(players, map[string]string{r.PlayerA: string(ca), r.PlayerB: string(cb)})
			p.expected, p.hasExpected = e, err == nil
		}
	}
	return p, true
}

// agents runs agents' Run methods and waits for them.
type agents struct {
	wg   sync.WaitGroup
	errc chan error
}

func (g *agents) start(ctx context.Context, name string, run func(context.Context) error) {
	g.wg.Go(func() {
		if err := run(ctx); err != nil && ctx.Err() == nil {
			select {
			case g.errc <- fmt.Errorf("arena: %s: %w", name, err):
			default:
			}
		}
	})
}

// playLeague plays league k in root and returns its recorded results with
// the entry index of each player id. It adds the players' decisions to rec.
func playLeague(ctx context.Context, cfg Config, strats []player.Strategy, names []string, k int, root string, rec *recorder) (results []manager.MatchRecord, ids map[string]int, err error) {
	n := len(strats)
	var network inmem.Network
	defer network.Close() // after the agents have stopped (deferred below)
	client := network.Client()
	league := inmem.Endpoint("manager")
	mgr, err := manager.New(manager.Config{LeagueID: "arena_" + strconv.Itoa(k+1), GameType: cfg.GameType,
		Listener: network.Listener("manager"), HTTPClient: client, DataRoot: root,
		MinPlayers: n, RegistrationWindow: -1, RateLimit: -1, ProbeInterval: -1,
		NoAgentLog: true, Logger: cfg.Logger})
	if err != nil {
		return nil, nil, fmt.Errorf("arena: %w", err)
	}
	network.Handle("manager", mgr.Handler())
	refStore, err := referee.OpenStore(root)
	if err != nil {
		_ = mgr.Close()
		return nil, nil, fmt.Errorf("arena: %w", err)
	}
	playerStore, err := pstore.Open(root)
	if err != nil {
		_ = mgr.Close()
		_ = refStore.Close()
		return nil, nil, fmt.Errorf("arena: %w", err)
	}
	// The referees stop first, then the players and the manager, so that
	// nothing in flight is cut off; the stores close after every agent.
	others, stopOthers := context.WithCancel(context.WithoutCancel(ctx))
	refsCtx, stopRefs := context.WithCancel(others)
	errc := make(chan error, 1)
	all, refs := &agents{errc: errc}, &agents{errc: errc}
	defer func() {
		stopRefs()
		refs.wg.Wait()
		stopOthers()
		all.wg.Wait()
		err = errors.Join(err, refStore.Close(), playerStore.Close())
	}()
	all.start(others, "manager", mgr.Run)
	// join puts an agent on the network, runs it in g and waits until the
	// manager has accepted it.
	join := func(g *agents, gctx context.Context, host string, h http.Handler, run func(context.Context) error, registered <-chan struct{}) error {
		network.Handle(host, h)
		g.start(gctx, host, run)
		select {
		case <-registered:
			return nil
		case err := <-errc:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for r := range leagueReferees {
		host := "referee" + strconv.Itoa(r+1)
		ref, err := referee.New(referee.Config{Name: "Referee " + strconv.Itoa(r+1), League: league,
			Listener: network.Listener(host), HTTPClient: client, DataRoot: root, Store: refStore,
			MaxConcurrentMatches: max(referee.DefaultMaxConcurrentMatches, n/2),
			JoinTimeout:          cfg.JoinTimeout, MoveTimeout: cfg.MoveTimeout, GameOverTimeout: cfg.GameOverTimeout,
			RateLimit: -1, Games: rules.Games{cfg.GameType: cfg.Rules},
			Rand: source(cfg.Seed, uint64(k), 1<<61, uint64(r)), NoAgentLog: true, Logger: cfg.Logger})
		if err != nil {
			return nil, nil, fmt.Errorf("arena: %w", err)
		}
		if err := join(refs, refsCtx, host, ref.Handler(), ref.Run, ref.Registered()); err != nil {
			return nil, nil, err
		}
	}
	ids = map[string]int{}
	players := make([]*player.Agent, 0, n)
	for i, s := range strats {
		host := "player" + strconv.Itoa(i+1)
		p, err := player.New(player.Config{Name: names[i], League: league,
			Listener: network.Listener(host), HTTPClient: client, DataRoot: root, Store: playerStore,
			Strategy: s, Rand: source(cmp.Or(cfg.Entries[i].Seed, cfg.Seed), uint64(k), uint64(i), 2),
			SafetyMargin: min(player.DefaultSafetyMargin, cfg.MoveTimeout/4), NoAgentLog: true, Logger: cfg.Logger})
		if err != nil {
			return nil, nil, fmt.Errorf("arena: %w", err)
		}
		// One at a time, so that the ids follow the entries.
		if err := join(all, others, host, p.Handler(), p.Run, p.Registered()); err != nil {
			return nil, nil, err
		}
		ids[p.ID()] = i
		players = append(players, p)
	}
	select {
	case <-mgr.Done():
		// Every match is recorded, so every choice was made.
		for i, p := range players {
			rec.decided(i, p.Decisions())
		}
	case err := <-errc:
		return nil, nil, err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	return mgr.Results(), ids, nil
}
