package leaguesdk

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	wirejson "github.com/agentleague/league/internal/json"
)

// The MCP protocol versions spoken, newest first: a server accepts any of
// them in initialize (an unknown one is answered with the newest), and a
// client asks for ClientMCPVersion and accepts any of them in reply.
var mcpVersions = [...]string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// clientMCPVersion is the MCP protocol version a client asks for.
const clientMCPVersion = "2025-06-18"

// speaksMCP reports whether v is an MCP protocol version spoken here.
func speaksMCP(v string) bool {
	for _, s := range mcpVersions {
		if s == v {
			return true
		}
	}
	return false
}

// initializeResult returns a server's answer to MCP initialize: the protocol
// version the client asked for when it is spoken here, else the newest.
func initializeResult(params json.RawMessage, name, version string) any {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = wirejson.Unmarshal(params, &p)
	v := mcpVersions[0]
	if speaksMCP(p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": v,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      map[string]string{"name": name, "version": version},
	}
}

// initializeRequest is the body of a client's MCP initialize request.
func initializeRequest(id int64, clientVersion string) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"method":  "initialize",
		"params": map[string]any{
			"protocolVersion": clientMCPVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]string{"name": "league-agent", "version": clientVersion},
		},
	})
	return b
}

// initializedNote is the body of the notifications/initialized notification.
var initializedNote = []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

// negotiatedVersion returns the protocolVersion of an initialize result.
func negotiatedVersion(result json.RawMessage) string {
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = wirejson.Unmarshal(result, &res)
	return res.ProtocolVersion
}

type toolContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type toolCallResult struct {
	Content           []toolContent `json:"content"`
	StructuredContent any           `json:"structuredContent"`
	IsError           bool          `json:"isError,omitempty"`
}

// toolResult is the MCP tool result that carries out.
func toolResult(out any) toolCallResult {
	b, _ := json.Marshal(out)
	return toolCallResult{Content: []toolContent{{Type: "text", Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

// mcpSession is an MCP session a client holds with one peer. An empty ID
// means the peer set no Mcp-Session-Id (a stateless MCP server).
type mcpSession struct {
	ID      string
	Version string
}

// SetHeaders puts the session's headers on a request.
func (s *mcpSession) SetHeaders(h http.Header) {
	if s.ID != "" {
		h.Set("Mcp-Session-Id", s.ID)
	}
	h.Set("MCP-Protocol-Version", s.Version)
}

// sessionWanted reports whether a refusal asks for an MCP session the
// request did not have: an HTTP 400 or 404 whose body names the session
// (httpStatus, body), or a JSON-RPC error message (rpcMessage, without a
// catalog code) saying the session is missing or the server is not
// initialized.
func sessionWanted(httpStatus int, body string, rpcMessage string) bool {
	if httpStatus == http.StatusBadRequest || httpStatus == http.StatusNotFound {
		return strings.Contains(strings.ToLower(body), "session")
	}
	msg := strings.ToLower(rpcMessage)
	return strings.Contains(msg, "session") || strings.Contains(msg, "not initialized") || strings.Contains(msg, "initialization")
}

// wirePeer is what a client remembers of one peer's dialect: the form that
// worked with it, its MCP session and the tool names it serves messages
// under (read from its tools/list). Gate lets one handshake run at a
// time (waiting on it honours the call's context); the session changes
// only while the gate is held.
type wirePeer struct {
	form    atomic.Int32 // 1 + the Form that worked, 0 before one has
	Gate    chan struct{}
	session atomic.Pointer[mcpSession]
	// tools is the peer's tools/list as read once (empty when it listed
	// none or refused the question), nil before it was asked.
	tools atomic.Pointer[[]string]
	// named maps a method to the tool name the peer serves it under,
	// where that is another name (learned from tools).
	named sync.Map
}

// newWirePeer returns the memory of a peer not called yet.
func newWirePeer() *wirePeer { return &wirePeer{Gate: make(chan struct{}, 1)} }

// Form returns the form that worked with the peer, if one has.
func (p *wirePeer) Form() (WireForm, bool) {
	f := p.form.Load()
	if f == 0 {
		return FormSpec, false
	}
	return WireForm(f - 1), true
}

// Remember records that f worked with the peer.
func (p *wirePeer) Remember(f WireForm) { p.form.Store(int32(f) + 1) }

// RememberFirst records f unless a form is remembered already.
func (p *wirePeer) RememberFirst(f WireForm) { p.form.CompareAndSwap(0, int32(f)+1) }

// Session returns the MCP session held with the peer, or nil.
func (p *wirePeer) Session() *mcpSession { return p.session.Load() }

// SetSession records s as the session held with the peer.
func (p *wirePeer) SetSession(s *mcpSession) { p.session.Store(s) }

// DropSession forgets stale unless another session replaced it.
func (p *wirePeer) DropSession(stale *mcpSession) { p.session.CompareAndSwap(stale, nil) }

// Tools returns the peer's tool names as read from its tools/list, and
// whether they were read.
func (p *wirePeer) Tools() ([]string, bool) {
	t := p.tools.Load()
	if t == nil {
		return nil, false
	}
	return *t, true
}

// SetTools records the peer's tool names (none, when its tools/list was
// refused): the list is read once.
func (p *wirePeer) SetTools(names []string) { p.tools.Store(&names) }

// ToolName returns the tool name learned for method, if one was.
func (p *wirePeer) ToolName(method string) (string, bool) {
	v, ok := p.named.Load(method)
	if !ok {
		return "", false
	}
	return v.(string), true
}

// LearnTool records that the peer serves method under the tool name.
func (p *wirePeer) LearnTool(method, name string) { p.named.Store(method, name) }

// toolsListRequest is the body of a client's MCP tools/list request.
func toolsListRequest(id int64) []byte { return appendRequest(nil, id, "tools/list", []byte("{}")) }

// toolNames returns the names of the tools a tools/list result lists
// (names alone are enough: some peers list no schemas).
func toolNames(result json.RawMessage) []string {
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if wirejson.Unmarshal(result, &res) != nil {
		return nil
	}
	names := make([]string, 0, len(res.Tools))
	for _, t := range res.Tools {
		if t.Name != "" {
			names = append(names, t.Name)
		}
	}
	return names
}

// toolUnknown reports whether an error message (of a JSON-RPC error
// without a catalog code) says the tool asked for does not exist:
// "Unknown tool: x", "unknown tool \"x\"", "tool x not found".
func toolUnknown(msg string) bool {
	m := strings.ToLower(msg)
	if strings.Contains(m, "unknown tool") || strings.Contains(m, "no such tool") {
		return true
	}
	// "tool x not found", but not "method tools/call not found".
	return strings.Contains(m, "tool") && strings.Contains(m, "not found") && !strings.Contains(m, "tools/")
}
