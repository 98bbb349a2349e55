package redact

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// pattern is the regular expression the scanner stands for.
var pattern = regexp.MustCompile(`tok[_-][A-Za-z0-9_-]{6,}`)

// Masking agrees with the regular expression on hand-picked texts.
func TestAppendAgreesWithTheRegularExpression(t *testing.T) {
	for _, s := range []string{
		"",
		"tok_",
		"tok_abcde",
		"tok_abcdef",
		"tok-abcdef",
		"tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c",
		`{"auth_token":"tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c","x":1}`,
		"mytok_abcdefgh and tok-12345 and tok_tok_abcdef!",
		"toktok_abcdef",
		"tok_ab.cdefgh",
		"ttok_abcdefg tok_abcdef",
		"stok_abcdef",
		"tok_abcdef\u00e9tok_123456",
		"tok_abcde tok_",
		"token: tok_______",
	} {
		want := pattern.ReplaceAllString(s, Mask)
		if got := string(Append(nil, s)); got != want {
			t.Errorf("Append(%q) = %q, want %q", s, got, want)
		}
		if got := string(Append([]byte("x"), []byte(s))); got != "x"+want {
			t.Errorf("Append(x, []byte(%q)) = %q, want %q", s, got, "x"+want)
		}
		inPlace := []byte(s)
		if got := string(Append(inPlace[:0], inPlace)); got != want {
			t.Errorf("Append in place of %q = %q, want %q", s, got, want)
		}
		if got := String(s); got != want {
			t.Errorf("String(%q) = %q, want %q", s, got, want)
		}
		if got := Has(s); got != pattern.MatchString(s) {
			t.Errorf("Has(%q) = %v, want %v", s, got, !got)
		}
	}
}

// Masking agrees with the regular expression on random texts made of the
// characters that matter.
func TestAppendAgreesOnRandomTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"t", "o", "k", "tok", "tok_", "tok-", "_", "-", "a", "Z", "7", " ", ".", `"`, "é", "abcdef"}
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		want := pattern.ReplaceAllString(s, Mask)
		if got := String(s); got != want {
			t.Fatalf("String(%q) = %q, want %q", s, got, want)
		}
		inPlace := []byte(s)
		if got := string(Append(inPlace[:0], inPlace)); got != want {
			t.Fatalf("Append in place of %q = %q, want %q", s, got, want)
		}
	}
}

// A text without a token is returned as it is, without a copy.
func TestStringWithoutTokenAllocatesNothing(t *testing.T) {
	s := strings.Repeat(`{"auth_token":"[REDACTED]","match_id":"R1M1"}`, 10)
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Fatalf("String allocated %v times for a text without a token", n)
	}
}

func BenchmarkString(b *testing.B) {
	s := `{"protocol":"league.v2","message_type":"CHOOSE_PARITY_CALL","sender":"referee:REF01","auth_token":"tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c","match_id":"R1M1","player_id":"P01"}`
	b.Run("scanner", func(b *testing.B) {
		for b.Loop() {
			_ = String(s)
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			_ = pattern.ReplaceAllString(s, Mask)
		}
	})
}
