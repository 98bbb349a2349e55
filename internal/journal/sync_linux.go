package journal

import (
	"os"

	"golang.org/x/sys/unix"
)

// dataSync makes f's data durable with fdatasync(2): what a later read
// needs (the data, and the size when it changed), not the file's times.
func dataSync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}
