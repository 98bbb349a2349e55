package leaguesdk

import (
	"encoding/json"
	"io"
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
	if json.Unmarshal(msg, &p) != nil {
		return ""
	}
	return p.MessageType
}

// readAll reads r to its end, at most limit bytes of it when limit is not
// negative (as io.LimitReader would).
func readAll(r io.Reader, limit int64) ([]byte, error) {
	if limit >= 0 {
		r = io.LimitReader(r, limit)
	}
	return io.ReadAll(r)
}
