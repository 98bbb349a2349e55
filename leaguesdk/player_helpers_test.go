package leaguesdk_test

import (
	"encoding/json"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

func TestLocateMessage(t *testing.T) {
	msg := `{"message_type":"GAME_OVER","match_id":"R1M1"}`
	tests := []struct {
		name, params string
		wantType     leaguesdk.MessageType
		wantMsg      string
	}{
		{"flat", msg, leaguesdk.MsgGameOver, msg},
		{"params.message", `{"message":` + msg + `}`, leaguesdk.MsgGameOver, msg},
		{"params.arguments", `{"arguments":` + msg + `}`, leaguesdk.MsgGameOver, msg},
		{"params.payload", `{"payload":` + msg + `}`, leaguesdk.MsgGameOver, msg},
		{"no message", `{"name":"x"}`, "", `{"name":"x"}`},
		{"not an object", `[1]`, "", `[1]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, typ := leaguesdk.LocateMessage(json.RawMessage(tc.params))
			if typ != tc.wantType || string(got) != tc.wantMsg {
				t.Fatalf("LocateMessage = %s, %q", got, typ)
			}
		})
	}
}
