// Package gopool runs short tasks on goroutines that are kept for the next
// task rather than started afresh for each.
//
// A goroutine starts with a small stack, and a task that goes through an
// HTTP call grows it several times over, each time by copying it whole. A
// referee starts a few such tasks for every match it plays (an invitation
// and a move asked of each player in parallel, the GAME_OVER deliveries):
// on a new goroutine each, every task pays for growing a stack again. A
// [Pool] hands a task to a goroutine that has finished its last one and
// waits for another, whose stack is grown already.
//
// Shared by the referee, the manager and leaguesdk/inmem.
package gopool

import (
	"sync"
	"time"
)

// DefaultIdle is how long a goroutine of a [Pool] made with [New](0) waits for
// another task before it ends.
const DefaultIdle = 5 * time.Second

// Pool runs tasks on reused goroutines. Its zero value is not usable; make
// one with [New]. It is safe for concurrent use.
type Pool struct {
	idle time.Duration
	work chan func() // unbuffered: a send succeeds only into a waiting goroutine
	quit chan struct{}
	wg   sync.WaitGroup

	mu     sync.Mutex
	closed bool
}

// New returns a [Pool] whose goroutines end once they have waited idle for
// a task ([DefaultIdle] when idle ≤ 0), or when [Pool.Close] is called.
func New(idle time.Duration) *Pool {
	if idle <= 0 {
		idle = DefaultIdle
	}
	return &Pool{idle: idle, work: make(chan func()), quit: make(chan struct{})}
}

// Go runs f on a goroutine of the pool that is waiting for a task, or on a
// new one, which then stays for later tasks. It does not wait for f. After
// Close, f runs on a goroutine of its own that ends with it.
func (p *Pool) Go(f func()) {
	select {
	case p.work <- f:
		return
	default:
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		go f()
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go p.worker(f)
}

// GoWait runs f as [Pool.Go] does, counted in wg: wg.Wait waits for it, as it
// waits for a function given to wg.Go.
func (p *Pool) GoWait(wg *sync.WaitGroup, f func()) {
	wg.Add(1)
	p.Go(func() {
		defer wg.Done()
		f()
	})
}

// worker runs f, then the tasks handed to it, until it has waited p.idle
// for one or the pool is closed.
func (p *Pool) worker(f func()) {
	defer p.wg.Done()
	t := time.NewTimer(p.idle)
	defer t.Stop()
	for {
		f()
		t.Reset(p.idle)
		select {
		case f = <-p.work:
		case <-t.C:
			return
		case <-p.quit:
			return
		}
	}
}

// Close ends the pool's waiting goroutines and waits for the tasks that
// are running to return. It is safe to call more than once.
func (p *Pool) Close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.quit)
	}
	p.mu.Unlock()
	p.wg.Wait()
}
