package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	wirejson "github.com/agentleague/league/internal/json"
)

// ErrClosed is returned by [Journal.Append] after Close.
var ErrClosed = errors.New("journal: closed")

// Config configures a [Journal]. The zero value is usable.
type Config struct {
	// Replay, when set, is called by [Open] with each complete record of the
	// file, in order, before Open returns. An error stops Open. A record
	// may be replayed twice across a compaction (once in the compacted
	// snapshot, once after it), so applying it must be idempotent.
	Replay func(record []byte) error
	// OnSync, when set, is called after each group commit with the number
	// of records it made durable, the bytes written and the time the write
	// and fsync took. It runs on the journal's flushing goroutine and must
	// return quickly.
	OnSync func(records, bytes int, took time.Duration)
	// Sync makes the written bytes durable. Default ([*os.File]).Sync, or
	// with Reserve fdatasync(2) where the system has it.
	Sync func(f *os.File) error
	// Reserve, when positive, keeps the file larger than its records: the
	// journal extends it with zeros ahead of the records, by at least
	// Reserve bytes at a time (more as the file grows, up to 4 MiB), so
	// that a group commit writes into space the file already has and its
	// fsync need not record a new file size as well. On ext4 that halves
	// the time an fsync takes. The zeros after the records are not part of
	// the journal: [Open] cuts them off and [Journal.Close] truncates the file to its
	// records. For journals that people and tools do not read while they
	// are open (a tool reading a line-oriented file would meet the zeros).
	Reserve int64
}

// DefaultReserve is a [Config.Reserve] for a journal of small records
// written often: a step of zeros per few hundred records at first.
const DefaultReserve = 64 << 10

// maxReserveStep bounds the zeros added to a file with Config.Reserve at
// one time.
const maxReserveStep = 4 << 20

// Stats counts what a [Journal] has done since [Open].
type Stats struct {
	// Records is the number of records appended and made durable.
	Records int64
	// Syncs is the number of group commits (write + fsync) made.
	Syncs int64
	// Bytes is the size of the file.
	Bytes int64
}

// A Journal appends records to one file. It is safe for concurrent use.
type Journal struct {
	path string
	cfg  Config

	// wmu is held while the file is written, synced or replaced; mu guards
	// everything below it and is never held across I/O.
	wmu sync.Mutex
	f   *os.File
	// With Config.Reserve: end is where the next records go, size the
	// file's size (end plus the zeros reserved after it).
	end, size int64

	mu      sync.Mutex
	wake    *sync.Cond
	buf     []byte // encoded records not yet written
	spare   []byte
	pending int    // records in buf
	waiting int    // records in buf whose appenders wait for them (not AppendLazy's)
	cur     *batch // the batch buf belongs to
	err     error  // sticky: after a failed write nothing more is appended
	closed  bool
	stats   Stats
	stopped chan struct{}
}

// batch is the set of records one group commit makes durable.
type batch struct {
	done chan struct{}
	err  error
}

func newBatch() *batch { return &batch{done: make(chan struct{})} }

// Open opens the journal at path, creating it (and its directory) when it
// does not exist, repairs a torn last record, replays the records through
// cfg.Replay and starts accepting appends.
func Open(path string, cfg Config) (*Journal, error) {
	if cfg.Sync == nil {
		cfg.Sync = (*os.File).Sync
		if cfg.Reserve > 0 {
			cfg.Sync = dataSync
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|cfg.appendFlag(), 0o644)
	if err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	if errors.Is(statErr, os.ErrNotExist) {
		if err := atomicfile.SyncDir(dir); err != nil {
			f.Close()
			return nil, fmt.Errorf("journal: open %s: %w", path, err)
		}
	}
	size, err := replay(f, cfg)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("journal: open %s: %w", path, err)
	}
	j := &Journal{path: path, cfg: cfg, f: f, cur: newBatch(), stopped: make(chan struct{}), end: size, size: size}
	j.stats.Bytes = size
	j.wake = sync.NewCond(&j.mu)
	go j.flush()
	return j, nil
}

// appendFlag is the flag the file is opened with: O_APPEND, except with
// Reserve, where records are written at their offset, before the zeros.
func (cfg Config) appendFlag() int {
	if cfg.Reserve > 0 {
		return 0
	}
	return os.O_APPEND
}

// replay reads every complete record of f, hands it to cfg.Replay, cuts
// off a torn tail and returns the size of the good part.
//
// The first zero byte ends the records, whatever follows it: JSON text
// never holds one, and every acknowledged record was made durable before
// any later byte was written, so a zero byte lies in space reserved ahead
// of the records (Config.Reserve) or in a batch a crash cut short, and
// nothing from the line that holds it on was acknowledged.
func replay(f *os.File, cfg Config) (int64, error) {
	r := bufio.NewReaderSize(f, 256<<10)
	var good int64 // end of the last good record
	var badAt int64 = -1
	var off int64
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A record longer than the buffer: gather it whole.
			// (Zeros end it: reserved space is not gathered.)
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) && bytes.IndexByte(line, 0) < 0 {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if i := bytes.IndexByte(line, 0); i >= 0 {
			// Reserved space or a torn batch: the records end before
			// this line. The file's size decides the cut.
			st, serr := f.Stat()
			if serr != nil {
				return 0, serr
			}
			off = st.Size()
			break
		}
		if len(line) > 0 {
			complete := line[len(line)-1] == '\n'
			rec := bytes.TrimSpace(line)
			switch {
			case !complete:
				// The last record was cut by a crash: it was never acknowledged.
			case len(rec) == 0:
				if badAt < 0 {
					good = off + int64(len(line))
				}
			case !json.Valid(rec):
				if badAt < 0 {
					badAt = off
				}
			case badAt >= 0:
				return 0, fmt.Errorf("record at byte %d is damaged and complete records follow it", badAt)
			default:
				if cfg.Replay != nil {
					if err := cfg.Replay(rec); err != nil {
						return 0, fmt.Errorf("replaying record at byte %d: %w", off, err)
					}
				}
				good = off + int64(len(line))
			}
			off += int64(len(line))
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if good < off {
		// Only the tail is damaged: what a crash leaves of unacknowledged records.
		if err := f.Truncate(good); err != nil {
			return 0, err
		}
		if err := cfg.Sync(f); err != nil {
			return 0, err
		}
	}
	return good, nil
}

// Append encodes each of vs as one JSON line and returns when all of them
// are durable, in one group commit as [Journal.AppendAll]'s, or with an error (none
// is appended when one does not encode). When ctx ends first, Append
// returns ctx's error; the records may still be written, so their effect
// must not be acknowledged.
func (j *Journal) Append(ctx context.Context, vs ...any) error {
	if len(vs) == 1 { // the usual case: one record, one encoding, nothing else allocated
		line, err := wirejson.Marshal(vs[0])
		if err != nil {
			return fmt.Errorf("journal: encode record: %w", err)
		}
		return j.AppendAll(ctx, line)
	}
	// The records encoded one after another into one buffer.
	var buf []byte
	ends := make([]int, len(vs))
	for i, v := range vs {
		var err error
		if buf, err = wirejson.Append(buf, v); err != nil {
			return fmt.Errorf("journal: encode record: %w", err)
		}
		ends[i] = len(buf)
	}
	records := make([][]byte, len(vs))
	for i, end := range ends {
		start := 0
		if i > 0 {
			start = ends[i-1]
		}
		records[i] = buf[start:end:end]
	}
	return j.AppendAll(ctx, records...)
}

// AppendRaw appends one record given as JSON (without a newline; it must
// not contain one) and returns when it is durable, like Append.
func (j *Journal) AppendRaw(ctx context.Context, record []byte) error {
	return j.AppendAll(ctx, record)
}

// AppendAll appends records in order, each given as JSON like [Journal.AppendRaw]'s,
// and returns when all of them are durable: they share one group commit
// (and, being written together, one crash keeps a prefix of them). No
// record is appended when one of them holds a newline; no records return
// at once.
func (j *Journal) AppendAll(ctx context.Context, records ...[]byte) error {
	if len(records) == 0 {
		return nil
	}
	for _, r := range records {
		if bytes.IndexByte(r, '\n') >= 0 {
			return errors.New("journal: a record must not contain a newline")
		}
	}
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return ErrClosed
	}
	if j.err != nil {
		err := j.err
		j.mu.Unlock()
		return err
	}
	for _, r := range records {
		j.buf = append(j.buf, r...)
		j.buf = append(j.buf, '\n')
	}
	j.pending += len(records)
	j.waiting += len(records)
	b := j.cur
	j.wake.Signal()
	j.mu.Unlock()
	select {
	case <-b.done:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AppendLazy appends one record like [Journal.AppendRaw] but neither waits for it
// nor asks for a write of its own: the record is written and made durable
// with the next group commit an [Journal.Append] asks for, or by Close. It is for a
// record nothing is acknowledged on, whose loss in a crash costs nothing
// (a note that can be worked out again), so that it shares an fsync
// instead of paying one.
func (j *Journal) AppendLazy(record []byte) error {
	if bytes.IndexByte(record, '\n') >= 0 {
		return errors.New("journal: a record must not contain a newline")
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	if j.err != nil {
		return j.err
	}
	j.buf = append(j.buf, record...)
	j.buf = append(j.buf, '\n')
	j.pending++
	return nil
}

// flush is the journal's one writer: it takes everything appended so far,
// writes it with one write and one fsync, releases its appenders, and
// starts over; appends made meanwhile wait for the next round.
func (j *Journal) flush() {
	defer close(j.stopped)
	j.mu.Lock()
	for {
		for j.waiting == 0 && !j.closed {
			j.wake.Wait()
		}
		if j.pending == 0 {
			j.mu.Unlock()
			return
		}
		if !j.closed {
			// Let the goroutines ready to append do so first: records
			// that arrive together (both players' results of a match)
			// then share this group commit instead of queuing for the
			// next one. It costs a yield, not a wait.
			j.mu.Unlock()
			runtime.Gosched()
			j.mu.Lock()
		}
		buf, n, b := j.buf, j.pending, j.cur
		j.buf, j.pending, j.waiting, j.cur = j.spare[:0], 0, 0, newBatch()
		err := j.err
		j.mu.Unlock()

		start := time.Now()
		if err == nil {
			err = j.write(buf)
		}
		took := time.Since(start)

		// The stats count the batch before its appenders return, so that
		// Stats after an Append includes it.
		j.mu.Lock()
		if err != nil {
			if j.err == nil {
				j.err = fmt.Errorf("journal: write %s: %w", j.path, err)
			}
		} else {
			j.stats.Records += int64(n)
			j.stats.Syncs++
			j.stats.Bytes += int64(len(buf))
		}
		j.mu.Unlock()
		b.err = err
		close(b.done)
		if err == nil && j.cfg.OnSync != nil {
			j.cfg.OnSync(n, len(buf), took)
		}

		j.mu.Lock()
		j.spare = buf[:0]
	}
}

func (j *Journal) write(buf []byte) error {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if j.cfg.Reserve <= 0 {
		if _, err := j.f.Write(buf); err != nil {
			return err
		}
		return j.sync()
	}
	if need := j.end + int64(len(buf)); need > j.size {
		if err := j.reserve(need); err != nil {
			return err
		}
	}
	if _, err := j.f.WriteAt(buf, j.end); err != nil {
		return err
	}
	j.end += int64(len(buf))
	return j.sync()
}

// sync makes what was written to j.f durable. j.wmu must be held.
func (j *Journal) sync() error {
	return j.cfg.Sync(j.f)
}

// reserve extends the file with zeros to beyond need: by Config.Reserve,
// or by the file's own size up to maxReserveStep, whichever is more. The
// zeros become durable with the sync that follows. j.wmu must be held.
func (j *Journal) reserve(need int64) error {
	step := max(j.cfg.Reserve, min(j.size, maxReserveStep))
	zeros := make([]byte, min(step, 64<<10))
	for off, to := j.size, need+step; off < to; {
		n := min(int64(len(zeros)), to-off)
		if _, err := j.f.WriteAt(zeros[:n], off); err != nil {
			return err
		}
		off += n
		j.size = off
	}
	return nil
}

// Compact replaces the journal's content with the records snapshot emits,
// atomically: after a crash the file holds either the old records or the
// new ones. Records appended while Compact runs are written after the
// snapshot. snapshot is called with no lock of the journal's held except
// the one that keeps writes out, so it may take the caller's own locks.
func (j *Journal) Compact(snapshot func(emit func(v any) error) error) error {
	replaced, err := j.compact(snapshot)
	if replaced != nil {
		// Closing the replaced file frees its blocks, which a file system
		// mounted with online discard trims before close returns: done
		// once appends may go on, not while they wait.
		_ = replaced.Close()
	}
	return err
}

// compact is Compact with the journal's writes held off. It returns the
// file the compacted one replaced, still open.
func (j *Journal) compact(snapshot func(emit func(v any) error) error) (*os.File, error) {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	j.mu.Lock()
	if err := j.err; err != nil || j.closed {
		j.mu.Unlock()
		if err == nil {
			err = ErrClosed
		}
		return nil, err
	}
	j.mu.Unlock()

	var data []byte
	emit := func(v any) error {
		var err error
		if data, err = wirejson.Append(data, v); err != nil {
			return fmt.Errorf("journal: encode record: %w", err)
		}
		data = append(data, '\n')
		return nil
	}
	if err := snapshot(emit); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(j.path, data, 0o644); err != nil {
		return nil, fmt.Errorf("journal: compact: %w", err)
	}
	f, err := os.OpenFile(j.path, os.O_RDWR|j.cfg.appendFlag(), 0o644)
	if err != nil {
		// The new file is in place but cannot be appended to: stop here
		// rather than write to the replaced one.
		j.mu.Lock()
		j.err = fmt.Errorf("journal: reopen %s after compaction: %w", j.path, err)
		j.mu.Unlock()
		return nil, j.err
	}
	old := j.f
	j.f = f
	j.end, j.size = int64(len(data)), int64(len(data))
	j.mu.Lock()
	j.stats.Bytes = int64(len(data))
	j.mu.Unlock()
	return old, nil
}

// Stats returns what the journal has done since [Open].
func (j *Journal) Stats() Stats {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stats
}

// Pending returns the number of records appended that are not yet durable.
func (j *Journal) Pending() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.pending
}

// Path returns the journal's file.
func (j *Journal) Path() string { return j.path }

// Close makes every record appended before it durable, then closes the
// file (cut to its records, with [Config.Reserve]). Appends after Close fail
// with [ErrClosed]. Close is idempotent.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		<-j.stopped
		return nil
	}
	j.closed = true
	j.wake.Signal()
	j.mu.Unlock()
	<-j.stopped
	j.wmu.Lock()
	defer j.wmu.Unlock()
	var err error
	if j.size > j.end {
		// No sync: were the cut lost, Open would cut the zeros again.
		err = j.f.Truncate(j.end)
	}
	err = errors.Join(err, j.f.Close())
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if err != nil {
		return fmt.Errorf("journal: close %s: %w", j.path, err)
	}
	return nil
}
