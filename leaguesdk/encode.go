package leaguesdk

import (
	"encoding/json"

	wirejson "github.com/agentleague/league/internal/json"
)

// payload is a call's params as encoded once for all its attempts.
type payload struct {
	body []byte
	// parts, when set, are the params' text in pieces sent as they are
	// (internal/json.Parts); body is then nil until a form other than the
	// spec's needs the text whole.
	parts [][]byte
	typ   MessageType
	// raw is set while typ is still to be read from body: params given
	// as a json.RawMessage are read only if a fallback needs their type.
	raw bool
}

// encodeParams encodes a call's params, with the drop-in (the bytes
// encoding/json writes). A json.RawMessage is taken as it is: the caller
// encoded it (a broadcast encoded once for many recipients).
func encodeParams(params any) (payload, error) {
	switch p := params.(type) {
	case json.RawMessage:
		return payload{body: p, raw: true}, nil
	case wirejson.Parts:
		return payload{parts: p, raw: true}, nil
	}
	body, err := wirejson.Marshal(params)
	return payload{body: body, typ: MessageTypeOf(params)}, err
}

// messageType returns the message type of the params, "" when they name
// none.
func (p *payload) messageType() MessageType {
	if p.raw {
		p.raw = false
		p.typ = MessageType(messageTypeOf(p.text()))
	}
	return p.typ
}

// text returns the params' text whole.
func (p *payload) text() []byte {
	if p.body == nil && p.parts != nil {
		p.body = wirejson.Parts(p.parts).Join()
	}
	return p.body
}

// request returns a JSON-RPC request of the spec's form with the params,
// in pieces: the params' own pieces are not copied.
func (p *payload) request(id int64, method string) [][]byte {
	if p.parts == nil {
		return [][]byte{appendRequest(nil, id, method, p.body)}
	}
	out := make([][]byte, 0, len(p.parts)+2)
	out = append(append(append(out, appendRequestHead(nil, id, method)), p.parts...), []byte("}"))
	return out
}
