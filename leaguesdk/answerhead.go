package leaguesdk

import (
	"bufio"
	"bytes"
	"net/http"

	"github.com/agentleague/league/internal/httphead"
)

// answerHead is the head of an answer as peekAnswerHead reads it: what
// http.ReadResponse would make of it, without the Response.
type answerHead struct {
	status        int
	header        http.Header
	contentLength int64
	close         bool
}

// peekAnswerHead reads the head of an answer from br without
// http.ReadResponse when it is whole in br's buffer and plain
// (internal/httphead): HTTP/1.1, a final status other than 204 and 304, one
// Content-Length of at most limit bytes, and no Transfer-Encoding,
// Content-Encoding, Trailer or Pragma. It then consumes the head and
// reports true. Otherwise it consumes nothing and reports false: the answer
// is left to http.ReadResponse. What it reads is what http.ReadResponse
// would read: the same status, header (the close token removed from
// Connection) and Content-Length (FuzzAnswerHead).
//
// An answer of this module's agents, and of most servers, has such a
// head: reading it takes one string for all its values and one map, where
// http.ReadResponse also makes a Response, a string per value and a body
// reader.
func peekAnswerHead(br *bufio.Reader, limit int64) (answerHead, bool) {
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
	h, ok := httphead.Header(head[len(line)+2:])
	if !ok {
		return answerHead{}, false
	}
	for _, name := range [...]string{"Transfer-Encoding", "Content-Encoding", "Trailer", "Pragma"} {
		if _, ok := h[name]; ok {
			return answerHead{}, false
		}
	}
	n, ok := httphead.ContentLength(h)
	if !ok || n > limit {
		return answerHead{}, false
	}
	a := answerHead{status: status, header: h, contentLength: n}
	if c, ok := h["Connection"]; ok && httphead.HasToken(c, "close") {
		a.close = true
		delete(h, "Connection") // as http.ReadResponse does
	}
	_, _ = br.Discard(size)
	return a, true
}
