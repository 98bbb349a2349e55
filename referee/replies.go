package referee

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentleague/league/leaguesdk"
)

// playerReply is a player's answer as the referee reads it: a direct reply
// to GAME_INVITATION / CHOOSE_PARITY_CALL / GAME_MOVE_CALL, or the same
// message arriving later as a request of its own (callback style). Every
// field is read leniently; what it means is decided by joinAnswer and
// choice.
type playerReply struct {
	MessageType  string          `json:"message_type,omitempty"`
	Sender       string          `json:"sender,omitempty"`
	MatchID      string          `json:"match_id,omitempty"`
	PlayerID     string          `json:"player_id,omitempty"`
	Accept       json.RawMessage `json:"accept,omitempty"`
	ParityChoice json.RawMessage `json:"parity_choice,omitempty"`
	MoveData     *struct {
		MoveType string          `json:"move_type,omitempty"`
		Choice   json.RawMessage `json:"choice,omitempty"`
	} `json:"move_data,omitempty"`
	Status string `json:"status,omitempty"`
	ConvID string `json:"conversation_id,omitempty"`
}

// decodeReply reads a reply message. A reply that is not a JSON object
// ("ok", null) reads as an empty reply: a bare acknowledgement.
func decodeReply(raw json.RawMessage) playerReply {
	var p playerReply
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		if err := json.Unmarshal(t, &p); err != nil {
			// A field of an unexpected JSON type: read what can be read.
			var loose map[string]json.RawMessage
			_ = json.Unmarshal(t, &loose)
			p.Accept = loose["accept"]
			p.ParityChoice = loose["parity_choice"]
			_ = json.Unmarshal(loose["message_type"], &p.MessageType)
			_ = json.Unmarshal(loose["player_id"], &p.PlayerID)
		}
	}
	return p
}

// replyPlayer returns the player a callback names: player_id, else the id
// of its sender.
func (p playerReply) replyPlayer() string {
	if p.PlayerID != "" {
		return p.PlayerID
	}
	_, id := leaguesdk.SplitSender(p.Sender)
	return id
}

func (p playerReply) isType(t leaguesdk.MessageType) bool {
	return strings.EqualFold(p.MessageType, string(t))
}

// joinAnswer interprets a reply to GAME_INVITATION. ok is false when the
// reply holds no answer (a bare acknowledgement: the answer may come as a
// callback). An accept field that is neither a boolean nor "true"/"false"
// is an error (E003).
func (p playerReply) joinAnswer() (accept, ok bool, err error) {
	if len(p.Accept) > 0 && string(p.Accept) != "null" {
		switch strings.ToLower(strings.Trim(string(p.Accept), `"`)) {
		case "true":
			return true, true, nil
		case "false":
			return false, true, nil
		}
		return false, true, leaguesdk.NewError(leaguesdk.CodeMissingRequiredField,
			"accept must be true or false, got %s", clip(string(p.Accept)))
	}
	if p.isType(leaguesdk.MsgGameJoinAck) {
		// A join acknowledgement without accept still confirms arrival.
		return true, true, nil
	}
	return false, false, nil
}

// choice interprets a reply to a move call. ok is false when the reply
// holds no choice and is not a move response (a bare acknowledgement).
func (p playerReply) choice() (choice string, ok bool, err error) {
	var raw json.RawMessage
	switch {
	case p.MoveData != nil && len(p.MoveData.Choice) > 0 && string(p.MoveData.Choice) != "null":
		raw = p.MoveData.Choice
	case len(p.ParityChoice) > 0 && string(p.ParityChoice) != "null":
		raw = p.ParityChoice
	}
	if raw == nil {
		if p.isType(leaguesdk.MsgChooseParityResponse) || p.isType(leaguesdk.MsgGameMoveResponse) {
			return "", true, &leaguesdk.Error{Code: leaguesdk.CodeMissingRequiredField, Field: "parity_choice",
				Message: "the response carries no choice (parity_choice or move_data.choice)"}
		}
		return "", false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true, nil
	}
	return string(bytes.TrimSpace(raw)), true, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
