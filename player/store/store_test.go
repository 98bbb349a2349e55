package store_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	pstore "github.com/agentleague/league/player/store"
)

// The store's tests drive real players (player.New over loopback HTTP,
// registered with a small test manager) that share a Store, and read the
// files the store writes.

func TestStoreGameOversOfPlayersShareOneFsync(t *testing.T) {
	m, names, ids := startLineup(t, 5)
	var syncs atomic.Int64
	held, release := make(chan struct{}), make(chan struct{})
	store := openStore(t, func() (*pstore.Store, error) {
		return pstore.OpenWithSync(t.TempDir(), func(f *os.File) error {
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
		if _, _, pending := pstore.JournalOf(store); pending == len(agents)-1 {
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
	_, stats, _ := pstore.JournalOf(store)
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
	pstore.SetCompactEvery(store, 16)
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
	path, stats, _ := pstore.JournalOf(store)
	if stats.Records != int64(len(agents)*perPlayer) {
		t.Fatalf("journal took %d records, want %d", stats.Records, len(agents)*perPlayer)
	}
	// Compaction ran along the way: the journal holds fewer lines than
	// results were recorded.
	if n := len(journalLines(t, path)); n >= len(agents)*perPlayer {
		t.Fatalf("journal holds %d lines after %d results: never compacted", n, len(agents)*perPlayer)
	}
	// Compacted now, it holds exactly the results no history.json holds.
	pstore.Compact(store)
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
	pathA, _, _ := pstore.JournalOf(storeA)
	pathB, _, _ := pstore.JournalOf(storeB)
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
	store := openStore(t, func() (*pstore.Store, error) { return pstore.OpenWithoutLocks(root), nil })
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

// A player keeping its history in a store of its own and one keeping it in
// a shared Store write the same history.json: the two descriptions of a
// record the stores are given (the player's own, this package's) agree.
func TestOwnAndSharedStoresWriteTheSameHistory(t *testing.T) {
	m, names, _ := startLineup(t, 1)
	own, shared := t.TempDir(), t.TempDir()
	s := openStore(t, func() (*pstore.Store, error) { return pstore.Open(shared) })
	c := newClient(t)
	// The same results at the same time, for both.
	overs := []*leaguesdk.GameOver{won("R1M1", "P01"), gameOver("R2M1", "", 4, nil), won("R3M1", "X99")}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { return at }
	for _, cfg := range []player.Config{{Name: names[0], League: m.URL, DataRoot: own, Now: now}, {Name: names[0], League: m.URL, Store: s, Now: now}} {
		a, _, stop := startAgent(t, cfg)
		<-a.Registered()
		for _, over := range overs {
			if err := sendGameOver(c, a.Endpoint(), over); err != nil {
				t.Fatal(err)
			}
		}
		stop()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	read := func(root string) (stats, matches string) {
		raw, err := os.ReadFile(filepath.Join(root, "data", "players", testLeague, "P01", "history.json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Stats   json.RawMessage `json:"stats"`
			Matches json.RawMessage `json:"matches"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		return string(f.Stats), string(f.Matches)
	}
	ownStats, ownMatches := read(own)
	sharedStats, sharedMatches := read(shared)
	if ownStats != sharedStats || ownMatches != sharedMatches {
		t.Fatalf("own store: stats %s matches %s\nshared store: stats %s matches %s", ownStats, ownMatches, sharedStats, sharedMatches)
	}
	var st struct{ Wins, Losses, Draws int }
	if err := json.Unmarshal([]byte(ownStats), &st); err != nil || st.Wins != 1 || st.Losses != 1 || st.Draws != 1 ||
		strings.Count(ownMatches, `"match_id"`) != 3 {
		t.Fatalf("history.json holds stats %s and matches %s, want a win, a draw and a loss", ownStats, ownMatches)
	}
}
