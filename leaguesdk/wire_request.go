package leaguesdk

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	wirejson "github.com/agentleague/league/internal/json"
)

// wireRequest is a JSON-RPC request read from a body.
type wireRequest struct {
	// ID is the id as received, nil for a notification.
	ID json.RawMessage
	// Method is the method as received.
	Method string
	// Params is the params member as received.
	Params json.RawMessage
}

// Notification reports whether r has no id.
func (r *wireRequest) Notification() bool { return len(r.ID) == 0 }

// nullID is the id of a response to a request whose id is unknown.
var nullID = json.RawMessage("null")

// readRequest reads a request body in one pass. A body that is not one
// JSON-RPC 2.0 request comes back as the error to answer, with the id to
// answer it under (null when the id could not be read).
//
// into, when not nil, reads the params of a body that names its method
// before them (as most do): it is given the method and the text from the
// params' value on, decodes the value straight into the method's message,
// and returns the text after it; or it returns false, and the params are
// read as they came. read reports whether the params the request holds
// are those into decoded; Params holds their text either way.
//
// Members are matched as encoding/json matches them to a struct's fields:
// by name, ignoring case, a later member replacing an earlier one.
func readRequest(body []byte, into func(method string, params []byte) (rest []byte, ok bool)) (req wireRequest, id json.RawMessage, read bool, bad *RPCError) {
	var jsonrpc string
	var method *string
	tried, intoMethod := false, ""
	err := wirejson.Object(body, func(name string, v []byte) ([]byte, error) {
		switch {
		case strings.EqualFold(name, "jsonrpc"):
			return wirejson.Next(v, &jsonrpc)
		case strings.EqualFold(name, "id"):
			return wirejson.Next(v, &req.ID)
		case strings.EqualFold(name, "method"):
			return wirejson.Next(v, &method)
		case strings.EqualFold(name, "params"):
			read = false
			if into != nil && method != nil && !tried {
				tried = true
				if rest, ok := into(*method, v); ok {
					req.Params = bytes.TrimRight(v[:len(v)-len(rest)], " \t\r\n")
					read, intoMethod = true, *method
					return rest, nil
				}
			}
			return wirejson.Next(v, &req.Params)
		}
		var skipped json.RawMessage
		return wirejson.Next(v, &skipped)
	})
	if err != nil {
		trimmed := bytes.TrimSpace(body)
		switch {
		case len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed):
			return wireRequest{}, nullID, false, &RPCError{Code: codeInvalidRequest, Message: "batch requests are not supported"}
		case json.Valid(trimmed):
			// Well-formed JSON that is not a request object ("method": 5, a bare string).
			return wireRequest{}, nullID, false, &RPCError{Code: codeInvalidRequest, Message: "invalid request: " + err.Error()}
		}
		return wireRequest{}, nullID, false, &RPCError{Code: codeParse, Message: "parse error: " + err.Error()}
	}
	id = req.ID
	if len(id) == 0 {
		id = nullID
	}
	if jsonrpc != "2.0" || method == nil || *method == "" {
		return wireRequest{}, id, false, &RPCError{Code: codeInvalidRequest, Message: `invalid request: want "jsonrpc":"2.0" and a method`}
	}
	req.Method = *method
	// A method named again after the params names another message.
	return req, id, read && intoMethod == req.Method, nil
}

// wireCall is where a request's message is and how it came.
type wireCall struct {
	// WireForm is the request's form (set by Locate for tools/call, by Route
	// for the others).
	Form WireForm
	// Tool is the tool a tools/call names.
	Tool string
	// Message is the message object (params itself, or the member of
	// params that holds it).
	Message json.RawMessage
	// MessageType is the message's message_type, "" when it names none.
	MessageType string
	// nested is true when the message is a member of params.
	nested bool
}

// paramsProbe is what Locate reads of a request's params.
type paramsProbe struct {
	MessageType string          `json:"message_type"`
	Message     json.RawMessage `json:"message"`
	Arguments   json.RawMessage `json:"arguments"`
	Payload     json.RawMessage `json:"payload"`
}

// locateCall finds the message of a request: for tools/call in its
// arguments, otherwise in params, params.message, params.arguments or
// params.payload. A tools/call without a name is an error to answer.
func locateCall(method string, params json.RawMessage) (wireCall, *RPCError) {
	if method != "tools/call" {
		msg, t, nested := locateMessage(params)
		return wireCall{Message: msg, MessageType: t, nested: nested}, nil
	}
	var call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := wirejson.Unmarshal(params, &call); err != nil || call.Name == "" {
		return wireCall{}, &RPCError{Code: codeInvalidParams, Message: "tools/call needs params.name"}
	}
	msg, t, _ := locateMessage(call.Arguments)
	return wireCall{Form: FormToolsCall, Tool: call.Name, Message: msg, MessageType: t}, nil
}

// locate finds the protocol message in params: params itself, or
// params.message, params.arguments or params.payload. It returns the
// message, its message_type ("" when none is named), and whether it is a
// member of params.
func locateMessage(params json.RawMessage) (json.RawMessage, string, bool) {
	if len(params) == 0 {
		return params, "", false
	}
	var probe paramsProbe
	if wirejson.Unmarshal(params, &probe) != nil {
		return params, "", false
	}
	if probe.MessageType != "" {
		return params, probe.MessageType, false
	}
	for _, inner := range []json.RawMessage{probe.Message, probe.Arguments, probe.Payload} {
		if len(inner) == 0 || inner[0] != '{' {
			continue
		}
		if t := messageTypeOf(inner); t != "" {
			return inner, t, true
		}
	}
	return params, "", false
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

// routeCall picks the tool of a request that is not tools/call and sets
// c.Form. The message's message_type decides when the method names no
// tool that takes it; the method is a hint.
func (s *Server) routeCall(method string, c *wireCall) *route {
	c.Form = FormSpec
	if c.nested {
		c.Form = FormEnvelope
	}
	t := c.MessageType
	byMethod := s.routeNamed(strings.ToLower(method))
	byType := s.routeTyped(t)
	switch {
	case byMethod != nil && (t == "" || byMethod.types[MessageType(t)] || byType == nil):
		return byMethod
	case byType != nil:
		if strings.EqualFold(method, t) {
			c.Form = FormMessageType
		} else {
			c.Form = FormEnvelope
		}
		return byType
	}
	if rt := s.routeTyped(strings.ToUpper(method)); rt != nil {
		c.Form = FormMessageType
		return rt
	}
	return nil
}

// encodeRequest returns a request of id to method in form f (not
// [FormSpec], whose params a client sends as they are) carrying the message
// msg of type messageType.
func encodeRequest(f WireForm, id int64, method, messageType string, msg []byte) []byte {
	switch f {
	case FormMessageType:
		return appendRequest(nil, id, messageType, msg)
	case FormEnvelope:
		p, _ := json.Marshal(map[string]json.RawMessage{"message": msg})
		return appendRequest(nil, id, "handle_message", p)
	case FormToolsCall:
		name, _ := json.Marshal(method)
		p, _ := json.Marshal(map[string]json.RawMessage{"name": name, "arguments": msg})
		return appendRequest(nil, id, "tools/call", p)
	}
	return appendRequest(nil, id, method, msg)
}

// appendRequest appends a JSON-RPC request with params, which must be one
// JSON value, without encoding them again.
func appendRequest(dst []byte, id int64, method string, params []byte) []byte {
	if len(params) == 0 {
		params = []byte("null")
	}
	return append(append(appendRequestHead(dst, id, method), params...), '}')
}

// appendRequestHead appends a JSON-RPC request up to its params' value:
// `{"jsonrpc":"2.0","id":<id>,"method":<method>,"params":`.
func appendRequestHead(dst []byte, id int64, method string) []byte {
	m, _ := json.Marshal(method)
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":`...)
	dst = append(dst, m...)
	return append(dst, `,"params":`...)
}
