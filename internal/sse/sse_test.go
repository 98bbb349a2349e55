package sse_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentleague/league/internal/sse"
)

func TestData(t *testing.T) {
	// Long data lines make the scanner refill its buffer between lines,
	// which corrupts lines that are kept without copying.
	long := strings.Repeat("x", 70<<10)
	cases := []struct{ name, stream, want string }{
		{"one event", "event: message\ndata: {\"a\":1}\n\n", `{"a":1}`},
		{"no space after colon", "data:{\"a\":1}\n\n", `{"a":1}`},
		{"priming event skipped", "id: 0\ndata:\n\nevent: message\ndata: {\"a\":1}\n\n", `{"a":1}`},
		{"lines joined", "data: {\"a\":\ndata: 1}\n\n", "{\"a\":\n1}"},
		{"first event only", "data: one\n\ndata: two\n\n", "one"},
		{"long lines kept intact", "data: " + long + "A\ndata: " + long + "B\n\n", long + "A\n" + long + "B"},
		{"no event", ": comment only\n\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sse.Data([]byte(tc.stream)); !bytes.Equal(got, []byte(tc.want)) {
				t.Fatalf("got %.80q (%d bytes), want %.80q (%d bytes)", got, len(got), tc.want, len(tc.want))
			}
		})
	}
}
