package journal_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/internal/journal"
)

// benchRecord is about the size of a match result record.
var benchRecord = map[string]any{
	"match_id": "R12M345", "round_id": 12, "league_id": "league_2025_even_odd",
	"referee_id": "REF07", "winner": "P0412", "status": "WIN",
	"score": map[string]int{"P0412": 3, "P0977": 0}, "drawn_number": 7,
	"choices": map[string]string{"P0412": "odd", "P0977": "even"},
}

// BenchmarkAppend measures durable appends from many goroutines at once:
// each op is one record on stable storage. Compare its ns/op with
// BenchmarkFsyncPerRecord, measured in the same run:
//
//	go test ./internal/journal -run '^$' -bench . -benchtime 2000x
func BenchmarkAppend(b *testing.B) { benchAppend(b, journal.Config{}) }

// BenchmarkAppendReserved is BenchmarkAppend with space reserved ahead of
// the records (Config.Reserve), as the referees' and players' stores keep
// it: each fsync writes the records, not a new file size as well.
func BenchmarkAppendReserved(b *testing.B) { benchAppend(b, journal.Config{Reserve: 64 << 10}) }

// BenchmarkAppendOne is one writer appending one record at a time (no
// group to share an fsync with): the latency of one durable record.
func BenchmarkAppendOne(b *testing.B) {
	for _, reserve := range []int64{0, 64 << 10} {
		name := "appended"
		if reserve > 0 {
			name = "reserved"
		}
		b.Run(name, func(b *testing.B) {
			j, err := journal.Open(filepath.Join(b.TempDir(), "j.jsonl"), journal.Config{Reserve: reserve})
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			for b.Loop() {
				if err := j.Append(context.Background(), benchRecord); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchAppend(b *testing.B, cfg journal.Config) {
	j, err := journal.Open(filepath.Join(b.TempDir(), "j.jsonl"), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	b.SetParallelism(16) // 16 × GOMAXPROCS writers, as during a busy round
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := j.Append(context.Background(), benchRecord); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	st := j.Stats()
	b.ReportMetric(float64(st.Records)/float64(st.Syncs), "records/fsync")
}

// BenchmarkFsyncPerRecord is the baseline: the same records from the same
// writers, each written and fsynced on its own.
func BenchmarkFsyncPerRecord(b *testing.B) {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "j.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			_, err := f.Write([]byte(`{"match_id":"R12M345","round_id":12,"status":"WIN"}` + "\n"))
			if err == nil {
				err = f.Sync()
			}
			mu.Unlock()
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAtomicRewrite is what a whole-file rewrite per record costs
// (temp file, fsync, rename, directory fsync), for one small file.
func BenchmarkAtomicRewrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rec.json")
	for b.Loop() {
		if err := atomicfile.WriteJSON(path, benchRecord); err != nil {
			b.Fatal(err)
		}
	}
}
