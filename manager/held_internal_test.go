package manager

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// BenchmarkMatchesHeld measures what the manager keeps for each match of
// a 1000-player league once every result is recorded (499 500 matches):
// the schedule as begin makes it, each match given to a referee, and each
// result in its kept form, as record leaves it. It reports the heap they
// hold, in all (held-MB) and per match (held-B/match).
//
//	go test ./manager -run '^$' -bench MatchesHeld -benchtime 1x
func BenchmarkMatchesHeld(b *testing.B) {
	const players = 1000
	ids := make([]string, players)
	for i := range ids {
		ids[i] = fmt.Sprintf("P%04d", i+1)
	}
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for range b.N {
		before := heapAlloc()
		m := &Manager{matchByID: map[string]*match{}}
		pairings := RoundRobin(ids)
		schedule := make([][]scheduledMatch, 0, len(pairings))
		for _, round := range pairings {
			ms := make([]scheduledMatch, 0, len(round))
			for _, p := range round {
				ms = append(ms, scheduledMatch{MatchID: p.MatchID, RoundID: p.Round, PlayerA: p.PlayerA, PlayerB: p.PlayerB, RefereeID: "REF01"})
			}
			schedule = append(schedule, ms)
		}
		m.setSchedule(schedule)
		pairings, schedule = nil, nil
		n := 0
		for mt := range m.allMatches() {
			mt.assign("REF01")
			mt.live().attempt = 1
			reason := fmt.Sprintf("%s chose odd, number was %d (odd)", mt.PlayerB, 1+2*(n%5))
			rec := MatchRecord{MatchID: mt.MatchID, RoundID: mt.RoundID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB, RefereeID: "REF01",
				RecordedAt: at.Add(time.Duration(n) * time.Millisecond),
				Result: leaguesdk.MatchResult{Status: leaguesdk.ResultWin, Winner: leaguesdk.OptionalString(mt.PlayerB),
					Score: map[string]int{mt.PlayerA: 0, mt.PlayerB: 3},
					Details: leaguesdk.MatchDetails{DrawnNumber: 1 + 2*(n%5), Reason: reason,
						Choices: map[string]leaguesdk.Parity{mt.PlayerA: leaguesdk.Even, mt.PlayerB: leaguesdk.Odd}}}}
			mt.record, mt.status, mt.run = compactRecord(&rec), leaguesdk.MatchFinished, nil
			m.records = append(m.records, mt)
			n++
		}
		held := heapAlloc() - before
		b.ReportMetric(float64(held)/(1<<20), "held-MB")
		b.ReportMetric(float64(held)/float64(n), "held-B/match")
		runtime.KeepAlive(m)
	}
}

// heapAlloc returns the heap in use after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
