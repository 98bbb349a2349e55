package leaguesdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	wirejson "github.com/agentleague/league/internal/json"
)

// route is one tool of a Server.
type route struct {
	tool   Tool
	schema json.RawMessage
	types  map[MessageType]bool
	// typed is true when the tool's input is a Message.
	typed bool
	// bare is the message type a tools/call's bare arguments are taken as
	// (Tool.BareArguments), "" when they are not.
	bare MessageType
	// decode reads a message into the tool's input type; run validates,
	// authorises and serves a decoded input.
	decode func(raw json.RawMessage) (in any, err error)
	// decodeNext, for a typed tool, decodes the message at the start of
	// data (a request's params, as its body is read) and returns the text
	// after it; an error leaves the message to decode.
	decodeNext func(data []byte) (in any, rest []byte, err error)
	run        func(ctx context.Context, req *Request, in any) (any, error)
}

// Handle adds a tool to s whose handler takes a message of type In and
// answers a message of type Out. The request's message is decoded into In,
// validated with [Validate] when In is a [Message], authorised, and passed to h
// with the [Request] it came in (its wire form, method, JSON-RPC id, HTTP
// request). An [*Error] returned by h is answered as a protocol error with
// its code; an [*RPCError] as itself; any other error as -32603. A panic in h
// is answered as -32603 and the server keeps serving. [Tool.NoValidate] skips
// Validate.
//
// tools/list shows the tool's input schema: when In is one of this
// package's messages (a type [MessageTypeOf] knows), the JSON Schema of
// that message, inferred from its Go type when this package was written
// and compiled in (no reflection at run time); for any other In, a type
// of the caller's own included, {"type":"object"}: any JSON object, In's
// fields not described.
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
	_, typed := any(&zero).(Message)
	r := &route{tool: tool, schema: inputSchema(&zero), typed: typed}
	renames := readsAliased(reflect.TypeFor[In]())
	r.decode = func(raw json.RawMessage) (any, error) {
		in := new(In)
		if len(raw) > 0 {
			if renames {
				raw = normalizeAliases(raw)
			}
			if err := wirejson.Unmarshal(raw, in); err != nil {
				return nil, &Error{Code: CodeMissingRequiredField, Message: "message does not decode: " + err.Error(), Err: err}
			}
		}
		return in, nil
	}
	if typed {
		r.decodeNext = func(data []byte) (any, []byte, error) {
			in := new(In)
			rest, err := wirejson.Next(data, in)
			if err != nil {
				return nil, nil, err
			}
			if renames && hasAlias(data[:len(data)-len(rest)]) {
				return nil, nil, errAliased // decode renames them first
			}
			return in, rest, nil
		}
	}
	match := matchIDField(reflect.TypeFor[In]())
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
			if s.cfg.FlatDialect {
				t := m.Header().MessageType
				req.FlatReply = s.dialects.Flat(req.Form, req.Method, match(in),
					t == MsgGameInvitation, t == MsgGameOver) || req.FlatReply
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

// errAliased is decodeNext's error for a message that names a field by
// an alias: decode reads it, once the fields are renamed.
var errAliased = errors.New("message names a field by an alias")

// matchIDField returns a function that reads the match_id of a *T, ""
// for a type without one.
func matchIDField(t reflect.Type) func(any) string {
	if t.Kind() != reflect.Struct {
		return func(any) string { return "" }
	}
	f, ok := t.FieldByName("MatchID")
	if !ok || f.Type.Kind() != reflect.String {
		return func(any) string { return "" }
	}
	return func(v any) string { return reflect.ValueOf(v).Elem().FieldByIndex(f.Index).String() }
}

// HandleRaw adds a tool whose handler reads the message itself, from
// req.Message (as received), and answers any value that
// encodes to JSON. The message is not decoded into a type nor validated;
// when the tool is not Public, [ServerConfig.Authorize] sees the envelope
// the message claims. [Tool.MessageTypes] lists the message types routed to
// it by message_type. Errors, panics and duplicate names are treated as by
// [Handle].
func (s *Server) HandleRaw(tool Tool, h HandlerFunc) {
	r := &route{tool: tool, schema: json.RawMessage(objectSchema)}
	r.decode = func(raw json.RawMessage) (any, error) {
		env := new(Envelope)
		if len(raw) > 0 && raw[0] == '{' {
			_ = wirejson.Unmarshal(raw, env) // the handler reads the message; the envelope is a claim
		}
		return env, nil
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
	if r.tool.BareArguments && r.typed && len(types) > 0 {
		r.bare = types[0]
	}
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

// routeNamed returns the tool a lower-case method or tool name names, or
// nil.
func (s *Server) routeNamed(lowerName string) *route {
	s.mu.RLock()
	rt := s.byName[lowerName]
	s.mu.RUnlock()
	return rt
}

// routeTyped returns the tool that takes messages of type mt, or nil.
func (s *Server) routeTyped(mt string) *route {
	if mt == "" {
		return nil
	}
	s.mu.RLock()
	rt := s.byType[MessageType(mt)]
	s.mu.RUnlock()
	return rt
}

// preRead is a request's message decoded as its body was read
// (readNamed), with its route.
type preRead struct {
	rt *route
	in any
}

// namedRoute returns the typed tool a request's method names, when its
// params (the text from their value on) may be the tool's message: the
// commonest request, read at once by named.
func (s *Server) namedRoute(method string, params []byte) *route {
	if method == "tools/call" || len(params) == 0 || params[0] != '{' {
		return nil
	}
	rt := s.routeNamed(strings.ToLower(method))
	if rt == nil || !rt.typed {
		return nil
	}
	return rt
}

// readNamed is readRequest's reading of params: when the method
// names a typed tool, the params are decoded straight into its input, in
// the reading of the body, and pre holds them; it returns the text after
// them. Otherwise, or when they do not decode so, it returns false and
// they are read as they came.
func (s *Server) readNamed(ctx context.Context, method string, params []byte, pre *preRead) ([]byte, bool) {
	rt := s.namedRoute(method, params)
	if rt == nil || rt.decodeNext == nil {
		return nil, false
	}
	var rest []byte
	_, err := s.guard(ctx, rt.tool.Name, func(context.Context, *Request) (any, error) {
		in, r, err := rt.decodeNext(params)
		pre.rt, pre.in, rest = rt, in, r
		return nil, err
	}, nil)
	if err != nil || pre.in == nil {
		*pre = preRead{}
		return nil, false
	}
	return rest, true
}

// named reads the commonest request at once: a method that names a typed
// tool, with the message as params. It returns the tool's input (pre's,
// decoded as the body was read, or else decoded from params) with the
// message's type when the tool takes that type: what locateCall and
// routeCall would find, without reading params to locate the message
// first (a standings table is read once). For any other request it
// returns a nil route, and the request is located and routed as a whole
// (a message of another type sent to this method, say, goes to the tool
// that takes its type). A panic while decoding is the error to answer
// (-32603).
func (s *Server) named(ctx context.Context, method string, params json.RawMessage, pre preRead) (*route, any, MessageType, *RPCError) {
	rt, in := pre.rt, pre.in
	if in == nil {
		if rt = s.namedRoute(method, params); rt == nil {
			return nil, nil, "", nil
		}
		var err error
		in, err = s.decode(ctx, rt, params)
		if panicked, ok := err.(*RPCError); ok {
			return nil, nil, "", panicked
		}
		if err != nil {
			return nil, nil, "", nil
		}
	}
	t := in.(Message).Header().MessageType
	if t == "" || !rt.types[t] {
		return nil, nil, "", nil
	}
	return rt, in, t, nil
}

// decode reads msg into rt's input type; a panic while decoding is
// answered as -32603.
func (s *Server) decode(ctx context.Context, rt *route, msg json.RawMessage) (in any, err error) {
	_, err = s.guard(ctx, rt.tool.Name, func(context.Context, *Request) (any, error) {
		var derr error
		in, derr = rt.decode(msg)
		return nil, derr
	}, nil)
	return in, err
}
