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
// ("ok", null) reads as an empty message: a bare acknowledgement. When a
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
	}
	var w fields
	err := decodeAll(b, func() any {
		*a = GameJoinAck{noAccept: true}
		w = fields{plain: (*plain)(a)}
		return &w
	})
	a.readAccept(w.Accept, w.Accepted)
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
// without accept confirms arrival and reads as accepted. An accept that is
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
