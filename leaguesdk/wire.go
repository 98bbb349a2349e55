package leaguesdk

import (
	"bytes"
	"encoding/json"
	"io"

	wirejson "github.com/agentleague/league/internal/json"
)

// paramsProbe is what locateMessage reads of a request's params.
type paramsProbe struct {
	MessageType string          `json:"message_type"`
	Message     json.RawMessage `json:"message"`
	Arguments   json.RawMessage `json:"arguments"`
	Payload     json.RawMessage `json:"payload"`
}

// replyTop is what parseReply reads of a response body.
type replyTop struct {
	Result      json.RawMessage `json:"result"`
	Error       *RPCError       `json:"error"`
	Params      json.RawMessage `json:"params"`
	MessageType string          `json:"message_type"`
}

// messageTypeOf returns the message_type of the JSON object msg, or ""
// when msg is not an object with a string message_type.
func messageTypeOf(msg []byte) string {
	var p struct {
		MessageType string `json:"message_type"`
	}
	if wirejson.Unmarshal(msg, &p) != nil {
		return ""
	}
	return p.MessageType
}

// readAll reads r to its end, at most limit bytes of it when limit is not
// negative (as io.LimitReader would), into a buffer sized for size bytes
// (a Content-Length; negative when unknown).
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	if limit >= 0 {
		r = io.LimitReader(r, limit)
		size = min(size, limit)
	}
	if size < 0 || size > 16<<20 {
		return io.ReadAll(r)
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead) // ReadFrom reads until EOF with MinRead bytes free
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}
