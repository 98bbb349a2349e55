//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package leaguesdk

import "net"

// liveness checks whether an idle connection may carry another request.
// Without a way to peek at a socket here, it is assumed to.
type liveness struct{}

func newLiveness(net.Conn) *liveness { return &liveness{} }

// check reports whether the connection may carry another request.
func (*liveness) check() bool { return true }
