package leaguesdk

import (
	"bufio"
	"bytes"
	"net/http"

	"github.com/agentleague/league/internal/httphead"
)

// answerHead is the head of an answer as peekAnswerHead reads it: what
// http.ReadResponse would make of it, without the Response, and the header
// only when it was asked for.
type answerHead struct {
	status        int
	header        http.Header // nil unless asked for
	contentLength int64
	close         bool
	eventStream   bool // its (first) Content-Type starts with text/event-stream
	location      bool // it has a Location (its first one is not empty)
}

// peekAnswerHead reads the head of an answer from br without
// http.ReadResponse when it is whole in br's buffer and plain
// (internal/httphead): HTTP/1.1, a final status other than 204 and 304, one
// Content-Length of at most limit bytes, and no Transfer-Encoding,
// Content-Encoding, Trailer or Pragma. It then consumes the head and
// reports true. Otherwise it consumes nothing and reports false: the answer
// is left to http.ReadResponse. What it reads is what http.ReadResponse
// would read: the same status, Content-Length, close and, when header is
// set, header (the close token removed from Connection; FuzzAnswerHead).
//
// An answer of this module's agents, and of most servers, has such a
// head: reading it takes nothing from the heap but the header, when it is
// asked for (one string for its values and one map), where
// http.ReadResponse also makes a Response, a string per value and a body
// reader. Only an MCP session's start reads a header.
func peekAnswerHead(br *bufio.Reader, limit int64, header bool) (answerHead, bool) {
	buf, _ := br.Peek(br.Buffered())
	head, size, ok := httphead.Cut(buf)
	if !ok {
		return answerHead{}, false
	}
	// "HTTP/1.1 200" and an optional reason.
	line := head[:bytes.IndexByte(head, '\r')]
	if len(line) < 12 || string(line[:9]) != "HTTP/1.1 " || len(line) > 12 && line[12] != ' ' {
		return answerHead{}, false
	}
	status := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return answerHead{}, false
		}
		status = status*10 + int(c-'0')
	}
	if status < 200 || status == http.StatusNoContent || status == http.StatusNotModified {
		return answerHead{}, false
	}
	lines := head[len(line)+2:]
	a := answerHead{status: status, contentLength: -1}
	plain, seenType, seenLocation := true, false, false
	ok = httphead.Fields(lines, func(name, value []byte) {
		switch {
		case httphead.Is(name, "Content-Length"):
			n, ok := httphead.Length(value)
			plain = plain && ok && a.contentLength < 0
			a.contentLength = n
		case httphead.Is(name, "Transfer-Encoding"), httphead.Is(name, "Content-Encoding"),
			httphead.Is(name, "Trailer"), httphead.Is(name, "Pragma"):
			plain = false
		case httphead.Is(name, "Connection"):
			a.close = a.close || httphead.ListHas(value, "close")
		case httphead.Is(name, "Content-Type") && !seenType:
			seenType, a.eventStream = true, bytes.HasPrefix(value, []byte("text/event-stream"))
		case httphead.Is(name, "Location") && !seenLocation:
			seenLocation, a.location = true, len(value) > 0
		}
	})
	if !ok || !plain || a.contentLength < 0 || a.contentLength > limit {
		return answerHead{}, false
	}
	if header {
		if a.header, ok = httphead.Header(lines); !ok {
			return answerHead{}, false
		}
		if a.close {
			delete(a.header, "Connection") // as http.ReadResponse does
		}
	}
	_, _ = br.Discard(size)
	return a, true
}
