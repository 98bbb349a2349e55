package rules_test

import (
	"io"
	"sync"
)

// draws returns a random source that makes EvenOdd draw the given numbers
// in turn, cycling.
func draws(nums ...int) io.Reader {
	b := make([]byte, len(nums))
	for i, n := range nums {
		b[i] = byte(n - 1)
	}
	return &cycleReader{b: b}
}

type cycleReader struct {
	mu sync.Mutex
	b  []byte
	i  int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range p {
		p[k] = c.b[c.i%len(c.b)]
		c.i++
	}
	return len(p), nil
}
