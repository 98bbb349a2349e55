package journal_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentleague/league/internal/journal"
)

type rec struct {
	Seq int    `json:"seq"`
	Who string `json:"who,omitempty"`
}

// reopen opens path again and returns every record it replays.
func reopen(t *testing.T, path string) []rec {
	t.Helper()
	var got []rec
	j, err := journal.Open(path, journal.Config{Replay: func(b []byte) error {
		var r rec
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		got = append(got, r)
		return nil
	}})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return got
}

func open(t *testing.T, path string, cfg journal.Config) *journal.Journal {
	t.Helper()
	j, err := journal.Open(path, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j
}

func TestAppendedRecordsAreReplayedInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "j.jsonl")
	j := open(t, path, journal.Config{})
	for i := range 5 {
		if err := j.Append(context.Background(), rec{Seq: i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got := reopen(t, path)
	if len(got) != 5 {
		t.Fatalf("replayed %d records, want 5: %v", len(got), got)
	}
	for i, r := range got {
		if r.Seq != i {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
	}
	if err := j.Append(context.Background(), rec{}); !errors.Is(err, journal.ErrClosed) {
		t.Fatalf("append after Close: %v, want ErrClosed", err)
	}
}

func TestConcurrentAppendsAreEachDurableOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := open(t, path, journal.Config{})
	const writers, each = 50, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := j.Append(context.Background(), rec{Seq: i, Who: strconv.Itoa(w)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	st := j.Stats()
	if st.Records != writers*each {
		t.Fatalf("stats count %d records, want %d", st.Records, writers*each)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range reopen(t, path) {
		k := fmt.Sprintf("%s/%d", r.Who, r.Seq)
		if seen[k] {
			t.Fatalf("record %s replayed twice", k)
		}
		seen[k] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("replayed %d distinct records, want %d", len(seen), writers*each)
	}
	t.Logf("%d records in %d group commits", st.Records, st.Syncs)
}

// TestRecordsAppendedDuringAFlushShareTheNextOne pins group commit: while
// one fsync runs, every record appended waits for the next one, and all of
// them share it.
func TestRecordsAppendedDuringAFlushShareTheNextOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	var syncs sync.Mutex
	calls := 0
	j := open(t, path, journal.Config{Sync: func(f *os.File) error {
		syncs.Lock()
		calls++
		first := calls == 1
		syncs.Unlock()
		if first {
			entered <- struct{}{}
			<-release
		}
		return f.Sync()
	}})
	ctx := context.Background()
	errs := make(chan error, 11)
	go func() { errs <- j.Append(ctx, rec{Seq: 0}) }()
	<-entered // the first record's flush is under way and held
	const more = 10
	var released sync.WaitGroup
	for i := 1; i <= more; i++ {
		released.Go(func() { errs <- j.Append(ctx, rec{Seq: i}) })
	}
	// The ten appends queue behind the held flush; none is durable yet.
	waitUntil(t, func() bool { return j.Pending() == more })
	select {
	case err := <-errs:
		t.Fatalf("an append returned before its flush: %v", err)
	default:
	}
	if st := j.Stats(); st.Records != 0 {
		t.Fatalf("%d records durable while the first flush was held", st.Records)
	}
	close(release)
	released.Wait()
	for range more + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	st := j.Stats()
	if st.Records != more+1 || st.Syncs != 2 {
		t.Fatalf("stats = %+v, want %d records in 2 group commits", st, more+1)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5 s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestOpenCutsATornLastRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte("{\"seq\":0}\n{\"seq\":1}\n{\"seq\":2,\"who\":\"tor"), 0o644); err != nil {
		t.Fatal(err)
	}
	j := open(t, path, journal.Config{})
	if err := j.Append(context.Background(), rec{Seq: 3}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got := reopen(t, path)
	want := []int{0, 1, 3}
	if len(got) != len(want) {
		t.Fatalf("replayed %v, want seqs %v", got, want)
	}
	for i, r := range got {
		if r.Seq != want[i] {
			t.Fatalf("replayed %v, want seqs %v", got, want)
		}
	}
}

func TestOpenCutsAGarbageTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte("{\"seq\":0}\n\x00\x00\x00\n\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := reopen(t, path); len(got) != 1 || got[0].Seq != 0 {
		t.Fatalf("replayed %v, want the one good record", got)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "{\"seq\":0}\n" {
		t.Fatalf("file after repair = %q", b)
	}
}

func TestOpenRefusesDamageBeforeGoodRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte("{\"seq\":0}\n{broken\n{\"seq\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := journal.Open(path, journal.Config{})
	if err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Open = %v, want an error about a damaged record", err)
	}
}

func TestReplayErrorStopsOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte("{\"seq\":0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	_, err := journal.Open(path, journal.Config{Replay: func([]byte) error { return boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("Open = %v, want the replay error", err)
	}
}

func TestAFailedSyncFailsItsBatchAndEveryLaterAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	disk := errors.New("disk on fire")
	j := open(t, path, journal.Config{Sync: func(*os.File) error { return disk }})
	if err := j.Append(context.Background(), rec{Seq: 1}); !errors.Is(err, disk) {
		t.Fatalf("append = %v, want the sync error", err)
	}
	if err := j.Append(context.Background(), rec{Seq: 2}); !errors.Is(err, disk) {
		t.Fatalf("later append = %v, want the sticky sync error", err)
	}
	if st := j.Stats(); st.Records != 0 {
		t.Fatalf("stats count %d durable records after a failed sync", st.Records)
	}
}

func TestAppendReturnsWhenItsContextEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	release := make(chan struct{})
	j := open(t, path, journal.Config{Sync: func(f *os.File) error { <-release; return f.Sync() }})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- j.Append(ctx, rec{Seq: 1}) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("append = %v, want context.Canceled", err)
	}
}

func TestAppendRawRefusesANewline(t *testing.T) {
	j := open(t, filepath.Join(t.TempDir(), "j.jsonl"), journal.Config{})
	if err := j.AppendRaw(context.Background(), []byte("{\"a\":1}\n{\"b\":2}")); err == nil {
		t.Fatal("a record with a newline was accepted")
	}
}

// AppendAll's records are durable together, with one fsync, in their
// order; a record holding a newline stops them all, and no records return
// at once.
func TestAppendAllSharesOneGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := open(t, path, journal.Config{})
	if err := j.AppendAll(context.Background()); err != nil {
		t.Fatalf("no records: %v", err)
	}
	if err := j.AppendAll(context.Background(), []byte(`{"seq":9}`), []byte("{\n}")); err == nil {
		t.Fatal("a record with a newline was taken")
	}
	if err := j.AppendAll(context.Background(), []byte(`{"seq":0}`), []byte(`{"seq":1}`), []byte(`{"seq":2}`)); err != nil {
		t.Fatal(err)
	}
	if st := j.Stats(); st.Records != 3 || st.Syncs != 1 {
		t.Errorf("stats %+v, want 3 records with one sync", st)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if got := reopen(t, path); len(got) != 3 || got[0].Seq != 0 || got[1].Seq != 1 || got[2].Seq != 2 {
		t.Errorf("replayed %v, want seq 0, 1, 2", got)
	}
}

func TestCompactReplacesTheRecordsAndKeepsAppending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := open(t, path, journal.Config{})
	ctx := context.Background()
	for i := range 10 {
		if err := j.Append(ctx, rec{Seq: i}); err != nil {
			t.Fatal(err)
		}
	}
	err := j.Compact(func(emit func(any) error) error {
		return emit(rec{Seq: 100, Who: "snapshot"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(ctx, rec{Seq: 101}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got := reopen(t, path)
	if len(got) != 2 || got[0].Seq != 100 || got[1].Seq != 101 {
		t.Fatalf("after compaction replayed %v, want the snapshot then seq 101", got)
	}
}

// Compact closes the file it replaced (after letting appends go on), so a
// journal compacted for a whole league keeps one file open.
func TestCompactClosesTheFileItReplaces(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd to count open files")
	}
	openFiles := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := open(t, path, journal.Config{Reserve: journal.DefaultReserve})
	ctx := context.Background()
	before := openFiles()
	for i := range 50 {
		if err := j.Append(ctx, rec{Seq: i}); err != nil {
			t.Fatal(err)
		}
		if err := j.Compact(func(emit func(any) error) error { return emit(rec{Seq: i, Who: "snapshot"}) }); err != nil {
			t.Fatal(err)
		}
	}
	if after := openFiles(); after > before+2 {
		t.Fatalf("%d files open after 50 compactions, %d before: the replaced files stay open", after, before)
	}
	if err := j.Append(ctx, rec{Seq: 50}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if got := reopen(t, path); len(got) != 2 || got[0].Seq != 49 || got[1].Seq != 50 {
		t.Fatalf("replayed %v, want the last snapshot then seq 50", got)
	}
}

func TestCompactThatFailsKeepsTheOldRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := open(t, path, journal.Config{})
	if err := j.Append(context.Background(), rec{Seq: 1}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := j.Compact(func(emit func(any) error) error { _ = emit(rec{Seq: 9}); return boom }); !errors.Is(err, boom) {
		t.Fatalf("Compact = %v, want boom", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if got := reopen(t, path); len(got) != 1 || got[0].Seq != 1 {
		t.Fatalf("replayed %v, want the old record", got)
	}
}

// The crash test runs this test binary as a child that appends from many
// goroutines and prints each record once Append has returned; the parent
// kills it with SIGKILL mid-burst and finds every printed record in the
// journal exactly once.
const (
	crashChildEnv   = "JOURNAL_CRASH_CHILD"
	crashReserveEnv = "JOURNAL_CRASH_RESERVE" // the child's Config.Reserve
)

func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("runs only as the child of TestNothingAcknowledgedIsLostOnSIGKILL")
	}
	var cfg journal.Config
	if r := os.Getenv(crashReserveEnv); r != "" {
		n, err := strconv.Atoi(r)
		if err != nil {
			fmt.Println("reserve:", err)
			os.Exit(2)
		}
		cfg.Reserve = int64(n)
	}
	j, err := journal.Open(path, cfg)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			for i := 0; ; i++ {
				r := rec{Seq: i, Who: strconv.Itoa(w)}
				if err := j.Append(context.Background(), r); err != nil {
					return
				}
				mu.Lock()
				fmt.Fprintf(out, "ack %s/%d\n", r.Who, r.Seq)
				out.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

func TestNothingAcknowledgedIsLostOnSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	// Appended at the end of the file, and written into space reserved
	// ahead of the records (small steps, so that the burst crosses many).
	for _, reserve := range []int{0, 1024} {
		t.Run(fmt.Sprintf("reserve=%d", reserve), func(t *testing.T) { killMidBurst(t, reserve) })
	}
}

func killMidBurst(t *testing.T, reserve int) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path, crashReserveEnv+"="+strconv.Itoa(reserve))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	acked := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		k, ok := strings.CutPrefix(line, "ack ")
		if !ok {
			t.Fatalf("child said %q", line)
		}
		acked[k] = true
		if len(acked) == 2000 {
			// Mid-burst: 16 writers are appending as fast as they can.
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	// Acknowledgements already printed before the kill count too.
	for sc.Scan() {
		if k, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
			acked[k] = true
		}
	}
	_ = cmd.Wait()
	if len(acked) < 2000 {
		t.Fatalf("child acknowledged only %d records before it ended", len(acked))
	}
	seen := map[string]int{}
	for _, r := range reopen(t, path) {
		seen[fmt.Sprintf("%s/%d", r.Who, r.Seq)]++
	}
	for k := range acked {
		if seen[k] != 1 {
			t.Fatalf("acknowledged record %s is in the journal %d times", k, seen[k])
		}
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("record %s is in the journal %d times", k, n)
		}
	}
	t.Logf("%d records acknowledged before SIGKILL, %d in the journal after it", len(acked), len(seen))
}

// A lazy record asks for no group commit of its own: it is written with
// the next Append's, or by Close.
func TestLazyRecordsRideOnTheNextGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j := open(t, path, journal.Config{})
	for i := range 3 {
		if err := j.AppendLazy([]byte(fmt.Sprintf(`{"seq":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	if st := j.Stats(); st.Syncs != 0 || j.Pending() != 3 {
		t.Fatalf("after 3 lazy records: %d syncs, %d pending; want 0 and 3", st.Syncs, j.Pending())
	}
	if err := j.Append(context.Background(), rec{Seq: 3}); err != nil {
		t.Fatal(err)
	}
	// Stats count a group commit before its appenders return.
	if st := j.Stats(); st.Syncs != 1 || st.Records != 4 {
		t.Fatalf("%d group commits of %d records, want one of 4", st.Syncs, st.Records)
	}
	if err := j.AppendLazy([]byte(`{"seq":4}`)); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	got := reopen(t, path)
	if len(got) != 5 || got[4].Seq != 4 {
		t.Fatalf("replayed %v, want seq 0 to 4", got)
	}
	if err := j.AppendLazy([]byte(`{}`)); !errors.Is(err, journal.ErrClosed) {
		t.Fatalf("lazy append after Close: %v, want ErrClosed", err)
	}
}

// appendSeqs appends records seq from..to-1 and fails the test on error.
func appendSeqs(t *testing.T, j *journal.Journal, from, to int) {
	t.Helper()
	for i := from; i < to; i++ {
		if err := j.Append(context.Background(), rec{Seq: i, Who: "reserve"}); err != nil {
			t.Fatal(err)
		}
	}
}

// seqsOf returns the seqs of records.
func seqsOf(records []rec) []int {
	var out []int
	for _, r := range records {
		out = append(out, r.Seq)
	}
	return out
}

// wantSeqs fails the test unless got holds seqs 0..n-1 in order.
func wantSeqs(t *testing.T, got []rec, n int) {
	t.Helper()
	if len(got) != n {
		t.Fatalf("replayed %d records %v, want %d", len(got), seqsOf(got), n)
	}
	for i, r := range got {
		if r.Seq != i {
			t.Fatalf("replayed %v, want seqs 0..%d in order", seqsOf(got), n-1)
		}
	}
}

// With Reserve the file is kept larger than its records, zeros after
// them; what a crash leaves (the file as it is while open) replays every
// record, and Close cuts the file to its records.
func TestReserveKeepsZerosAheadOfTheRecords(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "j.jsonl")
	j := open(t, path, journal.Config{Reserve: 512})
	appendSeqs(t, j, 0, 100) // about 3 KB: several steps of 512 bytes
	records := j.Stats().Bytes
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) <= records {
		t.Fatalf("file of %d bytes for %d bytes of records: nothing reserved", len(b), records)
	}
	if tail := b[records:]; len(bytes.Trim(tail, "\x00")) != 0 {
		t.Fatalf("the reserved space holds %q, want zeros", tail)
	}
	// The file as a crash would leave it.
	crashed := filepath.Join(dir, "crashed.jsonl")
	if err := os.WriteFile(crashed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, reopen(t, crashed), 100)
	if st, err := os.Stat(crashed); err != nil || st.Size() != records {
		t.Fatalf("the crashed file after Open: %v, %v; want its %d bytes of records", st.Size(), err, records)
	}

	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != records {
		t.Fatalf("after Close the file has %v bytes (%v), want its %d bytes of records", st.Size(), err, records)
	}
	wantSeqs(t, reopen(t, path), 100)
}

// A journal with Reserve opened again appends after its records, and a
// compaction starts it over at the snapshot.
func TestReserveAcrossOpenAndCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	cfg := journal.Config{Reserve: 256}
	j := open(t, path, cfg)
	appendSeqs(t, j, 0, 10)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j = open(t, path, cfg)
	appendSeqs(t, j, 10, 20)
	snapshot := func(emit func(any) error) error {
		for i := range 20 {
			if err := emit(rec{Seq: i, Who: "reserve"}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := j.Compact(snapshot); err != nil {
		t.Fatal(err)
	}
	appendSeqs(t, j, 20, 60)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	crashed := filepath.Join(t.TempDir(), "crashed.jsonl")
	if err := os.WriteFile(crashed, b, 0o644); err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, reopen(t, crashed), 60)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, reopen(t, path), 60)
}

// The first zero byte ends the records, with the line that holds it: a
// batch a crash cut short may have reached the disk in part, its later
// blocks without its earlier ones, and none of it was acknowledged.
func TestOpenCutsATornBatchAfterZeros(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	torn := "{\"seq\":0}\n{\"seq\":1}\n{\"seq\":2,\"who\":\"to" + strings.Repeat("\x00", 5000) + "rn\"}\n{\"seq\":3}\n" + strings.Repeat("\x00", 3000)
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	j := open(t, path, journal.Config{Reserve: 4096})
	appendSeqs(t, j, 2, 4)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	wantSeqs(t, reopen(t, path), 4)
	b, _ := os.ReadFile(path)
	if bytes.IndexByte(b, 0) >= 0 {
		t.Fatalf("zeros left in the file after Close: %q", b)
	}
}
