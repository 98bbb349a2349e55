//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package referee

import (
	"errors"
	"os"
	"syscall"
)

// fileLocks is true where a referee can lock its transcript journal, so
// that referees sharing a data root tell a live journal from a crashed one.
const fileLocks = true

// fileLock is an exclusive advisory lock on a file, held until release or
// the process's end (a crash releases it).
type fileLock struct {
	f *os.File
}

// tryLock takes the lock at path without waiting; ok is false when
// another process or referee holds it.
func tryLock(path string) (l *fileLock, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return &fileLock{f: f}, true, nil
}

// release gives the lock up, removing its file first when remove is true.
func (l *fileLock) release(remove bool) {
	if remove {
		_ = os.Remove(l.f.Name())
	}
	_ = l.f.Close()
}
