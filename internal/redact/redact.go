// Package redact finds and masks token-shaped text: "tok", then "_" or
// "-", then six or more ASCII letters, digits, "_" or "-" (the shape of the
// auth tokens the league issues, and of most others), as the regular
// expression tok[_-][A-Za-z0-9_-]{6,} would, leftmost first and longest,
// without its cost.
//
// Shared by leaguesdk, the referee and the manager.
package redact

import "unsafe"

// Mask is the text that stands for a masked token.
const Mask = "[REDACTED]"

// minTail is the least number of characters after "tok_" of a token.
const minTail = 6

// Next returns the start and end of the first token in s at or after
// from, or -1, -1 when there is none.
func Next[T ~string | ~[]byte](s T, from int) (start, end int) {
	for i := from; i+4+minTail <= len(s); i++ {
		if s[i] != 't' || s[i+1] != 'o' || s[i+2] != 'k' || (s[i+3] != '_' && s[i+3] != '-') {
			continue
		}
		j := i + 4
		for j < len(s) && tokenByte(s[j]) {
			j++
		}
		if j-(i+4) >= minTail {
			return i, j
		}
	}
	return -1, -1
}

// Has reports whether s holds a token.
func Has[T ~string | ~[]byte](s T) bool {
	start, _ := Next(s, 0)
	return start >= 0
}

// Append appends s to dst with every token replaced by [Mask]. For a []byte
// s, dst may be s[:0]: s is then masked in place (a mask is never longer
// than the token it replaces, so what is written never overtakes what is
// still to be read).
func Append[T ~string | ~[]byte](dst []byte, s T) []byte {
	last := 0
	for {
		start, end := Next(s, last)
		if start < 0 {
			return append(dst, s[last:]...)
		}
		dst = append(dst, s[last:start]...)
		dst = append(dst, Mask...)
		last = end
	}
}

// String returns s with every token replaced by [Mask]; s itself, without a
// copy, when it holds none.
func String(s string) string {
	start, _ := Next(s, 0)
	if start < 0 {
		return s
	}
	b := Append(append(make([]byte, 0, len(s)), s[:start]...), s[start:])
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is not kept elsewhere, as strings.Builder does
}

// tokenByte reports whether c may follow "tok_" in a token.
func tokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
