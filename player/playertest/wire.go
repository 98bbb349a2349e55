package playertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/agentleague/league/internal/sse"
	"github.com/agentleague/league/leaguesdk"
)

// maxReply is the most of a reply body the kit reads.
const maxReply = 4 << 20

// exchange is one HTTP request to the player and exactly what came back.
type exchange struct {
	sent    []byte
	status  int
	header  http.Header
	body    []byte // the body as received
	payload []byte // the body, or the data of its first SSE event
	sse     bool
	err     error // set when no HTTP answer came back
	elapsed time.Duration
}

// answered reports whether an HTTP answer came back.
func (x *exchange) answered() bool { return x.err == nil }

// describeSent returns the request for a report: tokens masked, truncated.
func (x *exchange) describeSent() string { return excerpt(x.sent, 600) }

// describeReceived returns what came back for a report.
func (x *exchange) describeReceived() string {
	if x.err != nil {
		return "no answer after " + ms(x.elapsed) + ": " + leaguesdk.RedactTokens(x.err.Error())
	}
	s := fmt.Sprintf("HTTP %d", x.status)
	if x.sse {
		s += " (SSE)"
	}
	if len(bytes.TrimSpace(x.payload)) == 0 {
		return s + " (empty body)"
	}
	return s + " " + excerpt(x.payload, 600)
}

// excerpt returns b as one line with tokens masked, at most n runes long.
func excerpt(b []byte, n int) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	return clip(leaguesdk.RedactTokens(s), n)
}

// post sends body to the endpoint and waits up to wait for the answer.
func (s *suite) post(ctx context.Context, body []byte, wait time.Duration) *exchange {
	x := &exchange{sent: body}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		x.err = err
		return x
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("User-Agent", "league-playertest/"+leaguesdk.Version)
	if sid := s.sessionID(); sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	s.do(x, req)
	return x
}

// get sends a GET request to url and waits up to wait for the answer.
func (s *suite) get(ctx context.Context, url string, wait time.Duration) *exchange {
	x := &exchange{sent: []byte("GET " + url)}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		x.err = err
		return x
	}
	s.do(x, req)
	return x
}

func (s *suite) do(x *exchange, req *http.Request) {
	start := time.Now()
	defer func() { x.elapsed = time.Since(start) }()
	resp, err := s.client.Do(req)
	if err != nil {
		x.err = err
		return
	}
	defer resp.Body.Close()
	x.status, x.header = resp.StatusCode, resp.Header
	x.body, err = io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		x.err = fmt.Errorf("reading the reply: %w", err)
		return
	}
	x.payload = x.body
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		x.sse, x.payload = true, sse.Data(x.body)
	}
}

// Where a reply message was found.
const (
	inResult     = "result"            // the spec form
	inStructured = "structuredContent" // MCP tool result
	inContent    = "content"           // MCP tool result, text only
	inNested     = "result.message"    // result wraps the message
	inParams     = "params"            // request-shaped reply
	inTopLevel   = "top level"         // the message is the whole body
)

// reply is a JSON-RPC answer as the kit reads it: tolerantly, as the
// project's client does, but remembering every deviation.
type reply struct {
	parseErr error // the payload is not a JSON object
	jsonrpc  *string
	id       json.RawMessage
	rpcErr   *leaguesdk.RPCError
	result   json.RawMessage
	// msg is the reply message found in the answer, and where.
	msg   fields
	where string
	// viaTool is the tool name the kit sent the message under as
	// tools/call, after the player refused the spec method ("" when it
	// did not).
	viaTool string
}

// fields is a JSON object with its members undecoded.
type fields map[string]json.RawMessage

// str returns the member k as a string; ok is false when k is absent or
// not a string.
func (f fields) str(k string) (string, bool) {
	raw, has := f[k]
	if !has {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// has reports whether the member k is present and not null.
func (f fields) has(k string) bool {
	raw, ok := f[k]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// object decodes raw as a JSON object, or returns nil.
func object(raw json.RawMessage) fields {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var f fields
	if json.Unmarshal(raw, &f) != nil {
		return nil
	}
	return f
}

// parse reads the exchange's payload as a JSON-RPC answer.
func parse(x *exchange) *reply {
	r := &reply{}
	top := object(x.payload)
	if top == nil {
		r.parseErr = fmt.Errorf("the body is not a JSON object")
		if len(bytes.TrimSpace(x.payload)) == 0 {
			r.parseErr = fmt.Errorf("the body is empty")
		}
		return r
	}
	if v, ok := top.str("jsonrpc"); ok {
		r.jsonrpc = &v
	}
	r.id = top["id"]
	if top.has("error") {
		r.rpcErr = &leaguesdk.RPCError{}
		if json.Unmarshal(top["error"], r.rpcErr) != nil {
			r.rpcErr = &leaguesdk.RPCError{Message: string(top["error"])}
		}
		return r
	}
	switch {
	case top.has("result"):
		r.result = top["result"]
		res := object(r.result)
		if res == nil {
			return r
		}
		if res.has("message_type") {
			r.msg, r.where = res, inResult
			return r
		}
		if sc := object(res["structuredContent"]); sc.has("message_type") {
			r.msg, r.where = sc, inStructured
			return r
		}
		if m := contentMessage(res); m != nil {
			r.msg, r.where = m, inContent
			return r
		}
		if m := contentObject(res); m != nil {
			// A tool result whose text holds an object that names no
			// message type ({"status":"ACK"}): read as the project's
			// client reads it.
			r.msg, r.where = m, inContent
			return r
		}
		for _, k := range []string{"message", "payload", "arguments"} {
			if m := object(res[k]); m.has("message_type") {
				r.msg, r.where = m, inNested
				return r
			}
		}
		r.msg, r.where = res, inResult // a result without a message type
	case top.has("params"):
		if p := object(top["params"]); p != nil {
			r.msg, r.where = p, inParams
			if m := object(p["message"]); m.has("message_type") && !p.has("message_type") {
				r.msg = m
			}
		}
	case top.has("message_type"):
		r.msg, r.where = top, inTopLevel
	}
	return r
}

// contentMessage returns the message held as JSON text in an MCP tool
// result's content, or nil.
func contentMessage(res fields) fields {
	var content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(res["content"], &content) != nil {
		return nil
	}
	for _, c := range content {
		if m := object(json.RawMessage(c.Text)); c.Type == "text" && m.has("message_type") {
			return m
		}
	}
	return nil
}

// contentObject returns the first JSON object held as text in an MCP
// tool result's content, or nil.
func contentObject(res fields) fields {
	var content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(res["content"], &content) != nil {
		return nil
	}
	for _, c := range content {
		if m := object(json.RawMessage(c.Text)); c.Type == "text" && m != nil {
			return m
		}
	}
	return nil
}

// refusal says why the answer is not a reply message: a transport failure,
// a body that is no JSON-RPC answer, a JSON-RPC error, or a LEAGUE_ERROR /
// GAME_ERROR message. It returns "" for a reply message.
func refusal(x *exchange, r *reply) string {
	switch {
	case !x.answered():
		return "no answer: " + leaguesdk.RedactTokens(x.err.Error())
	case r.parseErr != nil:
		return fmt.Sprintf("HTTP %d and %v", x.status, r.parseErr)
	case r.rpcErr != nil:
		s := fmt.Sprintf("JSON-RPC error %d %q", r.rpcErr.Code, r.rpcErr.Message)
		if d := object(r.rpcErr.Data); d != nil {
			code, _ := d.str("error_code")
			desc, _ := d.str("error_description")
			if code != "" {
				s += fmt.Sprintf(" (%s: %s)", code, desc)
			}
		}
		return s
	case r.msg == nil:
		return fmt.Sprintf("HTTP %d without a reply message", x.status)
	}
	t, _ := r.msg.str("message_type")
	if t == string(leaguesdk.MsgLeagueError) || t == string(leaguesdk.MsgGameError) {
		code, _ := r.msg.str("error_code")
		desc, _ := r.msg.str("error_description")
		return fmt.Sprintf("%s %s: %s", t, code, desc)
	}
	return ""
}

// choice returns the parity a reply message carries, reading the alias
// "choice" as the project's client does; ok is false when there is none.
func choice(m fields) (string, bool) {
	if v, ok := m.str("parity_choice"); ok {
		return v, true
	}
	return m.str("choice")
}

// accept returns the accept flag of a join acknowledgement, reading the
// alias "accepted"; ok is false when there is none.
func accept(m fields) (value, ok bool) {
	for _, k := range []string{"accept", "accepted"} {
		if raw, has := m[k]; has {
			err := json.Unmarshal(raw, &value)
			return value, err == nil
		}
	}
	return false, false
}
