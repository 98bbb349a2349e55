package atomicfile

import "golang.org/x/sys/unix"

// exchange swaps the files at a and b in one step (renameat2(2) with
// RENAME_EXCHANGE). It fails when b does not exist or the file system
// cannot exchange names.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
