package leaguesdk

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/internal/sse"
)

// post makes one HTTP exchange of x in form f (in the MCP session sess,
// if not nil) and decodes its reply into x.result. Errors the peer
// answered are marked so (answered); transport failures are plain
// *Error.
func (c *Client) post(ctx context.Context, x *exchange, f WireForm, sess *mcpSession) error {
	id := c.nextID.Add(1)
	var body [][]byte
	if f == FormSpec {
		body = x.params.request(id, x.method)
	} else {
		name := x.method
		if f == FormToolsCall && x.tool != "" {
			name = x.tool
		}
		body = [][]byte{encodeRequest(f, id, name, string(x.params.messageType()), x.params.text())}
	}
	x.raw, x.undecoded = nil, false
	status, _, raw, err := c.roundTrip(ctx, x.ep, body, sess)
	if err != nil {
		return err
	}
	reply, err := readReply(status, raw)
	if err != nil {
		return err
	}
	x.raw, err = decodeReply(reply.Message, x.result)
	if x.undecoded = errors.Is(err, errUndecoded); !x.undecoded && err != nil {
		x.raw = nil
	}
	x.form = f
	return err
}

// errUndecoded is the cause of the error of a reply that does not decode.
var errUndecoded = errors.New("reply does not decode")

// decodeReply decodes a reply message into result (nil: only looked at)
// and returns the message as found. A typed result is decoded first and
// the message is looked for inside what was received only when the
// decoded message names no message type (a reply wrapped in
// params.message, say), so that a reply is read once in the common case.
// A LEAGUE_ERROR or GAME_ERROR comes back as the error it reports.
func decodeReply(msg json.RawMessage, result any) (json.RawMessage, error) {
	if m, ok := result.(Message); ok {
		err := decodeInto(msg, result)
		if t := m.Header().MessageType; err == nil && t != "" && !isErrorType(t) {
			return msg, nil
		}
		inner, t, nested := locateReply(msg)
		if isErrorType(MessageType(t)) {
			return inner, answered(errorFromMessage(inner))
		}
		if nested {
			reflect.ValueOf(result).Elem().SetZero()
			msg, err = inner, decodeInto(inner, result)
		}
		return msg, undecoded(err)
	}
	msg, t, _ := locateReply(msg)
	if isErrorType(MessageType(t)) {
		return msg, answered(errorFromMessage(msg))
	}
	if result == nil {
		return msg, nil
	}
	return msg, undecoded(decodeInto(msg, result))
}

// decodeInto decodes a reply message into v, its alias fields renamed. A
// type with a decoding of its own (the players' answers, which read every
// shape a player sends) is handed msg at once: msg is one well-formed value
// already, which the drop-in would otherwise read once to find its end
// before handing it over.
func decodeInto(msg json.RawMessage, v any) error {
	msg = normalizeAliases(msg)
	if u, ok := v.(json.Unmarshaler); ok && len(msg) > 0 {
		return u.UnmarshalJSON(msg)
	}
	return wirejson.Unmarshal(msg, v)
}

// isErrorType reports whether t is the type of an error message.
func isErrorType(t MessageType) bool { return t == MsgLeagueError || t == MsgGameError }

// undecoded is the error of a reply that does not decode, nil for nil.
func undecoded(err error) error {
	if err == nil {
		return nil
	}
	return answered(&Error{Code: CodeMissingRequiredField, Message: "reply does not decode: " + err.Error(),
		Err: fmt.Errorf("%w: %w", errUndecoded, err)})
}

// roundTrip posts one JSON-RPC body, given in pieces, to the endpoint, with
// the headers of the MCP session sess if it is not nil, and returns the
// answer's status, headers and body (the data of its first event when it
// is an event stream). Transport failures come back as *Error.
func (c *Client) roundTrip(ctx context.Context, ep *endpointState, body [][]byte, sess *mcpSession) (int, http.Header, []byte, error) {
	if ep.urlErr != nil {
		return 0, nil, nil, &Error{Code: CodeConnectionError, Message: "bad endpoint: " + ep.urlErr.Error(), Err: ep.urlErr}
	}
	var rd io.Reader
	if len(body) == 1 {
		rd = bytes.NewReader(body[0])
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.name, rd)
	if err != nil {
		return 0, nil, nil, &Error{Code: CodeConnectionError, Message: "bad endpoint: " + err.Error(), Err: err}
	}
	if rd == nil {
		// The pieces are sent one after another, not joined first; the
		// body is given again from the start for a redirect.
		pieces := func() io.ReadCloser { b := net.Buffers(slices.Clone(body)); return io.NopCloser(&b) }
		for _, b := range body {
			req.ContentLength += int64(len(b))
		}
		req.Body = pieces()
		req.GetBody = func() (io.ReadCloser, error) { return pieces(), nil }
	}
	maps.Copy(req.Header, c.headers)
	if sess != nil {
		sess.SetHeaders(req.Header)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, transportError(ctx, err)
	}
	defer resp.Body.Close()
	raw, err := readAll(resp.Body, resp.ContentLength, c.cfg.MaxReplyBytes)
	if err != nil {
		return 0, nil, nil, transportError(ctx, err)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw = sse.Data(raw)
	}
	return resp.StatusCode, resp.Header, raw, nil
}

// readReply parses an answer's body. Answers without a JSON-RPC reply come
// back as errors: HTTP 429 and 5xx as retryable *Error, anything else as an
// error the peer answered; so does a JSON-RPC error.
func readReply(status int, raw []byte) (wireReply, error) {
	reply, perr := parseReply(raw)
	if perr == nil {
		if reply.Error != nil {
			return wireReply{}, errorFromRPC(&RPCError{Code: reply.Error.Code, Message: reply.Error.Message, Data: reply.Error.Data})
		}
		return reply, nil
	}
	herr := &httpStatusError{status: status, body: snippet(raw)}
	switch {
	case status == http.StatusTooManyRequests:
		return wireReply{}, &Error{Code: CodeRateLimited, Message: "peer is rate limiting (HTTP 429)", Err: herr}
	case status >= 500:
		return wireReply{}, &Error{Code: CodeConnectionError, Message: fmt.Sprintf("peer failed (HTTP %d)", status), Err: herr}
	case status >= 400:
		// The peer is up and refused the request: no catalog code, not retried.
		msg := fmt.Sprintf("peer refused the request (HTTP %d)", status)
		if herr.body != "" {
			msg = fmt.Sprintf("peer refused the request (HTTP %d: %s)", status, herr.body)
		}
		return wireReply{}, answered(&Error{Message: msg, Err: herr})
	case status == http.StatusAccepted && len(bytes.TrimSpace(raw)) == 0:
		return wireReply{}, answered(&Error{Code: CodeMissingRequiredField, Message: "peer answered 202 with no reply message"})
	}
	return wireReply{}, answered(&Error{Code: CodeMissingRequiredField, Message: "reply is not a JSON-RPC response: " + perr.Error(), Err: perr})
}

// httpStatusError is an HTTP status the peer answered without a JSON-RPC
// reply; body is the start of what it said instead.
type httpStatusError struct {
	status int
	body   string
}

func (h *httpStatusError) Error() string { return fmt.Sprintf("HTTP status %d", h.status) }

// snippet returns the start of a body that is not JSON-RPC, as one line of
// printable text, for error messages.
func snippet(raw []byte) string {
	const limit = 120
	s := strings.Join(strings.Fields(string(raw)), " ")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

func transportError(ctx context.Context, err error) error {
	var redirect *redirectError
	if errors.As(err, &redirect) {
		// The peer answered: not retried, and not a failure of the peer.
		return answered(&Error{Message: redirect.Error(), Err: err})
	}
	if ctx.Err() == context.Canceled {
		return &Error{Code: CodeConnectionError, Message: "call cancelled", Err: context.Canceled}
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return &Error{Code: CodeTimeout, Message: "no reply before the deadline", Err: err}
	}
	if tlsRefused(err) {
		// A certificate that does not verify, or one the peer refuses,
		// stays so however often the call is made: no catalog code, so it
		// is not retried and the caller hears of it at once.
		return &Error{Message: "TLS: " + err.Error(), Err: err}
	}
	return &Error{Code: CodeConnectionError, Message: err.Error(), Err: err}
}

// tlsRefused reports whether err is a TLS handshake that failed on a
// certificate: ours refused by the peer, or the peer's not verified here.
func tlsRefused(err error) bool {
	var verify *tls.CertificateVerificationError
	var alert tls.AlertError
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "remote error" {
		return true // a TLS alert from the peer: it refused our certificate
	}
	return errors.As(err, &verify) || errors.As(err, &alert) || errors.As(err, &unknown) ||
		errors.As(err, &host) || errors.As(err, &invalid)
}

// errorFromRPC turns a JSON-RPC error the peer answered into an *Error,
// reading the catalog code from a LEAGUE_ERROR or GAME_ERROR in its data.
func errorFromRPC(rpc *RPCError) *Error {
	if len(rpc.Data) > 0 {
		var d struct {
			ErrorCode Code `json:"error_code"`
		}
		if wirejson.Unmarshal(rpc.Data, &d) == nil && d.ErrorCode != "" {
			e := errorFromMessage(rpc.Data)
			e.Err = rpc
			return e
		}
	}
	return answered(&Error{Message: rpc.Error(), Err: rpc})
}

// errorFromMessage is the error a LEAGUE_ERROR or GAME_ERROR reports.
func errorFromMessage(raw json.RawMessage) *Error {
	var m struct {
		ErrorCode        Code           `json:"error_code"`
		ErrorName        string         `json:"error_name"`
		ErrorDescription string         `json:"error_description"`
		Context          map[string]any `json:"context"`
	}
	_ = json.Unmarshal(raw, &m)
	msg := m.ErrorDescription
	if msg == "" {
		msg = m.ErrorName
	}
	return answered(&Error{Code: m.ErrorCode, Message: msg, Context: m.Context})
}
