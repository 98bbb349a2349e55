// Package jsonscan reads the structure of JSON text without decoding it:
// it checks that text is well formed, finds where a value ends, and walks
// the members of an object or the elements of an array, handing out the
// bytes of each value.
//
// It accepts exactly the text encoding/json accepts (RFC 8259, invalid
// UTF-8 tolerated as encoding/json tolerates it, nesting up to 10000
// levels), in one pass with no allocation, so that a message can be
// checked and taken apart once, and only the parts read are decoded.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// SyntaxError describes malformed JSON text.
type SyntaxError struct {
	Offset int    // where the text stops being valid JSON
	Msg    string // what was wrong there
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("jsonscan: %s at offset %d", e.Msg, e.Offset)
}

// ErrNotObject and ErrNotArray are returned by Object and Array for a
// well-formed value of another kind.
var (
	ErrNotObject = errors.New("jsonscan: not an object")
	ErrNotArray  = errors.New("jsonscan: not an array")
)

// Valid reports whether b is one JSON value, with optional white space
// around it.
func Valid(b []byte) bool {
	_, err := Value(b)
	return err == nil
}

// Value checks that b is one JSON value with optional white space around
// it and returns the value without the white space.
func Value(b []byte) ([]byte, error) {
	start := skipSpace(b, 0)
	end, err := skip(b, start, 0)
	if err != nil {
		return nil, err
	}
	if i := skipSpace(b, end); i != len(b) {
		return nil, &SyntaxError{i, "text after the value"}
	}
	return b[start:end], nil
}

// Object checks that b is a well-formed JSON object (with optional white
// space around it) and calls fn with each member in order: key is the
// member's name as written between its quotes, escaped reports whether it
// holds escape sequences (then key is not the name itself: unquote it),
// and value is the member's value without white space. An error from fn
// stops the walk and is returned. A well-formed value that is not an
// object returns ErrNotObject; malformed text a *SyntaxError, possibly
// after fn has seen the members before the fault.
func Object(b []byte, fn func(key []byte, escaped bool, value []byte) error) error {
	return object(b, fn, nil)
}

// object is Object, or with value not nil checkMembers.
func object(b []byte, fn func(key []byte, escaped bool, value []byte) error, value memberValue) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		if _, err := Value(b); err != nil {
			return err
		}
		return ErrNotObject
	}
	end, err := skipObject(b, i, 1, fn, value)
	if err != nil {
		return err
	}
	return trailing(b, end)
}

// Array checks that b is a well-formed JSON array (with optional white
// space around it) and calls fn with each element in order, without white
// space. Errors are as for Object, with ErrNotArray for another kind of
// value.
func Array(b []byte, fn func(elem []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		if _, err := Value(b); err != nil {
			return err
		}
		return ErrNotArray
	}
	end, err := skipArray(b, i, 1, fn)
	if err != nil {
		return err
	}
	return trailing(b, end)
}

// String returns the content of the JSON string s (with its quotes) when
// it holds no escape sequence and is valid UTF-8, that is when the content
// is the string itself; ok is false for any other value, or for a string
// that must be unquoted with encoding/json.
func String(s []byte) (content []byte, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, false
	}
	for _, c := range s[1 : len(s)-1] {
		if c == '\\' || c == '"' || c < 0x20 {
			return nil, false
		}
	}
	if !utf8.Valid(s[1 : len(s)-1]) {
		return nil, false
	}
	return s[1 : len(s)-1], true
}

func trailing(b []byte, i int) error {
	if i = skipSpace(b, i); i != len(b) {
		return &SyntaxError{i, "text after the value"}
	}
	return nil
}

func syntax(b []byte, i int, want string) error {
	if i >= len(b) {
		return &SyntaxError{len(b), "unexpected end of input, want " + want}
	}
	return &SyntaxError{i, fmt.Sprintf("invalid character %q, want %s", b[i], want)}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// skip returns the end of the value that starts at offset i of b, with no white space
// before it; depth is the nesting level of the value's container.
func skip(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, syntax(b, i, "a value")
	}
	// The commonest values first: the strings and small integers of a
	// table's rows, and the rows themselves.
	switch c := b[i]; {
	case c == '"':
		end, _, err := skipString(b, i)
		return end, err
	case c-'1' < 9:
		// An integer ends at the first byte that is not a digit; a
		// fraction or an exponent is left to skipNumber.
		j := i + 1
		for j < len(b) && b[j]-'0' < 10 {
			j++
		}
		if j < len(b) && (b[j] == '.' || b[j]|0x20 == 'e') {
			return skipNumber(b, i)
		}
		return j, nil
	case c == '{':
		return skipObject(b, i, depth+1, nil, nil)
	case c == '[':
		return skipArray(b, i, depth+1, nil)
	case c == '-' || c == '0':
		return skipNumber(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return 0, syntax(b, i, "a value")
}

func literal(b []byte, i int, lit string) (int, error) {
	for k := 0; k < len(lit); k++ {
		if i+k >= len(b) || b[i+k] != lit[k] {
			return 0, syntax(b, i+k, "literal "+lit)
		}
	}
	return i + len(lit), nil
}

// memberValue checks the value of a member whose key is key and which
// starts at offset start, and returns where it ends.
type memberValue func(key []byte, escaped bool, start int) (end int, err error)

// skipObject returns the end of the object that starts at offset i of b,
// calling fn with each member once its value is checked; or, when value is
// not nil, leaving each value to value instead.
func skipObject(b []byte, i, depth int, fn func(key []byte, escaped bool, value []byte) error, value memberValue) (int, error) {
	if depth > maxDepth {
		return 0, &SyntaxError{i, "nesting too deep"}
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, syntax(b, i, "object key")
		}
		kstart := i
		kend, esc, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, syntax(b, i, "':' after object key")
		}
		vstart := skipSpace(b, i+1)
		if value != nil {
			if i, err = value(b[kstart+1:kend-1], esc, vstart); err != nil {
				return 0, err
			}
		} else if vstart < len(b) && b[vstart]-'1' < 9 {
			// A small integer, the commonest value of a table's rows, as
			// skip reads it, without a call more (measured: a twentieth
			// of a table's walk, more than a helper function keeps).
			i = vstart + 1
			for i < len(b) && b[i]-'0' < 10 {
				i++
			}
			if i < len(b) && (b[i] == '.' || b[i]|0x20 == 'e') {
				if i, err = skipNumber(b, vstart); err != nil {
					return 0, err
				}
			}
		} else if i, err = skip(b, vstart, depth); err != nil {
			return 0, err
		}
		if fn != nil {
			if err := fn(b[kstart+1:kend-1], esc, b[vstart:i]); err != nil {
				return 0, err
			}
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return i + 1, nil
		}
		return 0, syntax(b, i, "',' or '}' in object")
	}
}

func skipArray(b []byte, i, depth int, fn func(elem []byte) error) (int, error) {
	if depth > maxDepth {
		return 0, &SyntaxError{i, "nesting too deep"}
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		start := i
		var err error
		if i, err = skip(b, i, depth); err != nil {
			return 0, err
		}
		if fn != nil {
			if err := fn(b[start:i]); err != nil {
				return 0, err
			}
		}
		i = skipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		return 0, syntax(b, i, "',' or ']' in array")
	}
}

// skipString returns the end of the string whose quote is at offset i of b, and
// whether it holds escape sequences.
func skipString(b []byte, i int) (end int, escaped bool, err error) {
	// Eight bytes at a time up to the first quote, backslash or control
	// character; most strings (keys, ids, names) end at the first one.
	// The word is read from a slice with a capacity of its own, so that
	// the compiler reads it at offset i directly rather than guard first
	// against a slice of nothing (the guard lengthens every string's wait
	// for its end by a few cycles: measured, a sixth of a table's walk).
	for i++; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i : i+8 : i+8])
		q := zeroBytes(x ^ (ones * '"'))
		other := zeroBytes(x^(ones*'\\')) | controlBytes(x)
		if q|other == 0 {
			continue
		}
		// The lowest byte marked in q is a quote, and one marked in other
		// at or below it is a backslash or a control character (false
		// marks only follow a true one). The end is found from q alone,
		// so that it waits on the least work.
		if other&(q^(q-1)) == 0 {
			return i + bits.TrailingZeros64(q)/8 + 1, false, nil
		}
		i += bits.TrailingZeros64(q|other) / 8
		break
	}
	return skipStringRest(b, i)
}

// skipStringRest is skipString from offset i, inside a string with no
// escape sequence before i, on.
func skipStringRest(b []byte, i int) (end int, escaped bool, err error) {
	for i < len(b) {
		// Eight bytes at a time up to the first quote, backslash or
		// control character.
		for i+8 <= len(b) {
			m := specialInString(binary.LittleEndian.Uint64(b[i : i+8 : i+8]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8
			break
		}
		if i >= len(b) {
			break
		}
		c := b[i]
		switch {
		case c == '"':
			return i + 1, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return 0, false, syntax(b, i+1, "escape sequence")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := 2; k < 6; k++ {
					if i+k >= len(b) || !isHex(b[i+k]) {
						return 0, false, syntax(b, i+k, "hexadecimal digit in \\u escape")
					}
				}
				i += 6
			default:
				return 0, false, syntax(b, i+1, "escape sequence")
			}
		case c < 0x20:
			return 0, false, &SyntaxError{i, "control character in string"}
		default:
			i++
		}
	}
	return 0, false, syntax(b, i, "closing quote")
}

// Bit tricks over the eight bytes of a word, the first byte in the low
// bits: each function returns a word with the top bit set in the bytes
// that match, exactly for the lowest matching byte (bytes above it may be
// marked falsely, by a borrow, which the callers never read).
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// zeroBytes marks the bytes of x that are zero.
func zeroBytes(x uint64) uint64 { return (x - ones) & ^x & highs }

// quoteOrBackslash marks the bytes of x that are '"' or '\\'.
func quoteOrBackslash(x uint64) uint64 {
	return zeroBytes(x^(ones*'"')) | zeroBytes(x^(ones*'\\'))
}

// specialInString marks the bytes of x that end a run of plain string
// content: '"', '\\' and the control characters below 0x20.
func specialInString(x uint64) uint64 {
	return quoteOrBackslash(x) | controlBytes(x)
}

// controlBytes marks the bytes of x below 0x20.
func controlBytes(x uint64) uint64 { return (x - ones*0x20) & ^x & highs }

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func skipNumber(b []byte, i int) (int, error) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		return 0, syntax(b, i, "digit")
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return 0, syntax(b, i, "digit after decimal point")
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return 0, syntax(b, i, "digit in exponent")
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	return i, nil
}

// ErrMalformed is returned by Members and Elements for text that is not
// the well-formed JSON they were promised.
var ErrMalformed = errors.New("jsonscan: malformed JSON")

// skipTrusted returns the end of the well-formed value at offset i of b.
func skipTrusted(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		end, _ := endOfString(b, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i, _ = endOfString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) { // a number or a literal
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// endOfString returns the end of the string whose opening quote is at
// offset i of b, and whether the string holds escape sequences.
func endOfString(b []byte, i int) (end int, escaped bool) {
	// Strings of messages are short (ids, names, times): a loop over the
	// bytes beats a search call per string, and eight bytes at a time too
	// (measured: BenchmarkTable/Elements), where the checking scan, with
	// more to look for in each byte, gains from it.
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j + 1, escaped
		case '\\':
			escaped = true
			j++ // the escaped byte; \u's hex digits hold no quote
		}
	}
	return len(b), escaped
}

// Members is Object for text already known to be well-formed JSON (a
// part of a message that was checked whole when it arrived): it finds
// where each member ends without checking what lies between. On malformed
// text it may hand out wrong values or return ErrMalformed, but it never
// reads outside b.
func Members(b []byte, fn func(key []byte, escaped bool, value []byte) error) error {
	return walkMembers(b, func(key []byte, escaped bool, start int) (int, error) {
		end := skipTrusted(b, start)
		if end <= start {
			return 0, ErrMalformed
		}
		return end, fn(key, escaped, b[start:end])
	})
}

// Elements is Array for text already known to be well-formed JSON, as
// Members is Object.
func Elements(b []byte, fn func(elem []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return ErrNotArray
	}
	_, err := walkElements(b, i, fn)
	return err
}

// Cut takes the member named name out of the JSON object obj, checking
// obj whole as Object does: rest is the object without that member (a new
// slice) and value the member's value (a slice of obj; nil when there is
// none). name matches a key as encoding/json matches a field's name:
// exactly, else in another case; an escaped key is unquoted first. When
// the name appears more than once, value is the last one, which is what
// encoding/json decodes, and rest holds none of them.
//
// When elem is not nil and the value is an array, elem is called with
// each of its elements as the walk passes them (as Array would, but
// without a second pass over the value); an error from elem stops Cut.
// Cut is the one pass over a message that a decoder handed unchecked text
// needs (see Checker): it refuses malformed text as a *SyntaxError.
func Cut(obj []byte, name string, elem func(elem []byte) error) (rest, value []byte, err error) {
	type span struct{ from, to int }
	// The other members, key to value, as offsets in obj: room for the
	// envelope of a message on the stack, so that only rest is allocated.
	var room [16]span
	keep := room[:0]
	size := 2
	err = checkMembers(obj, func(key []byte, escaped bool, start int) (int, error) {
		k := key
		if escaped {
			var s string
			if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) == nil {
				k = []byte(s)
			}
		}
		if bytes.EqualFold(k, []byte(name)) {
			var end int
			var err error
			if elem != nil && start < len(obj) && obj[start] == '[' {
				end, err = skipArray(obj, start, 2, elem)
			} else {
				end, err = skip(obj, start, 1)
			}
			if err == nil {
				value = obj[start:end]
			}
			return end, err
		}
		end, err := skip(obj, start, 1)
		if err != nil {
			return 0, err
		}
		// key is a slice of obj: its offset follows from its capacity.
		sp := span{cap(obj) - cap(key) - 1, end}
		keep = append(keep, sp)
		size += sp.to - sp.from + 1
		return end, nil
	})
	if err != nil {
		return nil, nil, err
	}
	rest = make([]byte, 0, size)
	rest = append(rest, '{')
	for i, sp := range keep {
		if i > 0 {
			rest = append(rest, ',')
		}
		rest = append(rest, obj[sp.from:sp.to]...)
	}
	return append(rest, '}'), value, nil
}

// Checker is implemented by a json.Unmarshaler whose UnmarshalJSON refuses
// any text that is not one well-formed JSON value (white space around it
// allowed), as encoding/json's Unmarshal does before it calls an
// Unmarshaler. A decoder may hand such a type text it has not checked, and
// so pass over a large message once rather than twice.
type Checker interface {
	UnmarshalJSON([]byte) error
	// ChecksJSON marks the type; it does nothing.
	ChecksJSON()
}

// Head reads the JSON object b up to a member whose value may be large
// and is checked elsewhere: it walks the members as Object does, calling
// fn with each, until stop, called with the key of each member whose key
// holds no escape sequence, reports true. Head then returns that member's
// value unchecked as tail: the text from the value's first byte to the
// object's closing brace, without the white space before the brace.
//
// tail is the member's value exactly when the member is the object's last
// and b is well formed, and then only: a member after it, a missing brace
// or any fault in the rest of b makes tail something other than one JSON
// value. So a caller that finds tail to be one well-formed value has
// checked b whole, and one that does not must read b again with Object.
// When stop never reports true, Head is Object and tail is nil.
func Head(b []byte, stop func(key []byte) bool, fn func(key []byte, escaped bool, value []byte) error) (tail []byte, err error) {
	err = checkMembers(b, func(key []byte, escaped bool, start int) (int, error) {
		if !escaped && stop(key) {
			tail = b[start:]
			return 0, errStop
		}
		end, err := skip(b, start, 1)
		if err != nil {
			return 0, err
		}
		return end, fn(key, escaped, b[start:end])
	})
	if err != errStop {
		return nil, err
	}
	// The closing brace is the last byte but white space; the tail ends at
	// the last byte but white space before it.
	end := len(tail)
	for end > 0 && isSpace(tail[end-1]) {
		end--
	}
	if end == 0 || tail[end-1] != '}' {
		return tail[:0], nil // no closing brace: not a value, as a caller will find
	}
	end--
	for end > 0 && isSpace(tail[end-1]) {
		end--
	}
	return tail[:end], nil
}

// errStop ends Head's walk at the member it stops at.
var errStop = errors.New("jsonscan: stop")

// isSpace reports whether c is JSON white space. Most text has none: the
// first comparison settles every byte that is not white space.
func isSpace(c byte) bool { return c <= ' ' && spaces>>c&1 != 0 }

// spaces has bit c set for each white space byte c.
const spaces = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\r'

// checkMembers walks the members of the object b, checking b whole as
// Object does: value is called with each key (as Object hands it out) and
// the offset where its value starts, and checks the value and returns
// where it ends.
func checkMembers(b []byte, value memberValue) error { return object(b, nil, value) }

// walkMembers walks the members of the well-formed object b: value is
// called with each key and the offset where its value starts, and returns
// where the value ends.
func walkMembers(b []byte, value memberValue) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotObject
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) && b[i] == '"' {
		kend, esc := endOfString(b, i)
		key := b[i+1 : max(kend-1, i+1)]
		i = skipSpace(b, kend)
		if i >= len(b) || b[i] != ':' {
			return ErrMalformed
		}
		vstart := skipSpace(b, i+1)
		vend, err := value(key, esc, vstart)
		if err != nil {
			return err
		}
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return nil
		}
		break
	}
	return ErrMalformed
}

// walkElements walks the elements of the well-formed array that starts
// at offset i of b, and returns where the array ends.
func walkElements(b []byte, i int, fn func(elem []byte) error) (int, error) {
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for i < len(b) {
		end := skipTrusted(b, i)
		if end <= i {
			return 0, ErrMalformed
		}
		if err := fn(b[i:end]); err != nil {
			return 0, err
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return i + 1, nil
		}
		break
	}
	return 0, ErrMalformed
}
