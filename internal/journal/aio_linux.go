//go:build linux && (amd64 || arm64 || loong64 || ppc64le || riscv64)

package journal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel's AIO commands and flags (linux/aio_abi.h).
const (
	iocbCmdFsync   = 2
	iocbCmdFdsync  = 3
	iocbFlagResfd  = 1
	aioContextSize = 1 // one sync in flight: a journal's group commits are serial
)

// iocb is struct iocb of linux/aio_abi.h on a little-endian machine
// (aio_key before aio_rw_flags), 64 bytes; the fields a sync leaves zero
// are blank.
type iocb struct {
	_      uint64 // aio_data
	_      uint32 // aio_key
	_      uint32 // aio_rw_flags
	opcode uint16
	_      int16 // aio_reqprio
	fildes uint32
	_      [4]uint64 // aio_buf, aio_nbytes, aio_offset, aio_reserved2
	flags  uint32
	resfd  uint32
}

// ioEvent is struct io_event of linux/aio_abi.h.
type ioEvent struct {
	data, obj uint64
	res, res2 int64
}

// asyncSyncer makes a file durable with an fsync the kernel runs on its
// own (Linux AIO, IOCB_CMD_FDSYNC or IOCB_CMD_FSYNC), whose end it
// signals on an eventfd that the Go runtime's network poller waits on.
//
// Why: a goroutine blocked in fsync(2) keeps its processor (its P), and
// the runtime takes it back only when its monitor thread sees the same
// system call twice; in a busy process that thread sleeps up to 10 ms
// between looks, so an fsync of half a millisecond holds a P for all of
// it, and on a two-core machine a journal that syncs a few hundred times
// a second leaves the other goroutines a processor short for a tenth of
// the time. A goroutine waiting on the eventfd is parked instead, and its
// P runs them.
//
// A system without AIO for the file (an old kernel, a file system with
// no fsync for it, a container that forbids io_setup) gets the blocking
// call: the first refusal turns the asynchronous path off.
//
// AIO rather than io_uring: the default seccomp profiles of Docker and
// containerd, which Kubernetes' RuntimeDefault uses, allow the AIO calls
// and refuse io_uring's (moby/moby#46762, containerd/containerd#9320).
//
// Its user makes one call at a time (a journal's under its write lock).
type asyncSyncer struct {
	data     bool                 // fdatasync rather than fsync
	blocking func(*os.File) error // the same sync as a blocking call

	ctx    uintptr  // aio_context_t; 0 once closed or refused
	ev     *os.File // the eventfd, non-blocking, read through the poller
	evfd   uintptr  // its descriptor (ev.Fd would make it blocking)
	events [1]ioEvent
	async  int64 // syncs made asynchronously, for tests
}

// newAsyncSyncer returns a syncer for data syncs (fdatasync) or full ones,
// falling back to blocking, or nil when the system refuses an AIO context
// or an eventfd.
func newAsyncSyncer(data bool, blocking func(*os.File) error) *asyncSyncer {
	var ctx uintptr
	if _, _, e := unix.Syscall(unix.SYS_IO_SETUP, aioContextSize, uintptr(unsafe.Pointer(&ctx)), 0); e != 0 {
		return nil
	}
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		_, _, _ = unix.Syscall(unix.SYS_IO_DESTROY, ctx, 0, 0)
		return nil
	}
	return &asyncSyncer{data: data, blocking: blocking, ctx: ctx, ev: os.NewFile(uintptr(fd), "journal-sync-eventfd"), evfd: uintptr(fd)}
}

// sync makes f durable, asynchronously when it can.
func (s *asyncSyncer) sync(f *os.File) error {
	if s.ctx != 0 {
		done, err := s.submitAndWait(f)
		if done {
			if err == nil {
				s.async++
			}
			return err
		}
		s.close() // refused: blocking syncs from now on
	}
	return s.blocking(f)
}

// submitAndWait runs one asynchronous sync of f. done is false when the
// kernel refused the request, before it started.
func (s *asyncSyncer) submitAndWait(f *os.File) (done bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return true, err
	}
	op := uint16(iocbCmdFsync)
	if s.data {
		op = iocbCmdFdsync
	}
	var submitErr error
	cerr := rc.Control(func(fd uintptr) {
		cb := iocb{opcode: op, fildes: uint32(fd), flags: iocbFlagResfd, resfd: uint32(s.evfd)}
		cbs := [1]*iocb{&cb}
		for {
			n, _, e := unix.Syscall(unix.SYS_IO_SUBMIT, s.ctx, 1, uintptr(unsafe.Pointer(&cbs[0])))
			switch {
			case e == unix.EINTR:
				continue
			case e != 0:
				submitErr = e
			case n != 1:
				submitErr = fmt.Errorf("io_submit took %d requests", n)
			}
			return
		}
	})
	if cerr != nil {
		return true, cerr
	}
	if submitErr != nil {
		return false, submitErr
	}
	// The request is the kernel's now: wait for its completion however
	// long it takes, as a blocking fsync would.
	var count [8]byte
	for {
		n, err := s.ev.Read(count[:])
		if err != nil {
			return true, s.reap(fmt.Errorf("journal: wait for fsync: %w", err))
		}
		if n == 8 && binary.NativeEndian.Uint64(count[:]) > 0 {
			return true, s.reap(nil)
		}
	}
}

// reap collects the finished request's result. It looks without waiting
// first, since the eventfd said the request is done, and waits when the
// event is not there yet; after a failed read of the eventfd it waits all
// the same, for the sync's outcome.
func (s *asyncSyncer) reap(waitErr error) error {
	timeout := &unix.Timespec{}
	if waitErr != nil {
		timeout = nil
	}
	for {
		n, _, e := unix.Syscall6(unix.SYS_IO_GETEVENTS, s.ctx, 1, 1,
			uintptr(unsafe.Pointer(&s.events[0])), uintptr(unsafe.Pointer(timeout)), 0)
		switch {
		case e == unix.EINTR:
			continue
		case e != 0:
			return errors.Join(waitErr, fmt.Errorf("journal: reap fsync: %w", e))
		case n == 0:
			timeout = nil // not there yet: wait for it
			continue
		}
		if res := s.events[0].res; res < 0 {
			return unix.Errno(-res)
		}
		return waitErr
	}
}

// close releases the AIO context and the eventfd; later syncs are
// blocking calls.
func (s *asyncSyncer) close() {
	if s.ctx == 0 {
		return
	}
	_, _, _ = unix.Syscall(unix.SYS_IO_DESTROY, s.ctx, 0, 0)
	_ = s.ev.Close()
	s.ctx = 0
}
