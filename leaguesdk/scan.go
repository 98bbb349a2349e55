package leaguesdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/agentleague/league/internal/jsonscan"
)

// members checks that b is a well-formed JSON object and returns the
// values of the members named names, in the same order (nil where absent;
// the last one where a name appears twice, as encoding/json reads it). The
// values are slices of b. ok is false when b is not a well-formed object,
// or when a key is written in a way only encoding/json reads as one of
// names (escaped, or in another case): the caller then decodes b with
// encoding/json, which gives the same answer more slowly. Its callers all
// look for four names: the values are an array, not a slice made for them.
func members(b []byte, names [4]string) (vals [4][]byte, ok bool) {
	err := jsonscan.Object(b, func(key []byte, escaped bool, value []byte) error {
		i, err := nameOf(key, escaped, names[:])
		if i >= 0 {
			vals[i] = value
		}
		return err
	})
	return vals, err == nil
}

// nameOf returns the index in names of the member key that members hands
// out, or -1 when it is none of them; errSlowPath when only encoding/json
// can tell (an escaped key, or one of names in another case).
func nameOf(key []byte, escaped bool, names []string) (int, error) {
	if escaped {
		return -1, errSlowPath
	}
	for i, n := range names {
		if string(key) == n {
			return i, nil
		}
		if len(key) == len(n) && bytes.EqualFold(key, []byte(n)) {
			return -1, errSlowPath
		}
	}
	return -1, nil
}

// errSlowPath stops a scan whose text encoding/json must read.
var errSlowPath = errors.New("leaguesdk: decode with encoding/json")

// scanString reads a member's value found by members into *dst: a JSON
// string without escapes, or null or absent (left as is). ok is false for
// anything else, which encoding/json must decode (or refuse).
func scanString(v []byte, dst *string) bool {
	if v == nil || string(v) == "null" {
		return true
	}
	s, ok := jsonscan.String(v)
	if ok {
		*dst = intern(s)
	}
	return ok
}

// intern returns s as a string: one of the values every request and
// reply carries (the JSON-RPC version, the protocol, the manager's sender
// name, a message type or the method it is sent with) without a copy of
// its own, any other in a new string.
func intern(s []byte) string {
	if v, ok := interned[string(s)]; ok {
		return v
	}
	return string(s)
}

// interned holds the strings intern returns without a copy, each its own
// key. It is made once, from the package's list of message types, and
// never changed.
var interned = func() map[string]string {
	m := map[string]string{"2.0": "2.0", Protocol: Protocol, LeagueManagerSender: LeagueManagerSender}
	for _, t := range MessageTypes() {
		m[string(t)] = string(t)
		if method := MethodOf(t); method != "" {
			m[method] = method
		}
	}
	return m
}()

// parseRequest reads a JSON-RPC request object in one pass; ok is false
// when encoding/json must read it (malformed text, a method that is not a
// plain string, and the like).
//
// With tail set, a request whose params come last, after its jsonrpc, id
// and method (the order in which this package's client writes them), has
// its params taken as the rest of the body without checking them:
// req.tail is then true, and the body is well formed exactly when
// req.Params is one JSON value (jsonscan.Head). The params are most of a
// large message, and the decoder that reads them checks them anyway (see
// Server.serveTail): this spares a pass over them. A request in another
// order is read whole, as without tail.
func parseRequest(body []byte, tail bool) (req rpcRequest, ok bool) {
	names := []string{"jsonrpc", "id", "method", "params"}
	var v [4][]byte
	seen := 0 // a bit for each of jsonrpc, id and method met
	rest, err := jsonscan.Head(body, func(key []byte) bool {
		return tail && seen == 7 && string(key) == "params"
	}, func(key []byte, escaped bool, value []byte) error {
		i, err := nameOf(key, escaped, names)
		if i >= 0 {
			v[i] = value
			seen |= 1 << i
		}
		return err
	})
	if err != nil || !scanString(v[0], &req.JSONRPC) {
		return req, false
	}
	if v[2] != nil && string(v[2]) != "null" {
		var m string
		if !scanString(v[2], &m) {
			return req, false
		}
		req.Method = &m
	}
	req.ID = json.RawMessage(v[1])
	req.Params = json.RawMessage(v[3])
	if rest != nil {
		req.Params, req.tail = json.RawMessage(rest), true
	}
	return req, true
}

// paramsProbe is what locateMessage reads of a request's params.
type paramsProbe struct {
	MessageType string          `json:"message_type"`
	Message     json.RawMessage `json:"message"`
	Arguments   json.RawMessage `json:"arguments"`
	Payload     json.RawMessage `json:"payload"`
}

// scanParams reads params in one pass; ok is false when
// probeParamsJSON must read them.
func scanParams(params []byte) (p paramsProbe, ok bool) {
	v, ok := members(params, [4]string{"message_type", "message", "arguments", "payload"})
	if !ok || !scanString(v[0], &p.MessageType) {
		return p, false
	}
	p.Message, p.Arguments, p.Payload = v[1], v[2], v[3]
	return p, true
}

// probeParamsJSON is scanParams by encoding/json.
func probeParamsJSON(params []byte, p *paramsProbe) error {
	*p = paramsProbe{}
	return json.Unmarshal(params, p)
}

// replyTop is what parseReply reads of a response body.
type replyTop struct {
	Result      json.RawMessage `json:"result"`
	Error       *RPCError       `json:"error"`
	Params      json.RawMessage `json:"params"`
	MessageType string          `json:"message_type"`
}

// scanReply reads a response body in one pass; ok is false when
// encoding/json must read it (an error reply among others).
func scanReply(raw []byte) (top replyTop, ok bool) {
	v, ok := members(raw, [4]string{"result", "error", "params", "message_type"})
	if !ok || !scanString(v[3], &top.MessageType) || (v[1] != nil && string(v[1]) != "null") {
		return top, false
	}
	top.Result, top.Params = v[0], v[2]
	return top, true
}

// messageTypeOf returns the message_type of the JSON object msg, or ""
// when msg is not an object with a string message_type.
func messageTypeOf(msg []byte) string {
	if p, ok := scanParams(msg); ok {
		return p.MessageType
	}
	var p paramsProbe
	if probeParamsJSON(msg, &p) != nil {
		return ""
	}
	return p.MessageType
}

// readAll reads r to its end into one buffer sized for size bytes (a
// Content-Length; negative when unknown), where io.ReadAll would start
// small and copy the body as it grows. With limit not negative it reads
// no more than limit bytes, and stops there without an error, as it would
// from io.LimitReader(r, limit).
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	return readAllInto(nil, r, size, limit)
}

// bufferSize is the capacity readAll starts with for a body of size bytes
// (negative when unknown), read up to limit (negative: no limit): a byte
// more than size, where the read of a body of that size meets its end
// (the buffer grows only for a body that goes on), or 512 bytes, grown as
// needed, as io.ReadAll starts, when the size is unknown or too large to
// take at its word.
func bufferSize(size, limit int64) int64 {
	if size < 0 || size > 16<<20 {
		size = 511
	}
	size++
	if limit >= 0 && size > limit {
		size = limit
	}
	return size
}

// readAllInto is readAll reading into b (from its start) when b has room
// for size bytes and more, into a new buffer otherwise.
func readAllInto(b []byte, r io.Reader, size, limit int64) ([]byte, error) {
	size = bufferSize(size, limit)
	if int64(cap(b)) < size {
		b = make([]byte, 0, size)
	}
	b = b[:0]
	for {
		if limit >= 0 && int64(len(b)) >= limit {
			return b, nil
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		end := cap(b)
		if limit >= 0 && int64(end) > limit {
			end = int(limit)
		}
		n, err := r.Read(b[len(b):end])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
