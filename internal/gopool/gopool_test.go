package gopool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitGoroutines waits until at most n goroutines run, failing after 10 s.
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, want at most %d", runtime.NumGoroutine(), n)
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
}

func TestTasksReuseGoroutines(t *testing.T) {
	base := runtime.NumGoroutine()
	p := New(time.Minute)
	defer p.Close()
	const tasks = 200
	for range tasks {
		done := make(chan struct{})
		p.Go(func() { close(done) })
		<-done
	}
	// Each task started after the last one returned: a pool that started a
	// goroutine per task would hold about 200 waiting ones now.
	if n := runtime.NumGoroutine() - base; n > 20 {
		t.Fatalf("%d goroutines for %d tasks run one after another", n, tasks)
	}
}

func TestEveryTaskRunsOnce(t *testing.T) {
	p := New(time.Minute)
	var ran atomic.Int64
	var wg sync.WaitGroup
	const callers, each = 8, 500
	for range callers {
		wg.Go(func() {
			var inner sync.WaitGroup
			for range each {
				p.GoWait(&inner, func() { ran.Add(1) })
			}
			inner.Wait()
		})
	}
	wg.Wait()
	p.Close()
	if got := ran.Load(); got != callers*each {
		t.Fatalf("%d tasks ran, want %d", got, callers*each)
	}
}

func TestIdleGoroutinesEnd(t *testing.T) {
	base := runtime.NumGoroutine()
	p := New(20 * time.Millisecond)
	defer p.Close()
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 10 {
		wg.Add(1)
		p.Go(func() { defer wg.Done(); <-release })
	}
	if n := runtime.NumGoroutine() - base; n < 10 {
		t.Fatalf("%d goroutines run 10 blocked tasks", n)
	}
	close(release)
	wg.Wait()
	waitGoroutines(t, base)
}

func TestCloseWaitsForRunningTasks(t *testing.T) {
	base := runtime.NumGoroutine()
	p := New(time.Minute)
	release := make(chan struct{})
	started := make(chan struct{})
	var done atomic.Bool
	p.Go(func() {
		close(started)
		<-release
		time.Sleep(time.Millisecond) // the task is still running when release is closed
		done.Store(true)
	})
	<-started
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	close(release)
	<-closed
	if !done.Load() {
		t.Fatal("Close returned before the running task did")
	}
	waitGoroutines(t, base)
	p.Close() // a second Close does nothing
}

func TestGoAfterClose(t *testing.T) {
	p := New(time.Minute)
	p.Close()
	done := make(chan struct{})
	p.Go(func() { close(done) })
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a task given after Close did not run")
	}
}

func BenchmarkGo(b *testing.B) {
	// A task that needs a deeper stack than a new goroutine has, as a
	// call through the HTTP client does.
	task := func(wg *sync.WaitGroup) {
		var deep func(n int) int
		deep = func(n int) int {
			var pad [256]byte
			pad[n%256] = byte(n)
			if n == 0 {
				return int(pad[0])
			}
			return deep(n-1) + int(pad[n%256])
		}
		deep(100)
		wg.Done()
	}
	b.Run("go", func(b *testing.B) {
		var wg sync.WaitGroup
		for b.Loop() {
			wg.Add(1)
			go task(&wg)
			wg.Wait()
		}
	})
	b.Run("pool", func(b *testing.B) {
		p := New(time.Minute)
		defer p.Close()
		var wg sync.WaitGroup
		for b.Loop() {
			wg.Add(1)
			p.Go(func() { task(&wg) })
			wg.Wait()
		}
	})
}
