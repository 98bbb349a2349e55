package json

import (
	"bytes"
	stdjson "encoding/json"

	segjson "github.com/segmentio/encoding/json"
)

// encodeFlags are encoding/json's: HTML escaped, map keys sorted, raw
// values checked and compacted.
const encodeFlags = segjson.EscapeHTML | segjson.SortMapKeys

// Marshal returns the JSON encoding of v as encoding/json.Marshal does,
// byte for byte, encoded by the drop-in.
func Marshal(v any) ([]byte, error) { return segjson.Marshal(v) }

// Append appends the JSON encoding of v, as [Marshal] writes it, to b and
// returns the extended slice: a caller that encodes many values reuses
// one buffer rather than allocating one per value.
func Append(b []byte, v any) ([]byte, error) { return segjson.Append(b, v, encodeFlags) }

// AppendIndent appends v encoded as encoding/json.MarshalIndent(v, prefix,
// indent) writes it to dst, using scratch (returned, grown, for the next
// call) for the compact encoding on the way.
func AppendIndent(dst *bytes.Buffer, scratch []byte, v any, prefix, indent string) ([]byte, error) {
	scratch, err := Append(scratch[:0], v)
	if err != nil {
		return scratch, err
	}
	return scratch, stdjson.Indent(dst, scratch, prefix, indent)
}

// MarshalIndent is encoding/json.MarshalIndent, encoded by the drop-in.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	_, err := AppendIndent(&buf, nil, v, prefix, indent)
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
