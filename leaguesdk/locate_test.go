package leaguesdk

import (
	"encoding/json"
	"testing"
)

// TestLocateMessage checks where a Server finds the message in params.
func TestLocateMessage(t *testing.T) {
	msg := `{"message_type":"GAME_OVER","match_id":"R1M1"}`
	tests := []struct {
		name, params string
		wantType     MessageType
		wantMsg      string
	}{
		{"flat", msg, MsgGameOver, msg},
		{"params.message", `{"message":` + msg + `}`, MsgGameOver, msg},
		{"params.arguments", `{"arguments":` + msg + `}`, MsgGameOver, msg},
		{"params.payload", `{"payload":` + msg + `}`, MsgGameOver, msg},
		{"no message", `{"name":"x"}`, "", `{"name":"x"}`},
		{"not an object", `[1]`, "", `[1]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, typ := locateMessage(json.RawMessage(tc.params))
			if MessageType(typ) != tc.wantType || string(got) != tc.wantMsg {
				t.Fatalf("locateMessage = %s, %q", got, typ)
			}
		})
	}
}
