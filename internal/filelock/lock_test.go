package filelock_test

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/agentleague/league/internal/filelock"
)

func TestLockIsExclusiveUntilReleased(t *testing.T) {
	if !filelock.Supported {
		t.Skip("no file locks on this system")
	}
	path := filepath.Join(t.TempDir(), "j.lock")
	first, ok, err := filelock.TryLock(path)
	if err != nil || !ok {
		t.Fatalf("TryLock of a free lock: ok=%v err=%v", ok, err)
	}
	if _, ok, err := filelock.TryLock(path); err != nil || ok {
		t.Fatalf("TryLock of a held lock: ok=%v err=%v, want false", ok, err)
	}
	var released atomic.Bool
	acquired := make(chan *filelock.Lock)
	go func() {
		l, err := filelock.Acquire(path)
		if err != nil {
			t.Error(err)
		}
		if !released.Load() {
			t.Error("Acquire returned while the lock was held")
		}
		acquired <- l
	}()
	released.Store(true)
	first.Release(false)
	second := <-acquired
	second.Release(true)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("Release(true) left the lock file (%v)", err)
	}
	if l, ok, err := filelock.TryLock(path); err != nil || !ok {
		t.Fatalf("TryLock after Release: ok=%v err=%v", ok, err)
	} else {
		l.Release(true)
	}
}
