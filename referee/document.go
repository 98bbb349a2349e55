package referee

import (
	"bytes"
	"encoding/json"
)

// document returns a transcript record (one line of JSON) as the match's
// file holds it: indented for people to read and diff, ending with a
// newline. A record that is not well-formed JSON is written as it is.
func document(record []byte) []byte {
	// Indent grows out to twice the record's length at once, room enough
	// for a transcript's layout and its newline; a smaller buffer given
	// first would be allocated and then dropped.
	var out bytes.Buffer
	if json.Indent(&out, record, "", "  ") != nil {
		return record
	}
	out.WriteByte('\n')
	return out.Bytes()
}
