// Package wire holds every difference between the forms a league message
// takes on the wire, so that the rest of the module sees typed messages
// only. It plays the part connect-go's protocol and codec play there:
//
//   - the four request forms a server accepts and a client may send
//     ([Form]): the spec method with the message as params, the message
//     type as method, a generic method with the message in
//     params.message (or arguments, or payload), and MCP tools/call;
//   - where a request's message is ([Locate]) and which tool takes it
//     ([Route]);
//   - the replies: the JSON-RPC response a server writes ([Response],
//     with the flat form some referees read and the MCP tool result),
//     and where a client finds the message in what a peer answers
//     ([ReadReply]);
//   - alias fields of other implementations ([Normalize]);
//   - what a server remembers of a caller's dialect ([Dialects]) and a
//     client of a peer's form and its MCP session ([Peer], [Session]).
//
// Every message is read with internal/json (encoding/json's semantics);
// the package writes what it sends in the profile's strict form.
package wire

import (
	"encoding/json"
	"fmt"
)

// Form is the way a request reached a server, or a client sent one.
type Form int

// The request forms of the profile.
const (
	// Spec: the spec method with the message as flat params.
	Spec Form = iota
	// MessageType: the method is the message type ("CHOOSE_PARITY_CALL").
	MessageType
	// Envelope: a generic method ("handle_message", "mcp_message") with
	// the message in params.message, params.arguments or params.payload.
	Envelope
	// ToolsCall: MCP tools/call with the message as arguments.
	ToolsCall
)

// Forms lists the forms in the order a client tries them.
var Forms = [...]Form{Spec, MessageType, Envelope, ToolsCall}

// String returns the form's name.
func (f Form) String() string {
	switch f {
	case Spec:
		return "spec"
	case MessageType:
		return "message_type"
	case Envelope:
		return "envelope"
	case ToolsCall:
		return "tools/call"
	}
	return fmt.Sprintf("WireForm(%d)", int(f))
}

// JSON-RPC error codes the package answers with.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
)

// Error is a JSON-RPC error the package finds in a request or a reply.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	// Data is the error's data member as received, if any.
	Data json.RawMessage `json:"data,omitempty"`
}
