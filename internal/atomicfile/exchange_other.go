//go:build !linux

package atomicfile

import "errors"

// exchange reports that this system cannot swap two files in one step:
// Rewrite then renames.
func exchange(a, b string) error { return errors.ErrUnsupported }
