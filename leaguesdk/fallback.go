package leaguesdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// withFallback is the wire-form layer of an attempt: it sends the call in
// the endpoint's preferred wire form and, when the peer refuses the form,
// once in each other form. A refusal for want of an MCP session leads to
// the handshake and a tools/call in the session (withSession).
//
// On the first exchange with an endpoint (no form remembered yet) any
// JSON-RPC error without a catalog code also counts as a refused form
// (formMissed): some peers answer a message they did not find where they
// looked with a server error. The form of the first exchange that works is
// remembered, so later calls keep the narrow reading.
func (c *Client) withFallback(ctx context.Context, x *exchange) error {
	peer := x.ep.peer
	first, known := peer.Form()
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
	}
	return err
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
// 422, or a missing-field error it answered.
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
