//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package leaguesdk

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// liveness checks whether an idle connection may carry another request:
// the peer has neither closed it nor sent anything unasked. It peeks at the
// socket without blocking: end of file or unexpected bytes mean it may
// not. It is made once per connection, so that a check allocates nothing.
type liveness struct {
	rc    syscall.RawConn // nil: the connection cannot be checked
	peek  func(fd uintptr) bool
	alive bool
	buf   [1]byte
}

func newLiveness(conn net.Conn) *liveness {
	l := &liveness{}
	if sc, ok := conn.(syscall.Conn); ok {
		l.rc, _ = sc.SyscallConn()
	}
	l.peek = func(fd uintptr) bool {
		for {
			_, _, err := unix.Recvfrom(int(fd), l.buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			// Nothing to read yet is the one good answer: a byte, end of
			// file (no error) and any other error are not.
			l.alive = errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EWOULDBLOCK)
			return true
		}
	}
	return l
}

// check reports whether the connection may carry another request.
func (l *liveness) check() bool {
	if l.rc == nil {
		return true
	}
	l.alive = false
	return l.rc.Read(l.peek) == nil && l.alive
}
