package player_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
)

// lineup returns the display names and ids of n players, "Player 1"/P01…
func lineup(n int) (names []string, ids map[string]string) {
	ids = map[string]string{}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("Player %d", i)
		names = append(names, name)
		ids[name] = fmt.Sprintf("P%02d", i)
	}
	return names, ids
}

// startLineup starts a test manager that registers the n players of
// lineup(n) under their ids.
func startLineup(t *testing.T, n int) (m *testManager, names []string, ids map[string]string) {
	names, ids = lineup(n)
	return startManager(t, &testManager{ids: ids}), names, ids
}

// openStore opens a Store on dataRoot and closes it at the end of the
// test, after the agents started later have stopped.
func openStore(t *testing.T, open func() (*pstore.Store, error)) *pstore.Store {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the store: %v", err)
		}
	})
	return s
}

// won is the GAME_OVER of match, won by player me with even.
func won(match, me string) *leaguesdk.GameOver {
	return gameOver(match, me, 2, map[string]leaguesdk.Parity{me: leaguesdk.Even, "X99": leaguesdk.Odd})
}

// sendGameOver sends a GAME_OVER to endpoint and reports whether it was
// acknowledged.
func sendGameOver(c *leaguesdk.Client, endpoint string, over *leaguesdk.GameOver) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ack leaguesdk.Ack
	if err := c.Call(ctx, endpoint, leaguesdk.MethodNotifyMatchResult, over, &ack); err != nil {
		return err
	}
	if ack.Status != leaguesdk.AckOK {
		return fmt.Errorf("ack status %q", ack.Status)
	}
	return nil
}

func newClient(t *testing.T) *leaguesdk.Client {
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{Retry: leaguesdk.RetryPolicy{MaxRetries: leaguesdk.NoRetries}})
	t.Cleanup(c.Close)
	return c
}

// readHistoryFile returns the match ids of a player's history.json.
func readHistoryFile(t *testing.T, dataRoot, id string) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dataRoot, "data", "players", testLeague, id, "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		PlayerID string `json:"player_id"`
		Matches  []struct {
			MatchID string `json:"match_id"`
			Attempt int    `json:"attempt"`
			Result  string `json:"result"`
		} `json:"matches"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range f.Matches {
		out = append(out, fmt.Sprintf("%s/%d/%s", m.MatchID, m.Attempt, m.Result))
	}
	return out
}

// journalLines returns the records of a journal file as player id/match id.
func journalLines(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The records end at the zeros reserved after them.
	raw, _, _ = bytes.Cut(raw, []byte{0})
	var out []string
	for line := range strings.Lines(string(raw)) {
		var r struct {
			PlayerID string `json:"player_id"`
			MatchID  string `json:"match_id"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		out = append(out, r.PlayerID+"/"+r.MatchID)
	}
	return out
}

func TestStoreGameOversOfPlayersShareOneFsync(t *testing.T) {
	m, names, ids := startLineup(t, 5)
	var syncs atomic.Int64
	held, release := make(chan struct{}), make(chan struct{})
	store := openStore(t, func() (*pstore.Store, error) {
		return player.OpenStoreWithSync(t.TempDir(), func(f *os.File) error {
			if syncs.Add(1) == 1 {
				close(held)
				<-release // the first group commit waits until the others are queued
			}
			return f.Sync()
		})
	})
	var agents []*player.Agent
	for _, name := range names {
		agents = append(agents, runAgent(t, player.Config{Name: name, League: m.URL, Store: store}))
	}
	c := newClient(t)
	errs := make(chan error, len(agents))
	go func() { errs <- sendGameOver(c, agents[0].Endpoint(), won("R1M1", "P01")) }()
	<-held
	// While the first result's fsync runs, the other four players' results
	// arrive; none may be acknowledged before the fsync that covers it.
	for i, a := range agents[1:] {
		go func() { errs <- sendGameOver(c, a.Endpoint(), won("R1M1", ids[names[i+1]])) }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, _, pending := player.StoreJournal(store); pending == len(agents)-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the other results did not reach the journal")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-errs:
		t.Fatalf("a GAME_OVER was acknowledged before its record was durable (%v)", err)
	default:
	}
	close(release)
	for range agents {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	_, stats, _ := player.StoreJournal(store)
	if stats.Records != 5 || stats.Syncs != 2 || syncs.Load() != 2 {
		t.Fatalf("5 results took %d group commits (%d fsyncs), want 2: %+v", stats.Syncs, syncs.Load(), stats)
	}
	for i, a := range agents {
		if h := a.History(); h.Len() != 1 || h.Stats().Wins != 1 {
			t.Errorf("%s: history %+v", names[i], h.Matches())
		}
	}
}

func TestStoreCompactionKeepsOnlyWhatNoHistoryFileHolds(t *testing.T) {
	m, names, ids := startLineup(t, 3)
	root := t.TempDir()
	store := openStore(t, func() (*pstore.Store, error) { return pstore.Open(root) })
	player.SetStoreCompactEvery(store, 16)
	var agents []*player.Agent
	for _, name := range names {
		agents = append(agents, runAgent(t, player.Config{Name: name, League: m.URL, Store: store}))
	}
	c := newClient(t)
	const perPlayer = 100
	var wg sync.WaitGroup
	for i, a := range agents {
		wg.Go(func() {
			for r := 1; r <= perPlayer; r++ {
				if err := sendGameOver(c, a.Endpoint(), won(fmt.Sprintf("R%dM1", r), ids[names[i]])); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	path, stats, _ := player.StoreJournal(store)
	if stats.Records != int64(len(agents)*perPlayer) {
		t.Fatalf("journal took %d records, want %d", stats.Records, len(agents)*perPlayer)
	}
	// Compaction ran along the way: the journal holds fewer lines than
	// results were recorded.
	if n := len(journalLines(t, path)); n >= len(agents)*perPlayer {
		t.Fatalf("journal holds %d lines after %d results: never compacted", n, len(agents)*perPlayer)
	}
	// Compacted now, it holds exactly the results no history.json holds.
	player.CompactStore(store)
	var want []string
	for i, a := range agents {
		id := ids[names[i]]
		inFile := len(readHistoryFile(t, root, id))
		if a.History().Len() != perPlayer || inFile > perPlayer {
			t.Fatalf("%s: %d results in memory, %d in history.json", id, a.History().Len(), inFile)
		}
		for _, r := range a.History().Matches()[inFile:] {
			want = append(want, id+"/"+r.MatchID)
		}
	}
	got := journalLines(t, path)
	if fmt.Sprint(sorted(got)) != fmt.Sprint(sorted(want)) {
		t.Fatalf("compacted journal holds %d records %v\nwant the %d no history.json holds: %v", len(got), got, len(want), want)
	}
	if len(want) >= len(agents)*perPlayer/2 {
		t.Fatalf("%d of %d results are only in the journal: history.json is not rewritten", len(want), len(agents)*perPlayer)
	}
	// Closed, the store leaves every result in history.json and removes
	// its journal.
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("journal still there after Close: %v", err)
	}
	for i := range agents {
		if n := len(readHistoryFile(t, root, ids[names[i]])); n != perPlayer {
			t.Fatalf("%s: history.json holds %d results after Close, want %d", ids[names[i]], n, perPlayer)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// The shared-store crash test runs this test binary as a child in which
// several players share one Store; the parent sends them GAME_OVERs
// together, kills the child with SIGKILL while they arrive, and finds
// every acknowledged result in the histories that new players on the same
// data root start with.
const (
	sharedCrashLeagueEnv = "PLAYER_SHARED_CRASH_LEAGUE"
	sharedCrashDataEnv   = "PLAYER_SHARED_CRASH_DATA"
	sharedCrashPlayers   = 4
)

func TestPlayersSharingStoreCrashChild(t *testing.T) {
	league, data := os.Getenv(sharedCrashLeagueEnv), os.Getenv(sharedCrashDataEnv)
	if league == "" {
		t.Skip("runs only as the child of TestKilledPlayersSharingAStoreKeepEveryAcknowledgedResult")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	store, err := pstore.Open(data)
	if err != nil {
		fmt.Println("store:", err)
		os.Exit(2)
	}
	defer store.Close()
	names, _ := lineup(sharedCrashPlayers)
	var wg sync.WaitGroup
	for _, name := range names {
		a, err := player.New(player.Config{Name: name, League: league, Store: store, Addr: "127.0.0.1:0",
			Strategy: always(leaguesdk.Even)})
		if err != nil {
			fmt.Println("new:", err)
			os.Exit(2)
		}
		wg.Go(func() {
			select {
			case <-a.Registered():
				fmt.Println("endpoint", a.ID(), a.Endpoint())
			case <-ctx.Done():
			}
		})
		wg.Go(func() { _ = a.Run(ctx) })
	}
	wg.Wait()
}

func TestKilledPlayersSharingAStoreKeepEveryAcknowledgedResult(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	m, names, ids := startLineup(t, sharedCrashPlayers)
	data := t.TempDir()
	lines, cmd := startChild(t, "TestPlayersSharingStoreCrashChild", sharedCrashLeagueEnv+"="+m.URL, sharedCrashDataEnv+"="+data)
	endpoints := make(chan [2]string, sharedCrashPlayers)
	go func() {
		for line := range lines {
			if rest, ok := strings.CutPrefix(line, "endpoint "); ok {
				id, ep, _ := strings.Cut(rest, " ")
				endpoints <- [2]string{id, ep}
			}
		}
	}()
	eps := map[string]string{}
	for len(eps) < sharedCrashPlayers {
		select {
		case e := <-endpoints:
			eps[e[0]] = e[1]
		case <-time.After(20 * time.Second):
			t.Fatalf("%d of %d child players registered", len(eps), sharedCrashPlayers)
		}
	}

	// Each player gets results one after another, the players at the same
	// time; the child dies while results are still arriving, most of them
	// only in the shared journal.
	c := newClient(t)
	const killAfter = 100
	var (
		mu    sync.Mutex
		acked = map[string][]string{} // player id → acknowledged match ids
		total int
		kill  = make(chan struct{})
		once  sync.Once
		wg    sync.WaitGroup
	)
	for id, ep := range eps {
		wg.Go(func() {
			for r := 1; r <= 1000; r++ {
				match := fmt.Sprintf("R%dM1", r)
				if sendGameOver(c, ep, won(match, id)) != nil {
					return // the child is dead
				}
				mu.Lock()
				acked[id] = append(acked[id], match)
				total++
				if total >= killAfter {
					once.Do(func() { close(kill) })
				}
				mu.Unlock()
			}
		})
	}
	<-kill
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	wg.Wait()

	for _, name := range names {
		id := ids[name]
		b := runAgent(t, player.Config{Name: name, League: m.URL, DataRoot: data})
		if b.ID() != id {
			t.Fatalf("%s registered as %s, want %s", name, b.ID(), id)
		}
		got := map[string]int{}
		for _, r := range b.History().Matches() {
			got[r.MatchID]++
		}
		for _, match := range acked[id] {
			if got[match] != 1 {
				t.Errorf("%s: acknowledged %s is in the history %d times after SIGKILL, want once", id, match, got[match])
			}
		}
		if len(got) < len(acked[id]) || len(got) > len(acked[id])+1 {
			// At most the one result in flight when the child died was
			// recorded without its acknowledgement reaching the sender.
			t.Errorf("%s: %d results in the history, %d acknowledged", id, len(got), len(acked[id]))
		}
	}
	// The crashed store's journal was merged and removed.
	left, _ := filepath.Glob(filepath.Join(data, "data", "players", ".journal", "*.jsonl"))
	for _, name := range left {
		if lines := journalLines(t, name); len(lines) > 0 {
			t.Errorf("journal %s still holds %d records", name, len(lines))
		}
	}
}

func TestStoreMergesTheJournalOfACrashedStore(t *testing.T) {
	m, names, _ := startLineup(t, 2)
	root := t.TempDir()
	c := newClient(t)
	a, _, stop := startAgent(t, player.Config{Name: names[0], League: m.URL, DataRoot: root})
	<-a.Registered()
	for _, match := range []string{"R1M1", "R2M1"} {
		if err := sendGameOver(c, a.Endpoint(), won(match, "P01")); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	if got := readHistoryFile(t, root, "P01"); fmt.Sprint(got) != "[R1M1/0/WIN R2M1/0/WIN]" {
		t.Fatalf("history.json after stop = %v", got)
	}

	// What a store that crashed leaves: a journal nobody holds the lock
	// of, with a result history.json has, a replay's later attempt, a new
	// result, a player with no history.json yet, and a torn last record
	// (never acknowledged).
	rec := func(id, match string, attempt int, result player.Result) string {
		b, err := json.Marshal(map[string]any{"player_id": id, "match_id": match, "league_id": testLeague,
			"opponent_id": "X99", "result": result, "attempt": attempt})
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	orphan := filepath.Join(root, "data", "players", ".journal", "crashed.jsonl")
	if err := os.MkdirAll(filepath.Dir(orphan), 0o755); err != nil {
		t.Fatal(err)
	}
	content := rec("P01", "R1M1", 0, player.Win) + rec("P01", "R2M1", 2, player.Loss) + rec("P01", "R3M1", 0, player.Win) +
		rec("P02", "R1M1", 0, player.Loss) + rec("P01", "R2M1", 1, player.Win) + `{"player_id":"P01","match_id":"R4M1"`
	if err := os.WriteFile(orphan, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}

	store := openStore(t, func() (*pstore.Store, error) { return pstore.Open(root) })
	if got := readHistoryFile(t, root, "P01"); fmt.Sprint(got) != "[R1M1/0/WIN R2M1/2/LOSS R3M1/0/WIN]" {
		t.Fatalf("P01's history.json after recovery = %v", got)
	}
	if got := readHistoryFile(t, root, "P02"); fmt.Sprint(got) != "[R1M1/0/LOSS]" {
		t.Fatalf("P02's history.json after recovery = %v", got)
	}
	for _, gone := range []string{orphan, strings.TrimSuffix(orphan, ".jsonl") + ".lock"} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s is still there after recovery (%v)", filepath.Base(gone), err)
		}
	}
	// The player started again on the store knows its whole history.
	b := runAgent(t, player.Config{Name: names[0], League: m.URL, Store: store})
	if h := b.History(); h.Len() != 3 || h.Stats().Wins != 2 || h.Stats().Losses != 1 {
		t.Fatalf("history after recovery: %+v", h.Matches())
	}
}

func TestStoresSharingADataRootLeaveEachOthersJournalAlone(t *testing.T) {
	m, names, _ := startLineup(t, 2)
	root := t.TempDir()
	storeA := openStore(t, func() (*pstore.Store, error) { return pstore.Open(root) })
	storeB := openStore(t, func() (*pstore.Store, error) { return pstore.Open(root) })
	a := runAgent(t, player.Config{Name: names[0], League: m.URL, Store: storeA})
	b := runAgent(t, player.Config{Name: names[1], League: m.URL, Store: storeB})
	c := newClient(t)
	for r := 1; r <= 3; r++ {
		for _, p := range []*player.Agent{a, b} {
			if err := sendGameOver(c, p.Endpoint(), won(fmt.Sprintf("R%dM1", r), p.ID())); err != nil {
				t.Fatal(err)
			}
		}
	}
	pathA, _, _ := player.StoreJournal(storeA)
	pathB, _, _ := player.StoreJournal(storeB)
	want := map[string]string{pathA: "[P01/R1M1 P01/R2M1 P01/R3M1]", pathB: "[P02/R1M1 P02/R2M1 P02/R3M1]"}
	check := func(when string) {
		t.Helper()
		for path, w := range want {
			if got := fmt.Sprint(journalLines(t, path)); got != w {
				t.Fatalf("%s: journal %s holds %s, want %s", when, filepath.Base(path), got, w)
			}
		}
	}
	check("two live stores")
	// A third store on the root recovers crashed journals only: the two
	// live ones stay as they are.
	storeC := openStore(t, func() (*pstore.Store, error) { return pstore.Open(root) })
	check("a third store opened")
	if err := storeC.Close(); err != nil {
		t.Fatal(err)
	}
	check("the third store closed")
	// Closing one store writes its players' history.json files and removes
	// its own journal, not the other's.
	if err := storeA.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pathA); !os.IsNotExist(err) {
		t.Fatalf("store A's journal after its Close: %v", err)
	}
	delete(want, pathA)
	check("store A closed")
	if got := readHistoryFile(t, root, "P01"); len(got) != 3 {
		t.Fatalf("P01's history.json after store A closed = %v", got)
	}
}

func TestStoreWithoutFileLocksWritesEachResultDurably(t *testing.T) {
	m := &testManager{}
	startManager(t, m)
	root := t.TempDir()
	store := openStore(t, func() (*pstore.Store, error) { return player.OpenStoreWithoutLocks(root), nil })
	a := runAgent(t, player.Config{League: m.URL, Store: store})
	c := newClient(t)
	for r := 1; r <= 3; r++ {
		if err := sendGameOver(c, a.Endpoint(), won(fmt.Sprintf("R%dM1", r), "P01")); err != nil {
			t.Fatal(err)
		}
		// Acknowledged, so in history.json already.
		if got := readHistoryFile(t, root, "P01"); len(got) != r {
			t.Fatalf("after %d acknowledged results history.json holds %v", r, got)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "data", "players", ".journal")); !os.IsNotExist(err) {
		t.Fatalf("a store without file locks made a journal directory (%v)", err)
	}
}

func TestPlayerReadsTheHistoryJournalOfEarlierVersions(t *testing.T) {
	m := &testManager{}
	startManager(t, m)
	root := t.TempDir()
	dir := filepath.Join(root, "data", "players", "P01")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// An earlier version's files: history.json with one result, and
	// history.jsonl beside it with one more, a repeat and a torn record.
	file := `{"schema_version":"1.0.0","player_id":"P01","display_name":"Agent Alpha","stats":{},"matches":[` +
		`{"match_id":"R1M1","league_id":"league_test","opponent_id":"P02","result":"WIN"}]}`
	legacy := `{"match_id":"R1M1","league_id":"league_test","opponent_id":"P02","result":"WIN"}` + "\n" +
		`{"match_id":"R2M1","league_id":"league_test","opponent_id":"P03","result":"DRAW"}` + "\n" +
		`{"match_id":"R3M1","league_id":"league_te`
	if err := os.WriteFile(filepath.Join(dir, "history.json"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(legacy), 0o644); err != nil {
		t.Fatal(err)
	}
	a := runAgent(t, player.Config{League: m.URL, DataRoot: root})
	if h := a.History(); h.Len() != 2 || h.Stats().Wins != 1 || h.Stats().Draws != 1 {
		t.Fatalf("history = %+v, want R1M1 won and R2M1 drawn", h.Matches())
	}
	// Its records are in history.json now, and the old journal is gone.
	if got := readHistoryFile(t, root, "P01"); fmt.Sprint(got) != "[R1M1/0/WIN R2M1/0/DRAW]" {
		t.Fatalf("history.json = %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "history.jsonl")); !os.IsNotExist(err) {
		t.Fatalf("history.jsonl is still there (%v)", err)
	}
}
