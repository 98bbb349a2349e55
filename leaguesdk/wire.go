// The wire layer: every difference between the forms a league message
// takes on the wire, in the files wire*.go, so that the rest of the package
// (and the module) sees typed messages only. It plays the part
// connect-go's unexported protocol files play there:
//
//   - the four request forms a server accepts and a client may send
//     ([WireForm]): the spec method with the message as params, the
//     message type as method, a generic method with the message in
//     params.message (or arguments, or payload), and MCP tools/call;
//   - where a request's message is (locateCall) and which tool takes it
//     (Server.routeCall, Server.routeTool for tools/call, with the tool
//     names of other implementations: foreignTools);
//   - the replies: the JSON-RPC response a server writes (wireResponse,
//     with the flat form some referees read and the MCP tool result),
//     and where a client finds the message in what a peer answers
//     (parseReply);
//   - alias fields of other implementations (normalizeAliases);
//   - what a server remembers of a caller's dialect (dialectMemory) and a
//     client of a peer's form, its MCP session and its own tool names
//     (wirePeer, mcpSession, toolFor).
//
// Every message is read with internal/json (encoding/json's semantics);
// the layer writes what it sends in the profile's strict form.

package leaguesdk

import (
	"fmt"
)

// wireForms lists the forms in the order a client tries them.
var wireForms = [...]WireForm{FormSpec, FormMessageType, FormEnvelope, FormToolsCall}

// String returns the form's name.
func (f WireForm) String() string {
	switch f {
	case FormSpec:
		return "spec"
	case FormMessageType:
		return "message_type"
	case FormEnvelope:
		return "envelope"
	case FormToolsCall:
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
