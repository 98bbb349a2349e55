package leaguesdk

import (
	"bytes"
	"encoding/json"
	"strings"

	wirejson "github.com/agentleague/league/internal/json"
)

// Players of other implementations answer GAME_INVITATION and move calls
// in more than one shape. The answer types' decoding (in leaguesdk) takes
// the members these functions read and leaves the reading to them.

// acceptOf reads a received GAME_JOIN_ACK's answer from its member accept,
// or else from the alias accepted, as received (nil when absent): a JSON
// boolean, or the string "true" or "false" in any case. missing is true
// when neither member holds a value; invalid is the text of a value that
// is none of those.
func acceptOf(accept, accepted json.RawMessage) (value, missing bool, invalid string) {
	raw := accept
	if raw == nil {
		raw = accepted
	}
	switch {
	case isNull(raw):
		return false, true, ""
	case strings.EqualFold(strings.Trim(string(raw), `"`), "true"):
		return true, false, ""
	case strings.EqualFold(strings.Trim(string(raw), `"`), "false"):
		return false, false, ""
	}
	return false, false, string(raw)
}

// choiceOf reads a received move reply's choice from move_data.choice
// (the GAME_MOVE_RESPONSE shape, moveChoice), else parity_choice, else
// the alias choice. A choice that is not a JSON string is kept as its
// JSON text, for the game to refuse. ok is false when there is none.
func choiceOf(parityChoice, choice, moveChoice json.RawMessage) (string, bool) {
	raw := parityChoice
	if raw == nil {
		raw = choice
	}
	if !isNull(moveChoice) {
		raw = moveChoice
	}
	if isNull(raw) {
		return "", false
	}
	var s string
	if wirejson.Unmarshal(raw, &s) != nil {
		s = string(bytes.TrimSpace(raw))
	}
	return s, true
}

// decodeAll decodes b with the drop-in reader into the value fresh
// returns (emptied). Where that fails (a member of an unexpected JSON
// type, say), b is decoded again, into a value emptied again, by
// encoding/json, which reads every other member and returns the first such
// error, as the answer types' decoding promises: the drop-in stops at the
// first error.
func decodeAll(b []byte, fresh func() any) error {
	if wirejson.Unmarshal(b, fresh()) == nil {
		return nil
	}
	return json.Unmarshal(b, fresh())
}

// isObject reports whether b holds a JSON object.
func isObject(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) > 0 && t[0] == '{'
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }
