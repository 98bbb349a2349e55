package leaguesdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
)

// The MCP protocol versions this package speaks, newest first: a Server
// accepts any of them in initialize (an unknown one is answered with the
// newest), and a Client asks for mcpClientProtocolVersion and accepts any of
// them in reply.
const (
	mcpVersion20251125 = "2025-11-25"
	mcpVersion20250618 = "2025-06-18"
	mcpVersion20250326 = "2025-03-26"
	mcpVersion20241105 = "2024-11-05"

	mcpClientProtocolVersion = mcpVersion20250618
)

// mcpProtocolVersions lists the versions above, newest first.
func mcpProtocolVersions() []string {
	return []string{mcpVersion20251125, mcpVersion20250618, mcpVersion20250326, mcpVersion20241105}
}

// mcpSession is an MCP session a Client holds with one endpoint. An empty
// id means the peer set no Mcp-Session-Id (a stateless MCP server).
type mcpSession struct {
	id      string
	version string
}

func (s *mcpSession) setHeaders(h http.Header) {
	if s.id != "" {
		h.Set("Mcp-Session-Id", s.id)
	}
	h.Set("MCP-Protocol-Version", s.version)
}

// mcpEndpoint holds the session with one endpoint. gate lets one handshake
// run at a time (waiting on it honours the call's context); cur changes
// only while the gate is held.
type mcpEndpoint struct {
	gate chan struct{}
	cur  atomic.Pointer[mcpSession]
}

// session returns a session with the endpoint other than stale (the one a
// refused request was sent in, nil for none): the one another call has
// just opened, or a new one from a handshake.
func (c *Client) session(ctx context.Context, ep *endpointState, stale *mcpSession) (*mcpSession, error) {
	select {
	case ep.mcp.gate <- struct{}{}:
	case <-ctx.Done():
		return nil, transportError(ctx, ctx.Err())
	}
	defer func() { <-ep.mcp.gate }()
	if cur := ep.mcp.cur.Load(); cur != nil && cur != stale {
		return cur, nil
	}
	s, err := c.handshake(ctx, ep)
	if err != nil {
		ep.mcp.cur.CompareAndSwap(stale, nil)
		return nil, err
	}
	ep.mcp.cur.Store(s)
	return s, nil
}

// withSession opens (or joins) an MCP session with endpoint and sends the
// call as tools/call in it. stale is the session the refused request was
// sent in (nil for none); at most one handshake is made.
func (c *Client) withSession(ctx context.Context, ep *endpointState, method string, stale *mcpSession, params *payload, result any) error {
	s, err := c.session(ctx, ep, stale)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			msg := e.Message
			if msg == "" {
				msg = e.Error()
			}
			return &Error{Code: e.Code, Message: "MCP session handshake failed: " + msg, Context: e.Context, Err: err}
		}
		return err
	}
	if err := c.attempt(ctx, ep, method, FormToolsCall, s, params, result); err != nil {
		return err
	}
	if f, ok := ep.knownForm(); !ok || f != FormToolsCall {
		ep.form.Store(int32(FormToolsCall) + 1)
		c.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "peer accepts tools/call in an MCP session", slog.String("endpoint", ep.name),
			slog.String("method", method), slog.String("mcp_protocol_version", s.version))
	}
	return nil
}

// handshake opens an MCP session with the endpoint: initialize, then the
// notifications/initialized notification, through the endpoint's breaker.
func (c *Client) handshake(ctx context.Context, ep *endpointState) (*mcpSession, error) {
	init, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      c.nextID.Add(1),
		"method":  "initialize",
		"params": map[string]any{
			"protocolVersion": mcpClientProtocolVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]string{"name": "league-agent", "version": Version},
		},
	})
	initialized := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var s *mcpSession
	err := c.guarded(ep, func() error {
		reply, header, err := c.request(ctx, ep, [][]byte{init}, nil)
		if err != nil {
			return err
		}
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(reply.message, &res)
		if !slices.Contains(mcpProtocolVersions(), res.ProtocolVersion) {
			return &peerAnswer{&Error{Message: fmt.Sprintf("peer answered initialize with MCP protocol version %q, which this client does not speak", res.ProtocolVersion)}}
		}
		s = &mcpSession{id: header.Get("Mcp-Session-Id"), version: res.ProtocolVersion}
		status, _, raw, err := c.exchange(ctx, ep, [][]byte{initialized}, s)
		if err != nil || status < 300 {
			return err
		}
		// A notification has no reply; an error status is read as one.
		if reply, err := readReply(status, raw); err != nil {
			return err
		} else if reply.rpcErr != nil {
			return &peerAnswer{errorFromRPC(reply.rpcErr)}
		}
		return nil
	})
	c.cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "MCP handshake", slog.String("endpoint", ep.name),
		slog.Bool("session_id", s != nil && s.id != ""), slog.Any("error", err))
	if err != nil {
		return nil, err
	}
	return s, nil
}

// sessionRefused reports whether err says the peer wants an MCP session the
// request did not have: HTTP 400 or 404 whose body names the session, or a
// JSON-RPC error without a catalog code saying the session is missing or
// the server is not initialized.
func sessionRefused(err error) bool {
	var h *httpStatusError
	if errors.As(err, &h) && (h.status == http.StatusBadRequest || h.status == http.StatusNotFound) {
		return strings.Contains(strings.ToLower(h.body), "session")
	}
	var rpc *RPCError
	if !errors.As(err, &rpc) || CodeOf(err) != "" {
		return false
	}
	msg := strings.ToLower(rpc.Message)
	return strings.Contains(msg, "session") || strings.Contains(msg, "not initialized") || strings.Contains(msg, "initialization")
}
