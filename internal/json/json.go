// Package json reads the messages the agents receive: encoding/json's
// [Unmarshal], carried out by github.com/segmentio/encoding/json, a drop-in
// for encoding/json (the official MCP Go SDK reads its messages with it
// too).
//
// It is used where a message's size grows with the league: every player
// receives the league's standings table and the round's matches each
// round, n and n/2 rows for n players. Reading a request that carries a
// 1000-row table takes encoding/json about 1.8 ms and this package about
// 0.35 ms (BenchmarkUnmarshalTable, one run on two cores). Over a whole
// league it is the 1.5x on a figure a user sees that the project asks of
// a replacement of the standard library (CONTRIBUTING.md): the
// 200-player league of the manager's BenchmarkLeague took 44.9 and
// 53.3 s with it against 83.3 and 76.0 s with encoding/json, runs
// alternated on one machine (1.6x); at 1000 players the tables are most
// of the league's work.
//
// The raw parts of a message (json.RawMessage fields) are slices of the
// input, not copies: the input must not be changed while they are in use.
// An input nested deeper than [MaxDepth] is refused before it is read: the
// drop-in has no limit of its own.
//
// Beside Unmarshal: [Tolerant] gives a message type a second, tolerant
// reading of what its plain decoding refuses; [Parts] is a value a client
// sends in pieces, unjoined (a broadcast's shared fields); [Marshal],
// [Append], [MarshalIndent] and [AppendIndent] encode through the drop-in,
// writing encoding/json's bytes: the messages sent, the agents' files and
// records.
//
// Shared by every package of the module that reads or writes a message or a
// file.
package json

import (
	"bytes"
	"errors"
	"fmt"

	segjson "github.com/segmentio/encoding/json"
)

// MaxDepth is the deepest nesting of objects and arrays [Unmarshal] reads,
// as encoding/json's (no message of the protocol nests more than a few
// levels).
const MaxDepth = 10000

// errTooDeep is the error of an input nested deeper than MaxDepth.
var errTooDeep = fmt.Errorf("json: nested deeper than %d levels", MaxDepth)

// Tolerant is implemented by a message type that reads some inputs its
// plain decoding refuses, rather than refusing them too: a table that
// should be an array and came as null, an object or a string, say. Where
// a type's own UnmarshalJSON would have the drop-in read the value twice
// (once to find its end, once more in UnmarshalJSON), a Tolerant type is
// decoded plainly, in one reading, and only an input that fails that is
// read again by UnmarshalTolerant.
type Tolerant interface {
	// UnmarshalTolerant decodes data, which the type's plain decoding
	// refused, into the value, replacing all of it.
	UnmarshalTolerant(data []byte) error
}

// Presizer is implemented by a message type that holds a long slice (a
// table of rows): Presize, given the text about to be decoded into the
// value (it may go on past the value), makes room in the slice for the
// rows the text can hold. The drop-in, as encoding/json, appends to the
// room a slice has; without it the slice grows by doubling, and a
// 1000-row table allocates its rows' headers twice over.
type Presizer interface {
	Presize(data []byte)
}

// Unmarshal decodes data into v as encoding/json.Unmarshal does; the
// json.RawMessage values in v are slices of data. When v is [Tolerant]
// and its plain decoding fails, Unmarshal returns what UnmarshalTolerant
// does.
func Unmarshal(data []byte, v any) error {
	err := unmarshal(data, v)
	if t, ok := v.(Tolerant); ok && err != nil && err != errTooDeep {
		return t.UnmarshalTolerant(data)
	}
	return err
}

func unmarshal(data []byte, v any) error {
	rest, err := prefix(data, v)
	if len(rest) != 0 {
		var syntax *segjson.SyntaxError
		if !errors.As(err, &syntax) {
			// As encoding/json: trailing text is the error reported.
			return fmt.Errorf("json: invalid character %q after top-level value", rest[0])
		}
	}
	return err
}

// tooDeep reports whether data nests objects and arrays deeper than
// MaxDepth, outside strings. It does not check anything else.
func tooDeep(data []byte) bool {
	if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) <= MaxDepth {
		return false // fewer brackets than that: the common case, counted at memory speed
	}
	depth, inString := 0, false
	for i := 0; i < len(data); i++ {
		for i < len(data) && !special[data[i]] {
			i++ // most of the input: one look-up a byte
		}
		if i == len(data) {
			break
		}
		switch c := data[i]; {
		case c == '\\':
			i++ // the escaped byte, in a string (outside one the input is not JSON)
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return true
			}
		default: // ']' or '}'
			depth--
		}
	}
	return false
}

// special marks the bytes tooDeep looks at.
var special = [256]bool{'"': true, '\\': true, '[': true, ']': true, '{': true, '}': true}

// prefix decodes the JSON value at the start of data into v and returns
// the text that follows it, leading spaces removed. It refuses what
// Unmarshal refuses but for the text after the value; Tolerant is not
// consulted.
func prefix(data []byte, v any) (rest []byte, err error) {
	if tooDeep(data) {
		return nil, errTooDeep
	}
	return Next(data, v)
}

// Next decodes the JSON value at the start of data into v, as [Unmarshal]
// does with the whole of a text, and returns the text after the value,
// leading spaces removed. Tolerant is not consulted, and the nesting depth
// is not checked: [Object] checks its whole text once.
func Next(data []byte, v any) (rest []byte, err error) {
	if p, ok := v.(Presizer); ok {
		p.Presize(data)
	}
	return segjson.Parse(data, v, segjson.DontCopyRawMessage)
}

// Object reads data, which must be one JSON object and nothing else, in
// one pass: member is called with each member's name, in the order they
// come, and the text from the member's value on; it reads the value (with
// [Next]) and returns the text after it. A text that is not one object,
// or nested deeper than MaxDepth, is an error; so is what member returns.
func Object(data []byte, member func(name string, value []byte) (rest []byte, err error)) error {
	if tooDeep(data) {
		return errTooDeep
	}
	rest := skipSpaces(data)
	if len(rest) == 0 || rest[0] != '{' {
		return errNotObject
	}
	rest = skipSpaces(rest[1:])
	if len(rest) > 0 && rest[0] == '}' {
		rest = rest[1:]
	} else {
		for {
			if len(rest) == 0 || rest[0] != '"' {
				return errNotObject
			}
			var name string
			var err error
			if rest, err = Next(rest, &name); err != nil {
				return err
			}
			if len(rest) == 0 || rest[0] != ':' {
				return errNotObject
			}
			if rest, err = member(name, skipSpaces(rest[1:])); err != nil {
				return err
			}
			rest = skipSpaces(rest)
			if len(rest) > 0 && rest[0] == ',' {
				rest = skipSpaces(rest[1:])
				continue
			}
			if len(rest) == 0 || rest[0] != '}' {
				return errNotObject
			}
			rest = rest[1:]
			break
		}
	}
	if rest = skipSpaces(rest); len(rest) != 0 {
		return fmt.Errorf("json: invalid character %q after top-level value", rest[0])
	}
	return nil
}

// errNotObject is Object's error for a text that is not one JSON object.
var errNotObject = errors.New("json: not one JSON object")

// skipSpaces returns data without its leading JSON white space.
func skipSpaces(data []byte) []byte {
	for len(data) > 0 && (data[0] == ' ' || data[0] == '\t' || data[0] == '\n' || data[0] == '\r') {
		data = data[1:]
	}
	return data
}

// Parts is one JSON value given as consecutive pieces of its text, for a
// client to send without joining them: a broadcast's fields, encoded once,
// follow each recipient's own envelope. The pieces are not changed.
type Parts [][]byte

// Join returns the value's text in one slice.
func (p Parts) Join() []byte { return bytes.Join(p, nil) }
