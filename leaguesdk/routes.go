package leaguesdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/internal/wire"
)

// route is one tool of a Server.
type route struct {
	tool   Tool
	schema json.RawMessage
	types  map[MessageType]bool
	// typed is true when the tool's input is a Message.
	typed bool
	// decode reads a message into the tool's input type; run validates,
	// authorises and serves a decoded input.
	decode func(raw json.RawMessage) (in any, err error)
	run    func(ctx context.Context, req *Request, in any) (any, error)
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
	renames := wire.ReadsAliased(reflect.TypeFor[In]())
	r.decode = func(raw json.RawMessage) (any, error) {
		in := new(In)
		if len(raw) > 0 {
			if renames {
				raw = wire.Normalize(raw)
			}
			if err := wirejson.Unmarshal(raw, in); err != nil {
				return nil, &Error{Code: CodeMissingRequiredField, Message: "message does not decode: " + err.Error(), Err: err}
			}
		}
		return in, nil
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
				req.FlatReply = s.dialects.Flat(wire.Form(req.Form), req.Method, match(in),
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

// routeTable is a Server's tools as internal/wire's Route consults them.
type routeTable struct{ s *Server }

// Named returns the tool a lower-case method or tool name names.
func (t routeTable) Named(lowerName string) (*route, bool) {
	t.s.mu.RLock()
	rt := t.s.byName[lowerName]
	t.s.mu.RUnlock()
	return rt, rt != nil
}

// Typed returns the tool that takes messages of type mt.
func (t routeTable) Typed(mt string) (*route, bool) {
	if mt == "" {
		return nil, false
	}
	t.s.mu.RLock()
	rt := t.s.byType[MessageType(mt)]
	t.s.mu.RUnlock()
	return rt, rt != nil
}

// Takes reports whether rt takes messages of type mt.
func (routeTable) Takes(rt *route, mt string) bool { return rt.types[MessageType(mt)] }
