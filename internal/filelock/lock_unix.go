//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// Supported is true where advisory file locks are available.
const Supported = true

// A Lock is an exclusive advisory lock on a file, held until [Lock.Release] or
// the end of the process (a crash releases it).
type Lock struct {
	f *os.File
}

// TryLock takes the lock at path, creating the file, without waiting; ok
// is false when another holder has it.
func TryLock(path string) (l *Lock, ok bool, err error) {
	return take(path, syscall.LOCK_EX|syscall.LOCK_NB)
}

// Acquire takes the lock at path, creating the file, waiting while
// another holder has it.
func Acquire(path string) (*Lock, error) {
	l, _, err := take(path, syscall.LOCK_EX)
	return l, err
}

func take(path string, how int) (*Lock, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return &Lock{f: f}, true, nil
}

// Release gives the lock up, removing its file first when remove is true.
// Release of a nil [Lock] does nothing.
func (l *Lock) Release(remove bool) {
	if l == nil {
		return
	}
	if remove {
		_ = os.Remove(l.f.Name())
	}
	_ = l.f.Close()
}
