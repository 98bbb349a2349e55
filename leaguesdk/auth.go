package leaguesdk

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
)

// NewToken returns a fresh auth token: "tok_" followed by 32 lowercase hex
// characters from a cryptographic random source.
func NewToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand never fails on supported platforms; a token that
		// cannot be made securely must not be made at all.
		panic("leaguesdk: crypto/rand failed: " + err.Error())
	}
	return "tok_" + hex.EncodeToString(b[:])
}

// TokensEqual compares two tokens in constant time.
func TokensEqual(a, b string) bool {
	return len(a) == len(b) && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
