//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package filelock

// Supported is false where no advisory file lock is available.
const Supported = false

// A Lock stands for a lock that cannot be taken here.
type Lock struct{}

// TryLock never takes a lock here: ok is always false.
func TryLock(string) (l *Lock, ok bool, err error) { return nil, false, nil }

// Acquire takes no lock here and returns nil.
func Acquire(string) (*Lock, error) { return nil, nil }

// Release does nothing.
func (*Lock) Release(bool) {}
