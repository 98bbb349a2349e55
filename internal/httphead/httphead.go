// Package httphead reads the heads of plain HTTP/1.1 requests and answers
// without net/textproto: a head whole in a buffer, its lines ending in
// CRLF, every header name a token and no control character in a value.
// Such a head is read with one string for all its names and values and one
// map; any other is left to net/http, which reads every head. What it reads
// of a head is what net/http reads of it (the header's names canonical,
// its values trimmed); the tests of its users compare the two. Its checks
// of names and values, and its comparison of tokens, serve the heads
// net/http read as well (ValidName, ValidValue, Is).
package httphead

import (
	"bytes"
	"net/http"
	"net/textproto"
	"strings"
)

// Cut returns the head at the start of buf: its start line and header
// lines, each with its CRLF, and the length of the head with the empty
// line that ends it. ok is false when buf does not hold a whole head, or
// holds a line ending in a bare CR or LF.
func Cut(buf []byte) (head []byte, size int, ok bool) {
	end := bytes.Index(buf, []byte("\r\n\r\n"))
	if end < 0 {
		return nil, 0, false
	}
	head = buf[:end+2]
	for i, c := range head {
		if c == '\n' && (i == 0 || head[i-1] != '\r') || c == '\r' && head[i+1] != '\n' {
			return nil, 0, false
		}
	}
	return head, end + 4, true
}

// Fields calls fn with the name and the value (trimmed of spaces and tabs)
// of each of the header lines (each with its CRLF, as Cut leaves them
// after the start line), in order. ok is false, and fn is not called, when
// a line is not a token, a colon and a value without control characters
// (a folded line, say). The slices fn gets are parts of lines.
func Fields(lines []byte, fn func(name, value []byte)) (ok bool) {
	if _, ok := count(lines); !ok {
		return false
	}
	for r := lines; len(r) > 0; {
		var l []byte
		l, r, _ = bytes.Cut(r, []byte("\r\n"))
		name, value, _ := bytes.Cut(l, []byte(":"))
		fn(name, trimOWS(value))
	}
	return true
}

// count returns the number of header lines, or false when one is not
// a token, a colon and a value without control characters.
func count(lines []byte) (int, bool) {
	n := 0
	for r := lines; len(r) > 0; n++ {
		var l []byte
		l, r, _ = bytes.Cut(r, []byte("\r\n"))
		name, value, ok := bytes.Cut(l, []byte(":"))
		if !ok || !ValidName(name) || !ValidValue(value) {
			return 0, false
		}
	}
	return n, true
}

// text is what this package's helpers read: a head's bytes, or the
// strings of an http.Header.
type text interface{ ~string | ~[]byte }

// Is reports whether s is key, in any case of its ASCII letters (and only
// theirs), as net/http matches header names once it made them canonical,
// and compares tokens.
func Is[T text](s T, key string) bool {
	if len(s) != len(key) {
		return false
	}
	for i := range len(key) {
		if lowerASCII(s[i]) != lowerASCII(key[i]) {
			return false
		}
	}
	return true
}

// Length returns the value of a Content-Length, when it is at most 18
// decimal digits.
func Length[T text](v T) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for i := range len(v) {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Header reads header lines (each with its CRLF, as Cut leaves them after
// the start line). ok is false when a line is not a token, a colon and a
// value without control characters (a folded line, say).
func Header(lines []byte) (h http.Header, ok bool) {
	n, ok := count(lines)
	if !ok {
		return nil, false
	}
	all := string(lines) // the names and values are parts of it
	values := make([]string, n)
	h = make(http.Header, n)
	for i, at := 0, 0; at < len(all); i++ {
		lineEnd := at + strings.Index(all[at:], "\r\n")
		colon := at + strings.IndexByte(all[at:lineEnd], ':')
		name := all[at:colon]
		values[i] = trimOWS(all[colon+1 : lineEnd])
		at = lineEnd + 2
		if !canonical(name) {
			name = textproto.CanonicalMIMEHeaderKey(name)
		}
		if prev, ok := h[name]; ok {
			h[name] = append(prev, values[i])
		} else {
			h[name] = values[i : i+1 : i+1]
		}
	}
	return h, true
}

// ContentLength returns the value of h's one Content-Length, when it has
// one and it is at most 18 decimal digits.
func ContentLength(h http.Header) (int64, bool) {
	v := h["Content-Length"]
	if len(v) != 1 {
		return 0, false
	}
	return Length(v[0])
}

// HasToken reports whether the comma-separated values hold token, compared
// ignoring the case of ASCII letters only, as net/http compares tokens.
func HasToken(values []string, token string) bool {
	for _, v := range values {
		if ListHas(v, token) {
			return true
		}
	}
	return false
}

// ListHas reports whether the comma-separated value v holds token, as
// HasToken.
func ListHas[T text](v T, token string) bool {
	for len(v) > 0 {
		tok := v
		v = v[:0]
		for i := range len(tok) {
			if tok[i] == ',' {
				tok, v = tok[:i], tok[i+1:]
				break
			}
		}
		if Is(trimOWS(tok), token) {
			return true
		}
	}
	return false
}

// ValidName reports whether name is an HTTP token (RFC 9110, 5.6.2), as a
// header's name must be.
func ValidName[T text](name T) bool {
	if len(name) == 0 {
		return false
	}
	for i := range len(name) {
		if c := name[i]; c >= 0x80 || tokenBytes[c>>6]&(1<<(c&63)) == 0 {
			return false
		}
	}
	return true
}

// tokenBytes is the set of the bytes of a token, as a bit set.
var tokenBytes = func() (set [2]uint64) {
	for _, c := range []byte("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
		set[c>>6] |= 1 << (c & 63)
	}
	return set
}()

// ValidValue reports whether a header value holds no control character
// but horizontal tabs.
func ValidValue[T text](v T) bool {
	for i := range len(v) {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// canonical reports whether the token name is in the form
// textproto.CanonicalMIMEHeaderKey gives it.
func canonical(name string) bool {
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			return false
		}
		upper = c == '-'
	}
	return true
}

// trimOWS trims the spaces and tabs around a header value.
func trimOWS[T text](s T) T {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
