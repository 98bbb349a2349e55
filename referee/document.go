package referee

import (
	"bytes"
	"encoding/json"
)

// document returns a transcript record (one line of JSON) as the match's
// file holds it: indented for people to read and diff, ending with a
// newline. A record that is not well-formed JSON is written as it is.
func document(record []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(record) + len(record)/4)
	if json.Indent(&out, record, "", "  ") != nil {
		return record
	}
	out.WriteByte('\n')
	return out.Bytes()
}
