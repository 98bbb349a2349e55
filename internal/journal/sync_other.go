//go:build !linux

package journal

import "os"

// dataSync makes f's data durable; where fdatasync(2) is not to be had,
// with fsync.
func dataSync(f *os.File) error { return f.Sync() }
