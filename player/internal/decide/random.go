package decide

import (
	"crypto/rand"
	"encoding/binary"
	"io"
	"sync"

	"github.com/agentleague/league/leaguesdk"
)

// lockedReader serialises reads so that a reader that is not safe for
// concurrent use (a seeded generator in a test) can serve concurrent matches.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

// LockedReader returns r, or crypto/rand when r is nil, with its reads
// serialised (r itself when it is one already).
func LockedReader(r io.Reader) io.Reader {
	if lr, ok := r.(*lockedReader); ok {
		return lr
	}
	if r == nil {
		r = rand.Reader
	}
	return &lockedReader{r: r}
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return io.ReadFull(l.r, p)
}

// RandomIndex returns a uniformly chosen index below n (n > 0).
func RandomIndex(r io.Reader, n int) (int, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	// The modulo bias is below 2^-56 for any n a game can have.
	return int(binary.LittleEndian.Uint64(b[:]) % uint64(n)), nil
}

// RandomParity returns even or odd with equal chance.
func RandomParity(r io.Reader) (leaguesdk.Parity, error) {
	i, err := RandomIndex(r, 2)
	if err != nil {
		return "", err
	}
	return [2]leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd}[i], nil
}
