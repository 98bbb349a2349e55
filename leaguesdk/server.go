package leaguesdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	wirejson "github.com/agentleague/league/internal/json"
)

// DefaultMaxBodyBytes is the largest request body a [Server] reads by default.
const DefaultMaxBodyBytes = 1 << 20

// DefaultBodyTimeout is the time a [Server] gives a request's body to
// arrive by default ([ServerConfig.BodyTimeout]).
const DefaultBodyTimeout = 10 * time.Second

// ServerConfig configures a [Server]. The zero value is usable; every field
// documents its default.
type ServerConfig struct {
	// Name and Version are reported as serverInfo to MCP clients. Default
	// "league-agent" and Version.
	Name    string
	Version string
	// Sender returns the agent's sender value ("player:P01"), used in
	// /health and in error messages. It is called per request, so it may
	// change after registration. Default: "agent".
	Sender func() string
	// ErrorType is the message type of the error messages the server sends:
	// [MsgLeagueError] (the default) or [MsgGameError].
	ErrorType MessageType
	// Authorize, when set, is called before every handler whose [Tool] is not
	// Public, with the decoded message's envelope. A non-nil error refuses
	// the call; an [*Error] is answered with its code.
	Authorize func(ctx context.Context, tool string, env *Envelope) error
	// MaxBodyBytes limits request bodies. Default [DefaultMaxBodyBytes].
	MaxBodyBytes int64
	// BodyTimeout bounds the time a request's body may take to arrive,
	// from the moment its handler starts reading it: a client that
	// trickles its body in is cut off then, and its connection closed.
	// It is set through [http.ResponseController] (an HTTP server that
	// cannot set read deadlines is left as it is). Default
	// [DefaultBodyTimeout]; negative: no bound.
	BodyTimeout time.Duration
	// Logger receives one debug line per call and one error line per
	// failure. Default: discard.
	Logger *slog.Logger
	// Now is the clock used for envelope timestamps. Default [time.Now].
	Now func() time.Time
	// Middleware wraps every routed call, the first outermost (see
	// Middleware). Default: none.
	Middleware []Middleware
	// Observer, when set, is told about every routed call served, with its
	// tool, outcome and duration. Default: none.
	Observer Observer
	// Unknown, when set, serves the requests and notifications no tool
	// takes, as [http.ServeMux]'s NotFound handler does: a method that names
	// no tool, alias or message type, or a tools/call of an unknown tool.
	// Its [Request] has no Tool (for tools/call, Tool is the name asked
	// for), and an [Envelope] when the message names a message_type. It runs
	// inside the [Middleware]. Returning [ErrUnrouted] answers the default:
	// -32601 method not found (-32602 for tools/call). MCP lifecycle
	// methods and notifications/* never reach it. Default: nil, the
	// default answer.
	Unknown HandlerFunc
}

// ErrUnrouted, returned by [ServerConfig.Unknown], has the [Server] answer a
// request no tool takes as it does without the hook.
var ErrUnrouted = errors.New("leaguesdk: no tool serves this request")

// Tool describes a method a [Server] serves. It is listed by tools/list.
type Tool struct {
	// Name is the JSON-RPC method and MCP tool name ("choose_parity").
	Name string
	// Description is shown to MCP clients.
	Description string
	// Aliases are further method names routed to this tool ("run_match").
	Aliases []string
	// MessageTypes are the message types routed to this tool when a request
	// names its message only through message_type. Default: the message
	// type of the handler's input type.
	MessageTypes []MessageType
	// Public tools skip [ServerConfig.Authorize] (registration, health-like
	// queries).
	Public bool
	// NoValidate has the [Server] pass the decoded message to the handler
	// without [Validate], for a handler that checks the message itself (to
	// answer an invalid registration with REJECTED rather than an error).
	// Authorize still runs.
	NoValidate bool
}

// WireForm is the way a request reached a [Server] or a [Client] called a peer.
type WireForm int

// The wire forms of the profile.
const (
	// FormSpec: the spec method with the message as flat params.
	FormSpec WireForm = iota
	// FormMessageType: the method is the message type ("CHOOSE_PARITY_CALL").
	FormMessageType
	// FormEnvelope: a generic method ("handle_message", "mcp_message") with
	// the message in params.message, params.arguments or params.payload.
	FormEnvelope
	// FormToolsCall: MCP tools/call with the message as arguments.
	FormToolsCall
)

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

// Request describes the call a handler is serving. [Middleware] and handlers
// added with [Server.HandleRaw] receive it as an argument; a handler added with
// [Handle] reads it with [RequestFrom].
type Request struct {
	// Method is the JSON-RPC method as received.
	Method string
	// Tool is the name of the tool the call was routed to; in a request
	// served by [ServerConfig.Unknown], the tool a tools/call asked for, or "".
	Tool string
	// Form is the wire form the caller used.
	Form WireForm
	// ID is the JSON-RPC id as received (nil for a notification).
	ID json.RawMessage
	// Message is the message object as received (tolerated variants are
	// read by the typed decoding of [Handle], not here).
	Message json.RawMessage
	// HTTP is the underlying HTTP request.
	HTTP *http.Request
	// Envelope is the decoded message's envelope, or nil when the message
	// does not decode or the tool's input is not a [Message]. [Middleware]
	// sees it before the message is validated or authorised: treat it as
	// the caller's claim.
	Envelope *Envelope
	// FlatReply, when a handler sets it, repeats the fields of its reply
	// message at the top level of the JSON-RPC response, beside result,
	// for callers of other implementations that read a reply only as a
	// bare message. A strict JSON-RPC client still reads result. It has no
	// effect on tools/call replies or on errors.
	FlatReply bool
}

type requestKey struct{}

// RequestFrom returns the [Request] a handler is serving, or nil outside a
// handler. Handlers get it as an argument; RequestFrom is for code they
// call that only has the context.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

type route struct {
	tool   Tool
	schema json.RawMessage
	types  map[MessageType]bool
	// decode reads a message into the tool's input type and returns it with
	// its message_type ("" when the input is not a Message); run validates,
	// authorises and serves a decoded input.
	decode func(raw json.RawMessage) (in any, t MessageType, err error)
	run    func(ctx context.Context, req *Request, in any) (any, error)
	// prefix, when set, decodes a message at the start of raw and returns
	// the text after it (oneReading).
	prefix func(raw []byte) (in any, t MessageType, rest []byte, err error)
}

// Server is an [http.Handler] that serves the league protocol on POST /mcp
// and GET /health. Handlers are added with [Handle] or [Server.HandleRaw] before the
// server serves; a request no tool takes goes to [ServerConfig.Unknown].
// It answers JSON-RPC 2.0 in every wire form of the profile and the MCP
// lifecycle (initialize, ping, tools/list, tools/call).
type Server struct {
	cfg    ServerConfig
	mu     sync.RWMutex
	routes []*route
	byName map[string]*route
	byType map[MessageType]*route
}

// NewServer returns a [Server] with no tools.
func NewServer(cfg ServerConfig) *Server {
	if cfg.Name == "" {
		cfg.Name = "league-agent"
	}
	if cfg.Version == "" {
		cfg.Version = Version
	}
	if cfg.Sender == nil {
		cfg.Sender = func() string { return "agent" }
	}
	if cfg.ErrorType == "" {
		cfg.ErrorType = MsgLeagueError
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.BodyTimeout == 0 {
		cfg.BodyTimeout = DefaultBodyTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Server{cfg: cfg, byName: map[string]*route{}, byType: map[MessageType]*route{}}
}

// Handle adds a tool to s whose handler takes a message of type In and
// answers a message of type Out. The request's message is decoded into In,
// validated with [Validate] when In is a [Message], authorised, and passed to h
// with the [Request] it came in (its wire form, method, JSON-RPC id, HTTP
// request; a handler sets FlatReply on it to answer in a caller's dialect).
// An [*Error] returned by h is answered as a protocol error with its code; an
// [*RPCError] as itself; any other error as -32603. A panic in h is answered
// as -32603 and the server keeps serving. [Tool.NoValidate] skips Validate.
//
// Handle panics when the tool's name or one of its aliases is already
// taken (compared case-insensitively), as [http.ServeMux] does for a pattern
// registered twice: the conflict is a programming error found at start.
func Handle[In, Out any](s *Server, tool Tool, h func(ctx context.Context, req *Request, in *In) (*Out, error)) {
	var zero In
	types := tool.MessageTypes
	if len(types) == 0 {
		if t := MessageTypeOf(&zero); t != "" {
			types = []MessageType{t}
		}
	}
	r := &route{tool: tool, schema: schemaFor(reflect.TypeOf(zero))}
	renames := readsAliased(reflect.TypeFor[In]())
	r.decode = func(raw json.RawMessage) (any, MessageType, error) {
		in := new(In)
		if len(raw) > 0 {
			if renames {
				raw = normalizeAliases(raw)
			}
			if err := wirejson.Unmarshal(raw, in); err != nil {
				return nil, "", &Error{Code: CodeMissingRequiredField, Message: "message does not decode: " + err.Error(), Err: err}
			}
		}
		if m, ok := any(in).(Message); ok {
			return in, m.Header().MessageType, nil
		}
		return in, "", nil
	}
	if _, ok := any(&zero).(Message); ok && !renames {
		r.prefix = func(raw []byte) (any, MessageType, []byte, error) {
			in := new(In)
			rest, err := wirejson.Prefix(raw, in)
			if err != nil {
				return nil, "", nil, err
			}
			return in, any(in).(Message).Header().MessageType, rest, nil
		}
	}
	r.run = func(ctx context.Context, req *Request, v any) (any, error) {
		in := v.(*In)
		if m, ok := any(in).(Message); ok {
			if !tool.NoValidate {
				if err := Validate(in); err != nil {
					return nil, err
				}
			}
			if !tool.Public && s.cfg.Authorize != nil {
				if err := s.cfg.Authorize(ctx, tool.Name, m.Header()); err != nil {
					return nil, err
				}
			}
		}
		out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return nil, errors.New("handler returned no message")
		}
		return out, nil
	}
	s.add(r, types)
}

// HandleRaw adds a tool whose handler reads the message itself, from
// req.Message (as received), and answers any value that
// encodes to JSON. The message is not decoded into a type nor validated;
// when the tool is not Public, [ServerConfig.Authorize] sees the envelope
// the message claims. [Tool.MessageTypes] lists the message types routed to
// it by message_type. Errors, panics and duplicate names are treated as by
// [Handle].
func (s *Server) HandleRaw(tool Tool, h HandlerFunc) {
	r := &route{tool: tool, schema: json.RawMessage(`{"type":"object"}`)}
	r.decode = func(raw json.RawMessage) (any, MessageType, error) {
		env := new(Envelope)
		if len(raw) > 0 && raw[0] == '{' {
			_ = wirejson.Unmarshal(raw, env) // the handler reads the message; the envelope is a claim
		}
		return env, env.MessageType, nil
	}
	r.run = func(ctx context.Context, req *Request, v any) (any, error) {
		if !tool.Public && s.cfg.Authorize != nil {
			if err := s.cfg.Authorize(ctx, tool.Name, v.(*Envelope)); err != nil {
				return nil, err
			}
		}
		out, err := h(ctx, req)
		if err != nil {
			return nil, err
		}
		if out == nil {
			return nil, errors.New("handler returned no message")
		}
		return out, nil
	}
	s.add(r, tool.MessageTypes)
}

// add routes r's name, aliases and message types to r; a message type
// already routed stays with its first tool. It panics on a name another
// tool took (a tool's own aliases may repeat its name in another case).
func (s *Server) add(r *route, types []MessageType) {
	r.types = make(map[MessageType]bool, len(types))
	for _, t := range types {
		r.types[t] = true
	}
	names := append([]string{r.tool.Name}, r.tool.Aliases...)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, name := range names {
		if name == "" {
			panic("leaguesdk: a tool needs a name")
		}
		if _, taken := s.byName[strings.ToLower(name)]; taken {
			panic(fmt.Sprintf("leaguesdk: tool name %q registered twice", name))
		}
	}
	s.routes = append(s.routes, r)
	for _, name := range names {
		s.byName[strings.ToLower(name)] = r
	}
	for _, t := range types {
		if _, taken := s.byType[t]; !taken {
			s.byType[t] = r
		}
	}
}

// Tools returns the tools of s in the order they were added.
func (s *Server) Tools() []Tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]Tool, len(s.routes))
	for i, r := range s.routes {
		out[i] = r.tool
	}
	return out
}

// ServeHTTP implements [http.Handler]: POST /mcp (or /) for JSON-RPC,
// GET /health for liveness; GET /mcp is answered 405.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case path == "/health" || strings.HasSuffix(path, "/health"):
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "healthy", "agent": s.cfg.Sender()})
	case path == "" || path == "/mcp" || strings.HasSuffix(path, "/mcp"):
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeJSON(w, http.StatusMethodNotAllowed, rpcResponse{JSONRPC: "2.0", ID: nullID,
				Error: &RPCError{Code: RPCInvalidRequest, Message: "use POST for JSON-RPC requests"}})
			return
		}
		s.serveRPC(w, r)
	default:
		http.NotFound(w, r)
	}
}

var nullID = json.RawMessage("null")

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// errBodyTooLarge is the answer to a request whose body is over the limit.
func (s *Server) errBodyTooLarge(w http.ResponseWriter) {
	writeJSON(w, http.StatusRequestEntityTooLarge, rpcResponse{JSONRPC: "2.0", ID: nullID,
		Error: &RPCError{Code: RPCInvalidRequest, Message: fmt.Sprintf("request body larger than %d bytes", s.cfg.MaxBodyBytes)}})
}

// readBody reads a request's body, within MaxBodyBytes and BodyTimeout.
// A body that fails to arrive leaves the connection to be closed after
// the answer.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	var rc *http.ResponseController
	if s.cfg.BodyTimeout > 0 {
		rc = http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(s.cfg.BodyTimeout)) != nil {
			rc = nil // a server without read deadlines: nothing to undo
		}
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes), r.ContentLength, -1)
	if err != nil {
		w.Header().Set("Connection", "close")
		return nil, err
	}
	if rc != nil {
		// Once the body is in, the connection has no read deadline while
		// the handler runs: net/http's watch for a caller that goes away
		// must not take the deadline for one.
		_ = rc.SetReadDeadline(time.Time{})
	}
	return body, nil
}

func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > s.cfg.MaxBodyBytes {
		// Answered before any of the body is read: net/http then closes
		// the connection rather than wait for a body nobody reads.
		s.errBodyTooLarge(w)
		return
	}
	body, err := s.readBody(w, r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.errBodyTooLarge(w)
			return
		}
		writeJSON(w, http.StatusBadRequest, rpcResponse{JSONRPC: "2.0", ID: nullID,
			Error: &RPCError{Code: RPCParseError, Message: "reading request: " + err.Error()}})
		return
	}
	if s.oneReading(w, r, body) {
		return
	}
	var req rpcRequest
	if err := wirejson.Unmarshal(body, &req); err != nil {
		trimmed := bytes.TrimSpace(body)
		if len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed) {
			writeJSON(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: nullID,
				Error: &RPCError{Code: RPCInvalidRequest, Message: "batch requests are not supported"}})
			return
		}
		if json.Valid(trimmed) {
			// Well-formed JSON that is not a request object ("method": 5, a bare string).
			writeJSON(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: nullID,
				Error: &RPCError{Code: RPCInvalidRequest, Message: "invalid request: " + err.Error()}})
			return
		}
		writeJSON(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: nullID,
			Error: &RPCError{Code: RPCParseError, Message: "parse error: " + err.Error()}})
		return
	}
	id := req.ID
	notification := len(id) == 0
	if notification {
		id = nullID
	}
	if req.JSONRPC != "2.0" || req.Method == nil || *req.Method == "" {
		writeJSON(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: id,
			Error: &RPCError{Code: RPCInvalidRequest, Message: `invalid request: want "jsonrpc":"2.0" and a method`}})
		return
	}
	result, rpcErr := s.dispatch(r, *req.Method, req.ID, req.Params, notification)
	answer(w, id, notification, result, rpcErr)
}

// answer answers a request: 202 with no body for a notification, else
// its result or rpcErr under the JSON-RPC id id.
func answer(w http.ResponseWriter, id json.RawMessage, notification bool, result any, rpcErr *RPCError) {
	if notification {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	reply(w, id, result, rpcErr)
}

// oneReading serves the most common request reading its body once: a
// request object whose jsonrpc, id and method come before its params
// (internal/json's RequestHead), the method naming a tool and the params
// being a message that tool takes. The message is decoded where it
// stands in the body, then what follows it is read. It reports false,
// having answered nothing, for any other request and for one that does
// not decode: the general path then reads it and answers as it does.
func (s *Server) oneReading(w http.ResponseWriter, hr *http.Request, body []byte) bool {
	jsonrpc, method, id, params, ok := wirejson.RequestHead(body)
	if !ok || len(params) == 0 || params[0] != '{' {
		return false
	}
	s.mu.RLock()
	rt := s.byName[strings.ToLower(method)]
	s.mu.RUnlock()
	if rt == nil || rt.prefix == nil {
		return false
	}
	in, t, rest, ok := decodePrefix(rt, params)
	if !ok || t == "" || !rt.types[t] {
		return false
	}
	msg := params[:len(params)-len(rest)]
	if len(rest) == 0 || rest[0] != '}' && rest[0] != ',' {
		return false
	}
	if rest[0] == ',' {
		// Members after params: read as an object of their own (a comma
		// must be followed by one).
		if next := bytes.TrimLeft(rest[1:], " \t\r\n"); len(next) == 0 || next[0] != '"' {
			return false
		}
		var tail struct {
			JSONRPC *string         `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if wirejson.Unmarshal(append([]byte{'{'}, rest[1:]...), &tail) != nil || tail.Method != nil || tail.Params != nil {
			return false
		}
		if tail.JSONRPC != nil {
			jsonrpc = *tail.JSONRPC
		}
		if tail.ID != nil {
			id = tail.ID
		}
	} else if len(bytes.TrimSpace(rest[1:])) != 0 {
		return false
	}
	if jsonrpc != "2.0" || method == "" {
		return false
	}
	result, rpcErr := s.serve(hr, rt, FormSpec, method, id, msg, string(t), in)
	answer(w, id, len(id) == 0, result, rpcErr)
	return true
}

// decodePrefix decodes the message at the start of params with rt.prefix;
// a panic in decoding reports false (the general path recovers it and
// answers).
func decodePrefix(rt *route, params []byte) (in any, t MessageType, rest []byte, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	in, t, rest, err := rt.prefix(params)
	return in, t, rest, err == nil
}

// reply answers a request with the JSON-RPC id id: its result, or rpcErr.
func reply(w http.ResponseWriter, id json.RawMessage, result any, rpcErr *RPCError) {
	if rpcErr != nil {
		status := http.StatusOK
		if rpcErr.status != 0 {
			status = rpcErr.status
			w.Header().Set("Retry-After", strconv.Itoa(rpcErr.retryAfter))
		}
		writeJSON(w, status, rpcResponse{JSONRPC: "2.0", ID: id, Error: rpcErr})
		return
	}
	if fr, ok := result.(flatReply); ok {
		writeJSON(w, http.StatusOK, fr.response(id))
		return
	}
	writeJSON(w, http.StatusOK, rpcResponse{JSONRPC: "2.0", ID: id, Result: result})
}

// writeJSON answers v as JSON. HTML escaping is off, so that the request's
// id and the handler's strings go back byte for byte. The encoding goes to
// w as it is, from the encoder's own buffer, not copied into one of ours
// first: an encoder writes nothing of a value it cannot encode.
func writeJSON(w http.ResponseWriter, status int, v any) {
	jw := &jsonWriter{w: w, status: status}
	enc := json.NewEncoder(jw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil && !jw.wrote {
		jw.status = http.StatusInternalServerError
		_, _ = jw.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"response does not encode"}}`))
	}
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

// dispatch routes one request and returns its result or its error.
func (s *Server) dispatch(hr *http.Request, method string, id, params json.RawMessage, notification bool) (any, *RPCError) {
	switch method {
	case "initialize":
		return s.initialize(params), nil
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return s.toolsList(), nil
	}
	if strings.HasPrefix(method, "notifications/") {
		return struct{}{}, nil
	}
	if method != "tools/call" {
		if rt, msg, in, t := s.direct(method, params); rt != nil {
			return s.serve(hr, rt, FormSpec, method, id, msg, string(t), in)
		}
	}
	form := FormSpec
	var rt *route
	var msg json.RawMessage
	var msgType string
	if method == "tools/call" {
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := wirejson.Unmarshal(params, &call); err != nil || call.Name == "" {
			return nil, &RPCError{Code: RPCInvalidParams, Message: "tools/call needs params.name"}
		}
		form = FormToolsCall
		msg, msgType = locateMessage(call.Arguments)
		s.mu.RLock()
		rt = s.byName[strings.ToLower(call.Name)]
		s.mu.RUnlock()
		if rt == nil {
			return s.unrouted(hr, form, method, call.Name, id, msg, msgType,
				&RPCError{Code: RPCInvalidParams, Message: "unknown tool " + quote(call.Name)})
		}
	} else {
		msg, msgType = locateMessage(params)
		rt, form = s.route(method, msgType, params, msg)
		if rt == nil {
			return s.unrouted(hr, form, method, "", id, msg, msgType,
				&RPCError{Code: RPCMethodNotFound, Message: "method not found: " + quote(method)})
		}
	}
	return s.serve(hr, rt, form, method, id, msg, msgType, nil)
}

// direct is the fast path of the most common request: a method that names
// a tool, with the message as flat params whose message_type the tool
// takes. It decodes the message once, and returns a nil route for any
// other request, which then takes the general path.
func (s *Server) direct(method string, params json.RawMessage) (rt *route, msg json.RawMessage, in any, t MessageType) {
	if len(params) == 0 || params[0] != '{' {
		return nil, nil, nil, ""
	}
	s.mu.RLock()
	rt = s.byName[strings.ToLower(method)]
	s.mu.RUnlock()
	if rt == nil {
		return nil, nil, nil, ""
	}
	defer func() {
		if recover() != nil { // the general path recovers and answers it
			rt, msg, in, t = nil, nil, nil, ""
		}
	}()
	msg = params
	in, t, err := rt.decode(msg)
	if err != nil || t == "" || !rt.types[t] {
		return nil, nil, nil, ""
	}
	return rt, msg, in, t
}

// serve runs a routed request: in is the decoded message, or nil to decode
// msg. The request passes through the middleware, then is validated,
// authorised and handled.
func (s *Server) serve(hr *http.Request, rt *route, form WireForm, method string, id, msg json.RawMessage, msgType string, in any) (any, *RPCError) {
	req := &Request{Method: method, Tool: rt.tool.Name, Form: form, ID: id, Message: msg, HTTP: hr}
	ctx := context.WithValue(hr.Context(), requestKey{}, req)
	start := time.Now()
	var decodeErr error
	if in == nil {
		in, decodeErr = s.decode(ctx, rt, msg)
	}
	if m, ok := in.(Message); ok && decodeErr == nil {
		req.Envelope = m.Header()
	}
	h := handling{rt: rt, in: in, decodeErr: decodeErr}
	var out any
	var err error
	if mw := s.cfg.Middleware; len(mw) > 0 {
		out, err = s.guard(ctx, rt.tool.Name, chain(h.handle, mw), req)
	} else {
		// Without middleware the handler is called as it is: no closure
		// of it is kept, so none is allocated.
		out, err = s.guard(ctx, rt.tool.Name, h.handle, req)
	}
	took := time.Since(start)
	if s.cfg.Observer != nil {
		s.cfg.Observer.ObserveCall(CallEvent{Served: true, Method: rt.tool.Name, Outcome: Outcome(err), Took: took})
	}
	log := s.cfg.Logger
	if err != nil {
		rpcErr := s.toRPCError(err, msgType)
		log.LogAttrs(ctx, slog.LevelWarn, "request refused", slog.String("method", method), slog.String("tool", rt.tool.Name),
			slog.String("message_type", msgType), slog.String("form", form.String()), slog.Int("code", rpcErr.Code),
			slog.String("error", err.Error()))
		return nil, rpcErr
	}
	log.LogAttrs(ctx, slog.LevelDebug, "request served", slog.String("method", method), slog.String("tool", rt.tool.Name),
		slog.String("message_type", msgType), slog.String("form", form.String()), slog.Duration("took", took))
	return s.result(req, out), nil
}

// handling is the last step of serve: the route's handler with the
// decoded message, or the error that decoding it gave.
type handling struct {
	rt        *route
	in        any
	decodeErr error
}

func (h handling) handle(ctx context.Context, req *Request) (any, error) {
	if h.decodeErr != nil {
		return nil, h.decodeErr
	}
	return h.rt.run(ctx, req, h.in)
}

// result is the JSON-RPC result that carries a handler's reply out.
func (s *Server) result(req *Request, out any) any {
	if req.Form == FormToolsCall {
		return toolResult(out)
	}
	if req.FlatReply {
		return flatReply{out}
	}
	return out
}

// unrouted serves a request no tool takes with ServerConfig.Unknown, or
// answers notFound.
func (s *Server) unrouted(hr *http.Request, form WireForm, method, tool string, id, msg json.RawMessage, msgType string, notFound *RPCError) (any, *RPCError) {
	if s.cfg.Unknown == nil {
		return nil, notFound
	}
	req := &Request{Method: method, Tool: tool, Form: form, ID: id, Message: msg, HTTP: hr}
	if msgType != "" {
		env := new(Envelope)
		_ = wirejson.Unmarshal(msg, env) // what decodes of a message no tool reads
		env.MessageType = MessageType(msgType)
		req.Envelope = env
	}
	ctx := context.WithValue(hr.Context(), requestKey{}, req)
	out, err := s.guard(ctx, "unknown", chain(s.cfg.Unknown, s.cfg.Middleware), req)
	switch {
	case errors.Is(err, ErrUnrouted):
		return nil, notFound
	case err != nil:
		rpcErr := s.toRPCError(err, msgType)
		s.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "request refused", slog.String("method", method),
			slog.String("message_type", msgType), slog.String("form", form.String()), slog.Int("code", rpcErr.Code),
			slog.String("error", err.Error()))
		return nil, rpcErr
	case out == nil:
		return nil, &RPCError{Code: RPCInternalError, Message: "internal error: unknown-request handler returned no message"}
	}
	return s.result(req, out), nil
}

// flatReply is a result whose message fields are also written at the top
// level of the response (Request.FlatReply).
type flatReply struct{ msg any }

// response returns the JSON-RPC response to id carrying r: the message as
// result and its fields beside it, but for the response's own members.
func (r flatReply) response(id json.RawMessage) any {
	raw, err := json.Marshal(r.msg)
	var fields map[string]json.RawMessage
	if err != nil || json.Unmarshal(raw, &fields) != nil {
		return rpcResponse{JSONRPC: "2.0", ID: id, Result: r.msg}
	}
	for _, k := range []string{"jsonrpc", "id", "result", "error", "method", "params"} {
		delete(fields, k)
	}
	fields["jsonrpc"], _ = json.Marshal("2.0")
	fields["id"] = id
	fields["result"] = raw
	return fields
}

// route picks the tool for a direct request. The message's message_type
// decides when the method names no tool that accepts it; the method is a hint.
func (s *Server) route(method, msgType string, params, msg json.RawMessage) (*route, WireForm) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	form := FormSpec
	if len(msg) > 0 && len(params) > 0 && &msg[0] != &params[0] {
		form = FormEnvelope
	}
	byMethod := s.byName[strings.ToLower(method)]
	byType := s.byType[MessageType(msgType)]
	switch {
	case byMethod != nil && (msgType == "" || byMethod.types[MessageType(msgType)] || byType == nil):
		return byMethod, form
	case byType != nil:
		if strings.EqualFold(method, msgType) {
			form = FormMessageType
		} else if form == FormSpec {
			form = FormEnvelope
		}
		return byType, form
	}
	if rt := s.byType[MessageType(strings.ToUpper(method))]; rt != nil {
		return rt, FormMessageType
	}
	return nil, form
}

// guard runs h for req, answering a panic in it (or in a middleware) as
// -32603 while the server keeps serving.
func (s *Server) guard(ctx context.Context, tool string, h HandlerFunc, req *Request) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.cfg.Logger.LogAttrs(ctx, slog.LevelError, "handler panic", slog.String("tool", tool),
				slog.Any("panic", p), slog.String("stack", string(debug.Stack())))
			out, err = nil, &RPCError{Code: RPCInternalError, Message: fmt.Sprintf("internal error in %s", tool)}
		}
	}()
	return h(ctx, req)
}

// decode reads msg into rt's input type; a panic while decoding is
// answered as -32603.
func (s *Server) decode(ctx context.Context, rt *route, msg json.RawMessage) (in any, err error) {
	_, err = s.guard(ctx, rt.tool.Name, func(context.Context, *Request) (any, error) {
		var derr error
		in, _, derr = rt.decode(msg)
		return nil, derr
	}, nil)
	return in, err
}

// toRPCError turns a handler's error into the JSON-RPC error to answer.
func (s *Server) toRPCError(err error, msgType string) *RPCError {
	if rl, ok := asRateLimit(err); ok {
		e := rl.err()
		data, _ := json.Marshal(errorMessage(s.cfg.ErrorType, e, s.cfg.Sender(), MessageType(msgType), s.cfg.Now()))
		return &RPCError{Code: RPCServerError, Message: e.Code.Name(), Data: data,
			status: http.StatusTooManyRequests, retryAfter: rl.retryAfterSeconds()}
	}
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	var e *Error
	if !errors.As(err, &e) {
		return &RPCError{Code: RPCInternalError, Message: "internal error: " + err.Error()}
	}
	data, _ := json.Marshal(errorMessage(s.cfg.ErrorType, e, s.cfg.Sender(), MessageType(msgType), s.cfg.Now()))
	return &RPCError{Code: RPCServerError, Message: e.Code.Name(), Data: data}
}

// errorMessage builds the LEAGUE_ERROR (or, for t == MsgGameError,
// GAME_ERROR) message that reports e, as sent by sender at now.
func errorMessage(t MessageType, e *Error, sender string, original MessageType, now time.Time) Message {
	env := NewEnvelope(t, sender, "", "", now)
	ctx := map[string]any{}
	for k, v := range e.Context {
		ctx[k] = v
	}
	if e.Field != "" {
		ctx["field"] = e.Field
	}
	if len(ctx) == 0 {
		ctx = nil
	}
	if t == MsgGameError {
		return &GameError{Envelope: env, ErrorCode: e.Code, ErrorName: e.Code.Name(), ErrorDescription: e.Message,
			Retryable: e.Code.Retryable(), Context: ctx}
	}
	return &LeagueError{Envelope: env, ErrorCode: e.Code, ErrorName: e.Code.Name(), ErrorDescription: e.Message,
		OriginalMessageType: original, Retryable: e.Code.Retryable(), Context: ctx}
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

func toolResult(out any) toolCallResult {
	b, _ := json.Marshal(out)
	return toolCallResult{Content: []toolContent{{Type: "text", Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

func (s *Server) initialize(params json.RawMessage) any {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &p)
	version := mcpProtocolVersions()[0]
	for _, v := range mcpProtocolVersions() {
		if v == p.ProtocolVersion {
			version = v
		}
	}
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      map[string]string{"name": s.cfg.Name, "version": s.cfg.Version},
	}
}

type toolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func (s *Server) toolsList() any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	tools := make([]toolInfo, 0, len(s.routes))
	for _, r := range s.routes {
		tools = append(tools, toolInfo{Name: r.tool.Name, Description: r.tool.Description, InputSchema: r.schema})
	}
	return map[string]any{"tools": tools}
}

// locateMessage finds the protocol message in a request's params: params
// itself, or params.message, params.arguments or params.payload. It returns
// the message and its message_type ("" when none is named).
func locateMessage(params json.RawMessage) (json.RawMessage, string) {
	if len(params) == 0 {
		return params, ""
	}
	var probe paramsProbe
	if wirejson.Unmarshal(params, &probe) != nil {
		return params, ""
	}
	if probe.MessageType != "" {
		return params, probe.MessageType
	}
	for _, inner := range []json.RawMessage{probe.Message, probe.Arguments, probe.Payload} {
		if len(inner) == 0 || inner[0] != '{' {
			continue
		}
		if t := messageTypeOf(inner); t != "" {
			return inner, t
		}
	}
	return params, ""
}

// aliases maps field names other implementations use to the profile's
// names, for the message types that have no decoding of their own; the
// players' answers read theirs (choice, accepted) in tolerant.go.
var aliases = [...][2]string{
	{"role", "role_in_match"},
	{"rejection_reason", "reason"},
}

// decodeMessage is where every received message is decoded, by the server
// for a typed tool and by the client for a typed reply: alias fields are
// renamed to the profile's names, then the type's own decoding reads the
// variants it tolerates (tolerant.go).
func decodeMessage(raw json.RawMessage, v any) error {
	return wirejson.Unmarshal(normalizeAliases(raw), v)
}

// readsAliased reports whether decoding a message into t reads a field
// that has an alias: a struct with a member of that name, by its JSON name
// (compared as encoding/json compares them, ignoring case), or anything
// other than a struct. Renaming is of no use to the others, and it costs a
// search of the whole message (a 1000-row standings table, say).
func readsAliased(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return true
	}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		for _, a := range aliases {
			if strings.EqualFold(name, a[1]) {
				return true
			}
		}
	}
	return false
}

// normalizeAliases renames alias fields of a message object to the
// profile's names when the profile's name is absent. It returns msg itself
// when there is nothing to rename.
func normalizeAliases(msg json.RawMessage) json.RawMessage {
	if len(msg) == 0 || msg[0] != '{' {
		return msg
	}
	found := false
	for _, a := range aliases {
		if bytes.Contains(msg, []byte(`"`+a[0]+`"`)) {
			found = true
			break
		}
	}
	if !found {
		return msg
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	changed := false
	for _, a := range aliases {
		if v, ok := m[a[0]]; ok {
			if _, has := m[a[1]]; !has {
				m[a[1]] = v
				changed = true
			}
		}
	}
	if !changed {
		return msg
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}
