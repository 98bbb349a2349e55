package leaguesdk

import (
	"bytes"
	"io"
)

// readAll reads r to its end, at most limit bytes of it when limit is not
// negative (as io.LimitReader would), into a buffer sized for size bytes
// (a Content-Length; negative when unknown).
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	if limit >= 0 {
		r = io.LimitReader(r, limit)
		size = min(size, limit)
	}
	if size < 0 || size > 16<<20 {
		return io.ReadAll(r)
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead) // ReadFrom reads until EOF with MinRead bytes free
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}
