// Package journal keeps an append-only file of records, one JSON document
// per line, made durable by group commit.
//
// Every [Journal.Append] waits until its record is on stable storage, but records
// appended while one flush is running share the next one: a single write
// and a single fsync cover all of them. Under concurrent load the cost of
// durability is paid once per batch instead of once per record, which is
// how databases keep their write-ahead logs.
//
// After a crash, [Open] repairs the file: a record whose line was not
// completely written (it was never acknowledged) is cut off, and every
// complete record is handed to [Config.Replay] in order.
//
// A journal that no one reads while it is open can keep space reserved
// ahead of its records ([Config.Reserve]): zeros the records are written
// over, so that an fsync makes the records durable without a new file size
// to record as well. The first zero byte ends the records; Open cuts off
// what follows it and [Journal.Close] cuts off the zeros.
//
// The flush runs on a goroutine of its own and syncs with a blocking
// fdatasync(2) (fsync elsewhere). While the disk works, that goroutine
// holds its processor (P); a process whose agents wait on such syncs may
// set GOMAXPROCS one above the number of cores so that the others keep
// running (see docs/PERFORMANCE.md).
//
// Quick start:
//
//	j, err := journal.Open(path, journal.Config{Replay: func(rec []byte) error {
//		return apply(rec) // rebuild state; must be idempotent
//	}})
//	...
//	if err := j.Append(ctx, result); err != nil { // durable when nil
//		return err
//	}
//	defer j.Close()
//
// Shared by the manager, the referee and the player's store.
package journal
