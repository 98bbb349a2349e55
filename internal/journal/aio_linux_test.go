//go:build linux && (amd64 || arm64 || loong64 || ppc64le || riscv64)

package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// asyncOrSkip opens a syncer, or skips the test where the system gives no
// AIO context (a container that forbids io_setup, say).
func asyncOrSkip(t *testing.T, data bool) *asyncSyncer {
	t.Helper()
	blocking := (*os.File).Sync
	if data {
		blocking = dataSync
	}
	s := newAsyncSyncer(data, blocking)
	if s == nil {
		t.Skip("no AIO context on this system: journals sync with blocking calls")
	}
	t.Cleanup(s.close)
	return s
}

// Every group commit of a journal with the default sync is made by the
// asynchronous path, for a journal with reserved space (fdatasync) and one
// without (fsync), and what it acknowledged is replayed after Close.
func TestJournalsSyncAsynchronously(t *testing.T) {
	asyncOrSkip(t, true) // skips where there is no AIO
	for _, reserve := range []int64{0, 64 << 10} {
		t.Run(fmt.Sprintf("reserve=%d", reserve), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.jsonl")
			j, err := Open(path, Config{Reserve: reserve})
			if err != nil {
				t.Fatal(err)
			}
			if j.async == nil {
				t.Fatal("the journal has no asynchronous syncer")
			}
			if j.async.data != (reserve > 0) {
				t.Fatalf("data sync %v with reserve %d", j.async.data, reserve)
			}
			const n = 64
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					if err := j.AppendRaw(context.Background(), fmt.Appendf(nil, `{"seq":%d}`, i)); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			syncs := j.Stats().Syncs
			async := j.async.async // written before the appends returned
			if syncs == 0 || async != syncs {
				t.Fatalf("%d of %d group commits synced asynchronously", async, syncs)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			replayed := 0
			j, err = Open(path, Config{Replay: func([]byte) error { replayed++; return nil }})
			if err != nil {
				t.Fatal(err)
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			if replayed != n {
				t.Fatalf("%d records replayed, want %d", replayed, n)
			}
		})
	}
}

// A file the kernel will not sync asynchronously (a pipe has no fsync)
// gets the blocking call, whose error is returned, and the syncer keeps to
// blocking calls from then on: a regular file still syncs.
func TestAsyncSyncerFallsBackWhenRefused(t *testing.T) {
	s := asyncOrSkip(t, false)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := s.sync(w); !errors.Is(err, unix.EINVAL) {
		t.Fatalf("sync of a pipe: %v, want EINVAL", err)
	}
	if s.ctx != 0 {
		t.Fatal("the syncer still uses AIO after a refusal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("x\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.sync(f); err != nil {
		t.Fatalf("blocking sync after the fallback: %v", err)
	}
	if s.async != 0 {
		t.Fatalf("%d asynchronous syncs counted", s.async)
	}
}

// A closed syncer syncs with blocking calls, and closing twice is harmless.
func TestAsyncSyncerAfterClose(t *testing.T) {
	s := asyncOrSkip(t, true)
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := s.sync(f); err != nil {
		t.Fatal(err)
	}
	s.close()
	s.close()
	if err := s.sync(f); err != nil {
		t.Fatal(err)
	}
	if s.async != 1 {
		t.Fatalf("%d asynchronous syncs, want the one before close", s.async)
	}
}

// The request and event structures have the kernel's sizes.
func TestAIOStructuresHaveTheKernelsLayout(t *testing.T) {
	if n := unsafe.Sizeof(iocb{}); n != 64 {
		t.Fatalf("iocb is %d bytes, want 64", n)
	}
	if n := unsafe.Offsetof(iocb{}.opcode); n != 16 {
		t.Fatalf("aio_lio_opcode at %d, want 16", n)
	}
	if n := unsafe.Offsetof(iocb{}.fildes); n != 20 {
		t.Fatalf("aio_fildes at %d, want 20", n)
	}
	if n := unsafe.Offsetof(iocb{}.flags); n != 56 {
		t.Fatalf("aio_flags at %d, want 56", n)
	}
	if n := unsafe.Sizeof(ioEvent{}); n != 32 {
		t.Fatalf("io_event is %d bytes, want 32", n)
	}
}
