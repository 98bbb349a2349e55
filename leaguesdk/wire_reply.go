package leaguesdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	wirejson "github.com/agentleague/league/internal/json"
)

// wireResponse is a JSON-RPC response a server writes. Its ID is written as
// the request carried it, byte for byte (see writeResponse).
type wireResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   any             `json:"error,omitempty"`
	// Flat holds the reply message's own members, repeated at the top
	// level beside result for a caller that reads a reply only as a bare
	// message (see resultResponse).
	Flat map[string]json.RawMessage `json:"-"`
}

// resultResponse returns the response to id that carries a handler's reply out
// to a request of form f: the message itself as result, the MCP tool
// result for tools/call, and, when flat is set (a caller that reads a
// reply only as a bare message), the message's fields repeated at the
// top level beside result.
func resultResponse(id json.RawMessage, f WireForm, flat bool, out any) wireResponse {
	switch {
	case f == FormToolsCall:
		return wireResponse{JSONRPC: "2.0", ID: id, Result: toolResult(out)}
	case flat:
		return flatResponse(id, out)
	}
	return wireResponse{JSONRPC: "2.0", ID: id, Result: out}
}

// flatResponse returns the response to id carrying msg as result and its
// fields beside it, but for the response's own members.
func flatResponse(id json.RawMessage, msg any) wireResponse {
	raw, err := json.Marshal(msg)
	var fields map[string]json.RawMessage
	if err != nil || wirejson.Unmarshal(raw, &fields) != nil {
		return wireResponse{JSONRPC: "2.0", ID: id, Result: msg}
	}
	for _, k := range []string{"jsonrpc", "id", "result", "error", "method", "params"} {
		delete(fields, k)
	}
	return wireResponse{JSONRPC: "2.0", ID: id, Result: json.RawMessage(raw), Flat: fields}
}

// writeResponse answers r as JSON. The request's id goes back byte for byte,
// written as it came rather than re-encoded (an encoder may escape what
// the caller did not, such as U+2028); HTML escaping is off, so that the
// handler's strings go back as they are.
func writeResponse(w http.ResponseWriter, status int, r wireResponse) {
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	if len(r.ID) == 0 {
		buf.Write(nullID)
	} else {
		buf.Write(r.ID)
	}
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := writeMember(&buf, enc, "result", r.Result)
	if err == nil {
		err = writeMember(&buf, enc, "error", r.Error)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Flat)) {
		if err == nil {
			err = writeMember(&buf, enc, k, r.Flat[k])
		}
	}
	buf.WriteString("}\n")
	if err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"response does not encode"}}`)
	}
	jw := &jsonWriter{w: w, status: status}
	_, _ = jw.Write(buf.Bytes())
}

// writeMember writes ,"name":v unless v is nil.
func writeMember(buf *bytes.Buffer, enc *json.Encoder, name string, v any) error {
	if v == nil {
		return nil
	}
	buf.WriteString(`,"`)
	buf.WriteString(name) // the members' names need no escaping
	buf.WriteString(`":`)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // the encoder's newline
	return nil
}

// jsonWriter writes a JSON answer's headers and status before its first
// bytes.
type jsonWriter struct {
	w      http.ResponseWriter
	status int
	wrote  bool
}

func (j *jsonWriter) Write(p []byte) (int, error) {
	if !j.wrote {
		j.wrote = true
		j.w.Header().Set("Content-Type", "application/json")
		j.w.WriteHeader(j.status)
	}
	return j.w.Write(p)
}

// wireReply is what a client reads of a peer's answer.
type wireReply struct {
	// RPCError is the JSON-RPC error the peer answered, if it did.
	Error *RPCError
	// Message is the reply message as found: result, the message of an
	// MCP tool result, params of a request-shaped reply, or the whole
	// body. It may still wrap the message (see locateReply).
	Message json.RawMessage
}

// replyTop is what ReadReply reads of a response body.
type replyTop struct {
	Result      json.RawMessage `json:"result"`
	Error       *RPCError       `json:"error"`
	Params      json.RawMessage `json:"params"`
	MessageType string          `json:"message_type"`
}

// errNoResult is the error of a JSON object that holds no reply.
var errNoResult = errors.New("no result")

// parseReply reads a response body: its error, or where its message is (in
// result, itself or MCP content; in params of a request-shaped reply; or
// at the top level). It reads the body once; the message is a slice of it.
func parseReply(raw []byte) (wireReply, error) {
	var top replyTop
	if err := wirejson.Unmarshal(raw, &top); err != nil {
		return wireReply{}, err
	}
	switch {
	case top.Error != nil:
		return wireReply{Error: top.Error}, nil
	case len(top.Result) > 0 && !bytes.Equal(top.Result, []byte("null")):
		return wireReply{Message: unwrapToolResult(top.Result)}, nil
	case len(top.Params) > 0:
		return wireReply{Message: top.Params}, nil
	case top.MessageType != "":
		return wireReply{Message: raw}, nil
	}
	return wireReply{}, errNoResult
}

// locateReply finds the message inside a reply message that wraps it
// (params.message and the like) and returns it with its message_type
// ("" when it names none) and whether it was inside msg. A decoder that
// found no message_type where it looked asks it.
func locateReply(msg json.RawMessage) (json.RawMessage, string, bool) {
	return locateMessage(msg)
}

// unwrapToolResult returns the message inside an MCP tool result
// (structuredContent, else the JSON text of content[0]); any other result
// is returned as it is.
func unwrapToolResult(res json.RawMessage) json.RawMessage {
	if !bytes.Contains(res, []byte(`"content"`)) {
		return res
	}
	var tr struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		MessageType       string          `json:"message_type"`
	}
	if wirejson.Unmarshal(res, &tr) != nil || tr.MessageType != "" {
		return res
	}
	if len(tr.StructuredContent) > 0 && tr.StructuredContent[0] == '{' {
		return tr.StructuredContent
	}
	for _, c := range tr.Content {
		if t := strings.TrimSpace(c.Text); c.Type == "text" && strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
			return json.RawMessage(t)
		}
	}
	return res
}
