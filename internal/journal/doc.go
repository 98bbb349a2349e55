// Package journal keeps an append-only file of records, one JSON document
// per line, made durable by group commit.
//
// Every Append waits until its record is on stable storage, but records
// appended while one flush is running share the next one: a single write
// and a single fsync cover all of them. Under concurrent load the cost of
// durability is paid once per batch instead of once per record, which is
// how databases keep their write-ahead logs.
//
// After a crash, Open repairs the file: a record whose line was not
// completely written (it was never acknowledged) is cut off, and every
// complete record is handed to Config.Replay in order.
//
// A journal that no one reads while it is open can keep space reserved
// ahead of its records (Config.Reserve): zeros the records are written
// over, so that an fsync makes the records durable without a new file size
// to record as well. The first zero byte ends the records; Open cuts off
// what follows it and Close cuts off the zeros.
//
// On Linux the flush waits for its fsync without holding a processor: the
// sync is submitted to the kernel (AIO, IOCB_CMD_FDSYNC or IOCB_CMD_FSYNC)
// and its end awaited on an eventfd through the runtime's network poller,
// so the goroutines of the process run meanwhile. A blocking fsync(2)
// keeps its goroutine's P for as long as the disk takes, in a busy
// process nearly always: the runtime's monitor takes a P back from a
// system call only when it sees the same call twice, and it looks every
// 10 ms when it has had nothing to take back for a while. Where AIO is
// refused (no io_setup in a sandbox, a file system without it) the
// journal makes the blocking call. An open journal holds, besides its
// file, an eventfd and an AIO context for one request.
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
package journal
