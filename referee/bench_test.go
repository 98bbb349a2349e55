package referee_test

import (
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

// BenchmarkMatch plays whole even/odd matches one after another: a real
// referee, its transcripts under the benchmark's temporary directory
// (TMPDIR=/dev/shm keeps the disk's flushes out of the time per match),
// against two test players and a test manager over loopback HTTP. Its
// allocations per match are the referee's, the players' and the manager's
// together: compare runs of it rather than read it alone.
func BenchmarkMatch(b *testing.B) {
	mgr := newTestManager(b)
	e := startReferee(b, mgr, func(c *referee.Config) { c.Rand = draws(8) })
	pa := newTestPlayer(b, behaviour{Choice: leaguesdk.Even})
	pb := newTestPlayer(b, behaviour{Choice: leaguesdk.Odd})
	b.ReportAllocs()
	for b.Loop() {
		req := e.match(pa, pb, "P01", "P02")
		n := mgr.reportCount()
		if _, err := e.start(b, req); err != nil {
			b.Fatal(err)
		}
		mgr.waitReportCount(b, n+1, 10*time.Second)
	}
	// The last match's file is written once its report is answered.
	waitFor(b, 10*time.Second, func() bool { return referee.MatchesInMemory(e.ref) == 0 })
}
