package leaguesdk

import (
	"encoding/json"
	"strconv"
)

// payload is a call's params as encoded once for all its attempts.
type payload struct {
	body []byte
	typ  MessageType
	// raw is set while typ is still to be read from body: params given
	// as a json.RawMessage are read only if a fallback needs their type.
	raw bool
}

// encodeParams encodes a call's params. A json.RawMessage is taken as it
// is: the caller encoded it (a broadcast encoded once for many recipients).
func encodeParams(params any) (payload, error) {
	if raw, ok := params.(json.RawMessage); ok {
		return payload{body: raw, raw: true}, nil
	}
	body, err := json.Marshal(params)
	return payload{body: body, typ: MessageTypeOf(params)}, err
}

// messageType returns the message type of the params, "" when they name
// none.
func (p *payload) messageType() MessageType {
	if p.raw {
		p.raw = false
		p.typ = MessageType(messageTypeOf(p.body))
	}
	return p.typ
}

// appendRequest appends a JSON-RPC request with params, which must be one
// JSON value, without encoding them again.
func appendRequest(dst []byte, id int64, method string, params []byte) []byte {
	if len(params) == 0 {
		params = []byte("null")
	}
	m, _ := json.Marshal(method)
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, `,"method":`...)
	dst = append(dst, m...)
	dst = append(dst, `,"params":`...)
	dst = append(dst, params...)
	return append(dst, '}')
}
