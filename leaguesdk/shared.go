package leaguesdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// SharedMessage is a message whose fields other than the envelope were
// encoded once, to be sent to many recipients: a broadcast such as
// LEAGUE_STANDINGS_UPDATE or ROUND_ANNOUNCEMENT, whose table is the same for
// every player and only the envelope (auth_token, conversation_id,
// timestamp) differs. To addresses it to one recipient without encoding
// the shared fields again. It is safe for concurrent use.
type SharedMessage struct {
	typ    MessageType
	fields []byte // the message's fields after the envelope, without braces: `"league_id":…`
}

// EncodeShared encodes msg's fields other than its envelope once. The
// envelope msg carries is ignored (To gives each recipient its own). msg
// must encode as a JSON object that begins with its envelope, as every
// message type of this package does.
func EncodeShared(msg Message) (*SharedMessage, error) {
	full, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	env, err := json.Marshal(msg.Header())
	if err != nil {
		return nil, err
	}
	head := env[:len(env)-1] // `{"protocol":…,"auth_token":"…"` without its closing brace
	rest, ok := bytes.CutPrefix(full, head)
	switch {
	case !ok || len(rest) == 0 || rest[len(rest)-1] != '}':
		return nil, fmt.Errorf("%T does not encode as its envelope followed by its fields", msg)
	case len(rest) == 1: // nothing but the envelope
		return &SharedMessage{typ: msg.Header().MessageType}, nil
	case rest[0] != ',':
		return nil, fmt.Errorf("%T does not encode as its envelope followed by its fields", msg)
	}
	t := MessageTypeOf(msg)
	if t == "" {
		t = msg.Header().MessageType
	}
	return &SharedMessage{typ: t, fields: rest[1 : len(rest)-1]}, nil
}

// Type returns the message type of s.
func (s *SharedMessage) Type() MessageType { return s.typ }

// Size returns the length of the shared fields' encoding in bytes.
func (s *SharedMessage) Size() int { return len(s.fields) }

// To returns s addressed by env, ready to be passed to Client.Call as its
// params; env's message type is set to the type of s. Encoding it writes
// env and copies the shared fields' bytes: the encoding is byte for byte
// the encoding of the whole message with env as its envelope.
func (s *SharedMessage) To(env Envelope) *AddressedMessage {
	env.MessageType = s.typ
	return &AddressedMessage{Envelope: env, shared: s}
}

// AddressedMessage is a SharedMessage with the envelope of one recipient
// (see SharedMessage.To). It is a Message; its encoding is the whole
// message's.
type AddressedMessage struct {
	Envelope
	shared *SharedMessage
}

// MarshalJSON encodes the envelope followed by the shared fields.
func (a *AddressedMessage) MarshalJSON() ([]byte, error) {
	parts, err := a.parts()
	if err != nil {
		return nil, err
	}
	return parts.join(), nil
}

// errNoShared is the error of an AddressedMessage made without To.
var errNoShared = errors.New("leaguesdk: AddressedMessage not made by SharedMessage.To")

// parts returns the encoding of a as its envelope (with a comma for its
// closing brace), the shared fields and a closing brace.
func (a *AddressedMessage) parts() (encoded, error) {
	if a.shared == nil {
		return nil, errNoShared
	}
	env, err := json.Marshal(&a.Envelope)
	if err != nil || len(a.shared.fields) == 0 {
		return encoded{env}, err
	}
	env[len(env)-1] = ','
	return encoded{env, a.shared.fields, []byte("}")}, nil
}

// encoded is the encoding of a call's params as consecutive parts: one for
// a message encoded whole, three for an AddressedMessage (its envelope, the
// shared fields, the closing brace), whose shared bytes are then sent to
// each recipient as they are, not copied into a buffer of its own first.
type encoded [][]byte

// size returns the length of the encoding.
func (e encoded) size() int {
	n := 0
	for _, part := range e {
		n += len(part)
	}
	return n
}

// join returns the encoding in one slice (the part itself when there is
// one).
func (e encoded) join() []byte {
	if len(e) == 1 {
		return e[0]
	}
	out := make([]byte, 0, e.size())
	for _, part := range e {
		out = append(out, part...)
	}
	return out
}

// encodeParams returns the encoding of a call's params and its message
// type. An *AddressedMessage is spliced from its envelope and its shared
// bytes, which are neither encoded, scanned nor copied again.
func encodeParams(params any) (encoded, MessageType, error) {
	if a, ok := params.(*AddressedMessage); ok {
		parts, err := a.parts()
		return parts, a.shared.typOrNil(), err
	}
	body, err := json.Marshal(params)
	return encoded{body}, MessageTypeOf(params), err
}

func (s *SharedMessage) typOrNil() MessageType {
	if s == nil {
		return ""
	}
	return s.typ
}

// appendRequest appends a JSON-RPC request with params, which must be
// compact JSON as json.Marshal writes it; the result is byte for byte what
// json.Marshal writes for the request, without scanning params again.
func appendRequest(dst []byte, id int64, method string, params encoded) []byte {
	for _, part := range requestParts(nil, id, method, params) {
		dst = append(dst, part...)
	}
	return dst
}

// requestParts appends to dst the JSON-RPC request of appendRequest as
// parts: its head, the parts of params, its closing brace, so that a large
// message is sent without being copied into a request body first. A
// request of at most joinBodyUpTo bytes, which is sent from one buffer
// (Client.exchange), is appended as one part, written in one buffer of
// its size: a dst with room for one part then takes it as it is.
func requestParts(dst encoded, id int64, method string, params encoded) encoded {
	if params.size() == 0 {
		params = encoded{[]byte("null")}
	}
	var m []byte
	if !plainString(method) {
		m, _ = json.Marshal(method)
	}
	headSize := len(`{"jsonrpc":"2.0","id":,"method":,"params":`) + 20 + len(method) + 2 + len(m)
	size := params.size()
	if size+headSize+1 <= joinBodyUpTo {
		b := appendHead(make([]byte, 0, headSize+size+1), id, method, m)
		for _, part := range params {
			b = append(b, part...)
		}
		return append(dst, append(b, '}'))
	}
	dst = slices.Grow(dst, len(params)+2)
	dst = append(dst, appendHead(make([]byte, 0, headSize), id, method, m))
	dst = append(dst, params...)
	return append(dst, []byte("}"))
}

// appendHead appends the start of a request, up to its params: method is
// written as it is, quoted, unless m, its JSON encoding, is not nil.
func appendHead(b []byte, id int64, method string, m []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	if m != nil {
		b = append(b, m...)
	} else {
		b = append(b, '"')
		b = append(b, method...)
		b = append(b, '"')
	}
	return append(b, `,"params":`...)
}

// plainString reports whether json.Marshal writes s as it is, between
// quotes: printable ASCII without a quote, a backslash or a character it
// escapes for HTML.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
