package leaguesdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// withFallback is the wire-form layer of an attempt: it sends the call in
// the endpoint's preferred wire form and, when the peer refuses the form,
// once in each other form. A refusal for want of an MCP session leads to
// the handshake and a tools/call in the session (withSession). When the
// peer refuses every form, and its refusal of tools/call says it has no
// tool of that name (toolRefused), its tools/list is read (once per
// endpoint) and the call is sent as tools/call under the tool that lists
// the message (withToolNames); the name that works is remembered per endpoint, and
// later calls of the method go straight to it.
//
// On the first exchange with an endpoint (no form remembered yet) any
// JSON-RPC error without a catalog code also counts as a refused form
// (formMissed): some peers answer a message they did not find where they
// looked with a server error. The form of the first exchange that works is
// remembered, so later calls keep the narrow reading.
//
// When every form fails, the error returned is the most telling of those
// the peer answered (telling): a peer's "Unknown tool: x" says more than
// the -32601 of the first form.
func (c *Client) withFallback(ctx context.Context, x *exchange) error {
	peer := x.ep.peer
	first, known := peer.Form()
	x.tool, _ = peer.ToolName(x.method)
	if x.tool != "" {
		first, known = FormToolsCall, true
	}
	refused := func(err error) bool { return formRefused(err) || (!known && formMissed(err)) }
	sess := peer.Session()
	err := c.send(ctx, x, first, sess)
	if err == nil && !known {
		peer.RememberFirst(first)
	}
	if err == nil || ctx.Err() != nil {
		return err
	}
	if sessionRefused(err) {
		return c.withSession(ctx, x, sess)
	}
	if !refused(err) {
		return err
	}
	var toolErr error // the refusal of the tools/call form
	if first == FormToolsCall {
		toolErr = err
	}
	for _, f := range wireForms {
		if f == first || (f == FormMessageType && x.params.messageType() == "") {
			continue
		}
		e2 := c.send(ctx, x, f, sess)
		switch {
		case e2 == nil:
			peer.Remember(f)
			c.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "peer accepts another wire form", slog.String("endpoint", x.ep.name),
				slog.String("method", x.method), slog.String("form", f.String()))
			return nil
		case ctx.Err() != nil:
			return e2
		case sessionRefused(e2):
			return c.withSession(ctx, x, sess)
		case !refused(e2):
			return e2
		}
		if f == FormToolsCall {
			toolErr = e2
		}
		err = moreTelling(err, e2, x)
	}
	if toolRefused(toolErr) {
		return c.withToolNames(ctx, x, sess, err)
	}
	return err
}

// toolRefused reports whether err, the refusal of a tools/call, says the
// peer serves tools/call but has no tool of that name: -32602 (as MCP SDK
// servers answer an unknown tool) or an error saying the tool is unknown,
// without a catalog code. Only then is its tools/list worth reading.
func toolRefused(err error) bool {
	var rpc *RPCError
	if err == nil || !errors.As(err, &rpc) || CodeOf(err) != "" {
		return false
	}
	return rpc.Code == RPCInvalidParams || toolUnknown(rpc.Message)
}

// withToolNames sends x as tools/call under the name the peer's
// tools/list gives its message (toolFor), after the peer refused
// every form under the spec name (refusal, the most telling refusal so
// far, is returned when no listed tool fits or that one refuses too). The
// name that works is remembered for the endpoint, with tools/call as its
// form.
func (c *Client) withToolNames(ctx context.Context, x *exchange, sess *mcpSession, refusal error) error {
	tools := c.peerTools(ctx, x.ep, sess)
	name := toolFor(tools, x.method, string(x.params.messageType()))
	if name == "" || name == x.tool || ctx.Err() != nil {
		return refusal
	}
	x.tool = name
	err := c.send(ctx, x, FormToolsCall, sess)
	if err != nil {
		return moreTelling(refusal, err, x)
	}
	x.ep.peer.LearnTool(x.method, name)
	x.ep.peer.Remember(FormToolsCall)
	c.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "peer serves the message under a tool name of its own", slog.String("endpoint", x.ep.name),
		slog.String("method", x.method), slog.String("tool", name))
	return nil
}

// peerTools returns the names of the tools the endpoint lists, reading its
// tools/list (in the MCP session sess, if any) the first time only. A
// refused or unreadable answer is remembered as no tools; a call that
// did not reach the peer is not remembered.
func (c *Client) peerTools(ctx context.Context, ep *endpointState, sess *mcpSession) []string {
	peer := ep.peer
	if tools, ok := peer.Tools(); ok {
		return tools
	}
	select {
	case peer.Gate <- struct{}{}:
	case <-ctx.Done():
		return nil
	}
	defer func() { <-peer.Gate }()
	if tools, ok := peer.Tools(); ok {
		return tools // read by another call meanwhile
	}
	var tools []string
	err := c.guarded(ep, func() error {
		status, _, raw, err := c.roundTrip(ctx, ep, [][]byte{toolsListRequest(c.nextID.Add(1))}, sess)
		if err != nil {
			return err
		}
		reply, err := readReply(status, raw)
		if err != nil {
			return err
		}
		tools = toolNames(reply.Message)
		return nil
	})
	c.cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "tools/list", slog.String("endpoint", ep.name),
		slog.Int("tools", len(tools)), slog.Any("error", err))
	if err != nil && !answeredByPeer(err) {
		return nil
	}
	peer.SetTools(tools)
	return tools
}

// moreTelling returns whichever of the refusals a and b (a the earlier)
// says more of why the call failed (telling); a on a tie.
func moreTelling(a, b error, x *exchange) error {
	if telling(b, x) > telling(a, x) {
		return b
	}
	return a
}

// telling ranks a refusal of x by what it says: 0 for "method not found"
// (-32601, HTTP 404 or 405), which a peer answers every form it does not
// read with; 3 for one that says the tool is unknown ("Unknown tool:
// receive_game_invitation"), 2 for another that names the method or tool
// sent, 1 for anything else.
func telling(err error, x *exchange) int {
	msg := strings.ToLower(err.Error())
	if toolUnknown(msg) {
		return 3
	}
	var rpc *RPCError
	if errors.As(err, &rpc) && rpc.Code == RPCMethodNotFound {
		return 0
	}
	var h *httpStatusError
	if errors.As(err, &h) && (h.status == http.StatusNotFound || h.status == http.StatusMethodNotAllowed) {
		return 0
	}
	if strings.Contains(msg, strings.ToLower(x.method)) || (x.tool != "" && strings.Contains(msg, strings.ToLower(x.tool))) {
		return 2
	}
	return 1
}

// send makes one exchange of x in form f (in the MCP session sess, if
// any, when f is tools/call) through the endpoint's circuit breaker, with
// a debug line when the logger writes one.
func (c *Client) send(ctx context.Context, x *exchange, f WireForm, sess *mcpSession) error {
	if f != FormToolsCall {
		sess = nil
	}
	log := c.cfg.Logger
	if !log.Enabled(ctx, slog.LevelDebug) {
		return c.guarded(x.ep, func() error { return c.post(ctx, x, f, sess) })
	}
	start := time.Now()
	err := c.guarded(x.ep, func() error { return c.post(ctx, x, f, sess) })
	attrs := []slog.Attr{slog.String("endpoint", x.ep.name), slog.String("method", x.method),
		slog.String("message_type", string(x.params.messageType())), slog.String("form", f.String()),
		slog.Duration("took", time.Since(start)), slog.Any("error", err)}
	if sess != nil {
		attrs = append(attrs, slog.Bool("mcp_session", true))
	}
	log.LogAttrs(ctx, slog.LevelDebug, "call", attrs...)
	return err
}

// formMissed reports whether err is a JSON-RPC error the peer answered
// without a catalog code of the protocol (such as -32000 "Missing required
// fields", whatever its HTTP status): the peer may not have found the
// message where it looked. A LEAGUE_ERROR or GAME_ERROR with a code, and a
// REJECTED reply, are protocol answers and never count.
func formMissed(err error) bool {
	var rpc *RPCError
	return errors.As(err, &rpc) && CodeOf(err) == ""
}

// formRefused reports whether err says the peer did not understand the
// request's form: method not found, invalid params, HTTP 400, 404, 405 or
// 422, an unknown tool, or a missing-field error it answered.
func formRefused(err error) bool {
	var rpc *RPCError
	if errors.As(err, &rpc) && (rpc.Code == RPCMethodNotFound || rpc.Code == RPCInvalidParams || rpc.Code == RPCInvalidRequest) {
		return true
	}
	var h *httpStatusError
	if errors.As(err, &h) && (h.status == http.StatusNotFound || h.status == http.StatusBadRequest ||
		h.status == http.StatusMethodNotAllowed || h.status == http.StatusUnprocessableEntity) {
		return true
	}
	// A tool the peer says it does not have, whatever the error code
	// (-32603 "Unknown tool: x", say): another form or name may reach it.
	if errors.As(err, &rpc) && CodeOf(err) == "" && toolUnknown(rpc.Message) {
		return true
	}
	// A validation error the peer answered (E003 in a JSON-RPC error) means
	// it read the request differently; a reply we cannot read does not.
	return CodeOf(err) == CodeMissingRequiredField && errors.As(err, &rpc)
}

// sessionRefused reports whether err says the peer wants an MCP session the
// request did not have (sessionWanted).
func sessionRefused(err error) bool {
	var h *httpStatusError
	if errors.As(err, &h) && (h.status == http.StatusBadRequest || h.status == http.StatusNotFound) {
		return sessionWanted(h.status, h.body, "")
	}
	var rpc *RPCError
	if !errors.As(err, &rpc) || CodeOf(err) != "" {
		return false
	}
	return sessionWanted(0, "", rpc.Message)
}

// session returns a session with the endpoint other than stale (the one a
// refused request was sent in, nil for none): the one another call has
// just opened, or a new one from a handshake.
func (c *Client) session(ctx context.Context, ep *endpointState, stale *mcpSession) (*mcpSession, error) {
	peer := ep.peer
	select {
	case peer.Gate <- struct{}{}:
	case <-ctx.Done():
		return nil, transportError(ctx, ctx.Err())
	}
	defer func() { <-peer.Gate }()
	if cur := peer.Session(); cur != nil && cur != stale {
		return cur, nil
	}
	s, err := c.handshake(ctx, ep)
	if err != nil {
		peer.DropSession(stale)
		return nil, err
	}
	peer.SetSession(s)
	return s, nil
}

// withSession opens (or joins) an MCP session with the endpoint and sends
// the call as tools/call in it. stale is the session the refused request
// was sent in (nil for none); at most one handshake is made.
func (c *Client) withSession(ctx context.Context, x *exchange, stale *mcpSession) error {
	s, err := c.session(ctx, x.ep, stale)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			msg := e.Message
			if msg == "" {
				msg = e.Error()
			}
			return &Error{Code: e.Code, Message: "MCP session handshake failed: " + msg, Context: e.Context, Err: err, answered: e.answered}
		}
		return err
	}
	if err := c.send(ctx, x, FormToolsCall, s); err != nil {
		if toolRefused(err) && ctx.Err() == nil {
			return c.withToolNames(ctx, x, s, err)
		}
		return err
	}
	if f, ok := x.ep.peer.Form(); !ok || f != FormToolsCall {
		x.ep.peer.Remember(FormToolsCall)
		c.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "peer accepts tools/call in an MCP session", slog.String("endpoint", x.ep.name),
			slog.String("method", x.method), slog.String("mcp_protocol_version", s.Version))
	}
	return nil
}

// handshake opens an MCP session with the endpoint: initialize, then the
// notifications/initialized notification, through the endpoint's breaker.
func (c *Client) handshake(ctx context.Context, ep *endpointState) (*mcpSession, error) {
	var s *mcpSession
	err := c.guarded(ep, func() error {
		status, header, raw, err := c.roundTrip(ctx, ep, [][]byte{initializeRequest(c.nextID.Add(1), Version)}, nil)
		if err != nil {
			return err
		}
		reply, err := readReply(status, raw)
		if err != nil {
			return err
		}
		version := negotiatedVersion(reply.Message)
		if !speaksMCP(version) {
			return answered(&Error{Message: fmt.Sprintf("peer answered initialize with MCP protocol version %q, which this client does not speak", version)})
		}
		s = &mcpSession{ID: header.Get("Mcp-Session-Id"), Version: version}
		status, _, raw, err = c.roundTrip(ctx, ep, [][]byte{initializedNote}, s)
		if err != nil || status < 300 {
			return err
		}
		// A notification has no reply; an error status is read as one.
		_, err = readReply(status, raw)
		return err
	})
	c.cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "MCP handshake", slog.String("endpoint", ep.name),
		slog.Bool("session_id", s != nil && s.ID != ""), slog.Any("error", err))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// PeerTool returns the tool, among the names a peer's tools/list gives,
// that a [Client] sends a message of type t under when the peer refuses
// the spec method in every form and has no tool of that name: a name
// other implementations are known to serve the message under
// (receive_game_invitation for GAME_INVITATION), else the shortest name
// holding every word of the message type but call, request and response
// (receive_round_completed for ROUND_COMPLETED). It returns "" when none
// fits. The conformance kit uses it to find, and report, such a player's
// own names.
func PeerTool(tools []string, method string, t MessageType) string {
	return toolFor(tools, method, string(t))
}
