//go:build !(linux && (amd64 || arm64 || loong64 || ppc64le || riscv64))

package journal

import "os"

// asyncSyncer is the asynchronous fsync of aio_linux.go; this system has
// none, and journals make blocking syscalls.
type asyncSyncer struct{}

func newAsyncSyncer(bool, func(*os.File) error) *asyncSyncer { return nil }

// sync is never reached (newAsyncSyncer gives none); were it, it syncs.
func (*asyncSyncer) sync(f *os.File) error { return f.Sync() }

func (*asyncSyncer) close() {}
