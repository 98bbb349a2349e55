package leaguesdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
	// FlatDialect has the server answer the callers that read a reply only
	// as a bare message in their dialect: a request whose method is a
	// lower-case message type ("game_invitation"), and every later request
	// about a match whose GAME_INVITATION came that way, is answered with
	// the reply's fields also at the top level of the response
	// ([Request.FlatReply]). Referees of other implementations call
	// players so. Default false: every reply is a plain JSON-RPC response.
	FlatDialect bool
	// Unknown, when set, serves the requests and notifications no tool
	// takes, as [http.ServeMux]'s NotFound handler does: a method that names
	// no tool, alias or message type, or a tools/call whose name and
	// message no tool takes. Its [Request] has no Tool (for tools/call,
	// Tool is the name asked for), and an [Envelope] when the message names
	// a message_type. It runs
	// inside the [Middleware]. Returning [ErrUnrouted] answers the default:
	// -32601 method not found (-32602 for tools/call). MCP lifecycle
	// methods and notifications/* never reach it. Default: nil, the
	// default answer.
	Unknown HandlerFunc
}

// ErrUnrouted, returned by [ServerConfig.Unknown], has the [Server] answer a
// request no tool takes as it does without the hook.
var ErrUnrouted = errors.New("leaguesdk: no tool serves this request")

// Tool describes a method a [Server] serves. It is listed by tools/list,
// with the input schema [Handle] describes: a message's own schema, or
// {"type":"object"} for an input type that is not one of this package's
// messages.
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
	// BareArguments has a tools/call of this tool taken when its arguments
	// are the message without its envelope, as MCP-native implementations
	// send a registration ({"player_meta": {…}} alone): the tool's message
	// type (the first of MessageTypes) names the message, and the envelope
	// fields it lacks get the values the profile allows a registration
	// request — protocol league.v2, the message type, a sender made from
	// the display name of its *_meta member ([NameSender]), the server's
	// time, a fresh conversation id — and the *_meta member's missing
	// version is read from agent_version, else protocol_version. Fields
	// present are kept as they came and validated as usual; every other
	// form of the tool stays strict. Default false.
	BareArguments bool
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
	// FlatReply repeats the fields of the reply message at the top level
	// of the JSON-RPC response, beside result, for callers of other
	// implementations that read a reply only as a bare message. A strict
	// JSON-RPC client still reads result. A server with
	// [ServerConfig.FlatDialect] sets it before the handler runs for a
	// caller in that dialect; a handler may set it too. It has no effect on
	// tools/call replies or on errors.
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

// Server is an [http.Handler] that serves the league protocol on POST /mcp
// and GET /health. Handlers are added with [Handle] or [Server.HandleRaw] before the
// server serves; a request no tool takes goes to [ServerConfig.Unknown].
// It answers JSON-RPC 2.0 in every wire form of the profile and the MCP
// lifecycle (initialize, ping, tools/list, tools/call).
//
// A request goes one way through it: the body is read once into the
// JSON-RPC request (the wire layer, wire*.go, finds the message and its form),
// routed to a tool, decoded once into the tool's input type, passed
// through the [Middleware], validated, authorised and handled, and the
// reply encoded once.
type Server struct {
	cfg      ServerConfig
	mu       sync.RWMutex
	routes   []*route
	byName   map[string]*route
	byType   map[MessageType]*route
	dialects dialectMemory
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
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "healthy", "agent": s.cfg.Sender()})
	case path == "" || path == "/mcp" || strings.HasSuffix(path, "/mcp"):
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			writeResponse(w, http.StatusMethodNotAllowed, wireResponse{JSONRPC: "2.0", ID: nullID,
				Error: &RPCError{Code: RPCInvalidRequest, Message: "use POST for JSON-RPC requests"}})
			return
		}
		s.serveRPC(w, r)
	default:
		http.NotFound(w, r)
	}
}

// errBodyTooLarge is the answer to a request whose body is over the limit.
func (s *Server) errBodyTooLarge(w http.ResponseWriter) {
	writeResponse(w, http.StatusRequestEntityTooLarge, wireResponse{JSONRPC: "2.0", ID: nullID,
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
		writeResponse(w, http.StatusBadRequest, wireResponse{JSONRPC: "2.0", ID: nullID,
			Error: &RPCError{Code: RPCParseError, Message: "reading request: " + err.Error()}})
		return
	}
	var pre preRead
	req, id, read, bad := readRequest(body, func(method string, params []byte) ([]byte, bool) {
		return s.readNamed(r.Context(), method, params, &pre)
	})
	if bad != nil {
		writeResponse(w, http.StatusOK, wireResponse{JSONRPC: "2.0", ID: id, Error: bad})
		return
	}
	if !read {
		pre = preRead{}
	}
	resp, rpcErr := s.dispatch(r, &req, id, pre)
	switch {
	case req.Notification():
		w.WriteHeader(http.StatusAccepted)
	case rpcErr != nil:
		status := http.StatusOK
		if rpcErr.status != 0 {
			status = rpcErr.status
			w.Header().Set("Retry-After", strconv.Itoa(rpcErr.retryAfter))
		}
		writeResponse(w, status, wireResponse{JSONRPC: "2.0", ID: id, Error: rpcErr})
	default:
		writeResponse(w, http.StatusOK, resp)
	}
}

// dispatch routes one request and returns the response to write under id,
// or the error to answer.
func (s *Server) dispatch(hr *http.Request, req *wireRequest, id json.RawMessage, pre preRead) (wireResponse, *RPCError) {
	method := req.Method
	switch method {
	case "initialize":
		return wireResponse{JSONRPC: "2.0", ID: id, Result: initializeResult(req.Params, s.cfg.Name, s.cfg.Version)}, nil
	case "ping":
		return wireResponse{JSONRPC: "2.0", ID: id, Result: struct{}{}}, nil
	case "tools/list":
		return wireResponse{JSONRPC: "2.0", ID: id, Result: s.toolsList()}, nil
	}
	if strings.HasPrefix(method, "notifications/") {
		return wireResponse{JSONRPC: "2.0", ID: id, Result: struct{}{}}, nil
	}
	if rt, in, t, panicked := s.named(hr.Context(), method, req.Params, pre); panicked != nil {
		return wireResponse{}, panicked
	} else if rt != nil {
		call := wireCall{Form: FormSpec, Message: req.Params, MessageType: string(t)}
		return s.serve(hr, rt, req, id, &call, in)
	}
	call, bad := locateCall(method, req.Params)
	if bad != nil {
		return wireResponse{}, bad
	}
	var rt *route
	if call.Form == FormToolsCall {
		if rt = s.routeTool(&call); rt == nil {
			return s.unrouted(hr, req, id, &call, &RPCError{Code: RPCInvalidParams, Message: "unknown tool " + quote(call.Tool)})
		}
		if msg, ok := s.completeBare(rt, call.Message); ok {
			// The message as completed is decoded; the handler's Request
			// keeps it as it came.
			if in, err := s.decode(hr.Context(), rt, msg); err == nil {
				call.MessageType = string(rt.bare)
				return s.serve(hr, rt, req, id, &call, in)
			}
		}
	} else if rt = s.routeCall(method, &call); rt == nil {
		return s.unrouted(hr, req, id, &call, &RPCError{Code: RPCMethodNotFound, Message: "method not found: " + quote(method)})
	}
	return s.serve(hr, rt, req, id, &call, nil)
}

// serve runs a routed request: its message is decoded into the tool's
// input (unless in is the message decoded already), then passes through the middleware, is validated, authorised and
// handled, and the reply is made the response.
func (s *Server) serve(hr *http.Request, rt *route, wr *wireRequest, id json.RawMessage, call *wireCall, in any) (wireResponse, *RPCError) {
	method, msgType, form := wr.Method, call.MessageType, call.Form
	req := &Request{Method: method, Tool: rt.tool.Name, Form: form, ID: wr.ID, Message: call.Message, HTTP: hr}
	ctx := context.WithValue(hr.Context(), requestKey{}, req)
	start := time.Now()
	var decodeErr error
	if in == nil {
		in, decodeErr = s.decode(ctx, rt, call.Message)
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
		return wireResponse{}, rpcErr
	}
	log.LogAttrs(ctx, slog.LevelDebug, "request served", slog.String("method", method), slog.String("tool", rt.tool.Name),
		slog.String("message_type", msgType), slog.String("form", form.String()), slog.Duration("took", took))
	return resultResponse(id, call.Form, req.FlatReply, out), nil
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

// unrouted serves a request no tool takes with ServerConfig.Unknown, or
// answers notFound.
func (s *Server) unrouted(hr *http.Request, wr *wireRequest, id json.RawMessage, call *wireCall, notFound *RPCError) (wireResponse, *RPCError) {
	if s.cfg.Unknown == nil {
		return wireResponse{}, notFound
	}
	method, msgType, form := wr.Method, call.MessageType, call.Form
	req := &Request{Method: method, Tool: call.Tool, Form: form, ID: wr.ID, Message: call.Message, HTTP: hr}
	if msgType != "" {
		env := new(Envelope)
		_ = wirejson.Unmarshal(call.Message, env) // what decodes of a message no tool reads
		env.MessageType = MessageType(msgType)
		req.Envelope = env
	}
	ctx := context.WithValue(hr.Context(), requestKey{}, req)
	out, err := s.guard(ctx, "unknown", chain(s.cfg.Unknown, s.cfg.Middleware), req)
	switch {
	case errors.Is(err, ErrUnrouted):
		return wireResponse{}, notFound
	case err != nil:
		rpcErr := s.toRPCError(err, msgType)
		s.cfg.Logger.LogAttrs(ctx, slog.LevelWarn, "request refused", slog.String("method", method),
			slog.String("message_type", msgType), slog.String("form", form.String()), slog.Int("code", rpcErr.Code),
			slog.String("error", err.Error()))
		return wireResponse{}, rpcErr
	case out == nil:
		return wireResponse{}, &RPCError{Code: RPCInternalError, Message: "internal error: unknown-request handler returned no message"}
	}
	return resultResponse(id, call.Form, req.FlatReply, out), nil
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
