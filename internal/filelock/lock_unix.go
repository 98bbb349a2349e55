//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filelock

import (
	"os"

	"github.com/gofrs/flock"
)

// Supported is true where advisory file locks are available.
const Supported = true

// A Lock is an exclusive advisory lock on a file, held until [Lock.Release] or
// the end of the process (a crash releases it).
type Lock struct {
	f *flock.Flock
}

// TryLock takes the lock at path, creating the file, without waiting; ok
// is false when another holder has it.
func TryLock(path string) (l *Lock, ok bool, err error) {
	f := newFlock(path)
	if ok, err = f.TryLock(); !ok || err != nil {
		return nil, false, err
	}
	return &Lock{f: f}, true, nil
}

// Acquire takes the lock at path, creating the file, waiting while
// another holder has it.
func Acquire(path string) (*Lock, error) {
	f := newFlock(path)
	if err := f.Lock(); err != nil {
		return nil, err
	}
	return &Lock{f: f}, nil
}

func newFlock(path string) *flock.Flock { return flock.New(path, flock.SetPermissions(0o644)) }

// Release gives the lock up, removing its file first when remove is true
// (while the lock is held, so that no other holder takes the lock of a file
// about to go). Release of a nil [Lock] does nothing.
func (l *Lock) Release(remove bool) {
	if l == nil {
		return
	}
	if remove {
		_ = os.Remove(l.f.Path())
	}
	_ = l.f.Unlock()
}
