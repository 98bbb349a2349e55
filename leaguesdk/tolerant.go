package leaguesdk

import (
	"encoding/json"
	"strings"
)

// Players of other implementations answer GAME_INVITATION and move calls
// in more than one shape. The two answer types take the members of every
// tolerated shape in their decoding, read them with the wire layer (wire_tolerant.go), and
// encode only the profile's shape.

// UnmarshalJSON implements [json.Unmarshaler]. It reads accept as a JSON
// boolean or as the string "true" or "false" in any case, and reads the
// alias accepted when accept is absent. A value that is not a JSON object
// ("ok", null) reads as an empty message: a bare acknowledgement; so does
// an object without message type or accept, but for {"status":"ACK"},
// which reads as an acceptance. When a
// field has an unexpected JSON type, the other fields are still read and
// the first such error is returned. Answer tells what was received.
func (a *GameJoinAck) UnmarshalJSON(b []byte) error {
	*a = GameJoinAck{noAccept: true}
	if !isObject(b) {
		return nil
	}
	type plain GameJoinAck
	type fields struct {
		*plain
		Accept   json.RawMessage `json:"accept"`
		Accepted json.RawMessage `json:"accepted"`
		Status   json.RawMessage `json:"status"`
	}
	var w fields
	err := decodeAll(b, func() any {
		*a = GameJoinAck{noAccept: true}
		w = fields{plain: (*plain)(a)}
		return &w
	})
	a.readAccept(w.Accept, w.Accepted)
	if a.noAccept && a.MessageType == "" {
		var status string
		_ = json.Unmarshal(w.Status, &status)
		a.bareACK = strings.EqualFold(status, "ACK")
	}
	return err
}

// readAccept sets what a received accept says from its member accept, or
// else accepted, as received (nil when absent).
func (a *GameJoinAck) readAccept(accept, accepted json.RawMessage) {
	value, missing, invalid := acceptOf(accept, accepted)
	a.noAccept, a.invalidAccept = missing, invalid
	if !missing && invalid == "" {
		a.Accept = value
	}
}

// Answer interprets a received GAME_JOIN_ACK or other reply to
// GAME_INVITATION. ok is false when the reply holds no answer (a bare
// acknowledgement: the answer may follow as a callback). A GAME_JOIN_ACK
// without accept confirms arrival and reads as accepted, as does a reply
// that is {"status":"ACK"} without a message type (the answer of
// MCP-native players). An accept that is
// neither a boolean nor "true"/"false" is an [*Error] with code
// [CodeMissingRequiredField]. A [GameJoinAck] built in Go answers Accept.
func (a *GameJoinAck) Answer() (accept, ok bool, err error) {
	switch {
	case a.invalidAccept != "":
		return false, true, &Error{Code: CodeMissingRequiredField, Field: "accept",
			Message: "accept must be true or false, got " + clip(a.invalidAccept)}
	case !a.noAccept:
		return a.Accept, true, nil
	case strings.EqualFold(string(a.MessageType), string(MsgGameJoinAck)):
		return true, true, nil
	case a.bareACK:
		// {"status":"ACK"} and no message type: MCP-native players answer
		// an invitation they take so, and send nothing after it.
		return true, true, nil
	}
	return false, false, nil
}

// UnmarshalJSON implements [json.Unmarshaler]. It reads the choice from
// move_data.choice (the GAME_MOVE_RESPONSE shape), else from parity_choice,
// else from its alias choice; a choice that is not a JSON string is kept as
// its JSON text, for the game to refuse. A value that is not a JSON object
// ("ok", null) reads as an empty message: a bare acknowledgement. When a
// field has an unexpected JSON type, the other fields are still read and
// the first such error is returned. Choice tells what was received.
func (r *ChooseParityResponse) UnmarshalJSON(b []byte) error {
	*r = ChooseParityResponse{noChoice: true}
	if !isObject(b) {
		return nil
	}
	type plain ChooseParityResponse
	type fields struct {
		*plain
		ParityChoice json.RawMessage `json:"parity_choice"`
		Choice       json.RawMessage `json:"choice"`
		MoveData     *struct {
			Choice json.RawMessage `json:"choice"`
		} `json:"move_data"`
	}
	var w fields
	err := decodeAll(b, func() any {
		*r = ChooseParityResponse{noChoice: true}
		w = fields{plain: (*plain)(r)}
		return &w
	})
	var moveChoice json.RawMessage
	if w.MoveData != nil {
		moveChoice = w.MoveData.Choice
	}
	choice, ok := choiceOf(w.ParityChoice, w.Choice, moveChoice)
	r.noChoice = !ok
	if ok {
		r.ParityChoice = Parity(choice)
	}
	return err
}

// Choice interprets a received CHOOSE_PARITY_RESPONSE, GAME_MOVE_RESPONSE
// or other reply to a move call. ok is false when the reply holds no
// choice and is not a move response (a bare acknowledgement: the choice
// may follow as a callback). A move response without a choice is an [*Error]
// with code [CodeMissingRequiredField]. The choice is returned as received,
// unchecked. A [ChooseParityResponse] built in Go answers ParityChoice.
func (r *ChooseParityResponse) Choice() (choice string, ok bool, err error) {
	if !r.noChoice {
		return string(r.ParityChoice), true, nil
	}
	if t := string(r.MessageType); strings.EqualFold(t, string(MsgChooseParityResponse)) || strings.EqualFold(t, string(MsgGameMoveResponse)) {
		return "", true, &Error{Code: CodeMissingRequiredField, Field: "parity_choice",
			Message: "the response carries no choice (parity_choice or move_data.choice)"}
	}
	return "", false, nil
}

// clip shortens s to 40 bytes for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// completeBare returns the message of a tools/call of rt whose arguments
// lack envelope fields, with those fields filled in as
// [Tool.BareArguments] describes, and true; false when rt does not take
// bare arguments, the arguments are not an object, they name another
// message type, or they lack nothing.
func (s *Server) completeBare(rt *route, msg json.RawMessage) (json.RawMessage, bool) {
	if rt.bare == "" || !isObject(msg) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil, false
	}
	var typ MessageType
	if raw, ok := m["message_type"]; ok && (json.Unmarshal(raw, &typ) != nil || typ != rt.bare) {
		return nil, false
	}
	changed := false
	set := func(k string, v any) {
		if _, ok := m[k]; !ok {
			m[k], _ = json.Marshal(v)
			changed = true
		}
	}
	// The *_meta member describes the agent: its kind, display name and
	// version.
	kind, name := "", ""
	for k, raw := range m {
		base, ok := strings.CutSuffix(k, "_meta")
		if !ok || !isObject(raw) {
			continue
		}
		var meta map[string]json.RawMessage
		if json.Unmarshal(raw, &meta) != nil {
			continue
		}
		var dn string
		_ = json.Unmarshal(meta["display_name"], &dn)
		kind, name = base, dn
		if _, ok := meta["version"]; !ok {
			for _, alias := range []string{"agent_version", "protocol_version"} {
				if v, ok := meta[alias]; ok {
					meta["version"] = v
					m[k], _ = json.Marshal(meta)
					changed = true
					break
				}
			}
		}
	}
	set("protocol", Protocol)
	set("message_type", rt.bare)
	if kind != "" && name != "" {
		set("sender", NameSender(kind, name))
	}
	set("timestamp", FormatTime(s.cfg.Now()))
	set("conversation_id", NewConversationID())
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(m)
	return out, err == nil
}
