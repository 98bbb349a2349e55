package referee

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

func TestRedactMasksTokensAndKeepsTheRest(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{json.RawMessage(`{"b":1,"auth_token":"tok_0123456789abcdef","a":{"token":"x"},"note":"tok_abcdefgh"}`),
			`{"b":1,"auth_token":"[REDACTED]","a":{"token":"x"},"note":"[REDACTED]"}`},
		{json.RawMessage(`{"auth_token":"","token":null,"admin_token":"secret"}`),
			`{"auth_token":"","token":null,"admin_token":"[REDACTED]"}`},
		{json.RawMessage(`[1,"tok_0123456789"]`), `[1,"[REDACTED]"]`},
		{json.RawMessage(`not json tok_0123456789`), `"not json [REDACTED]"`},
		{&leaguesdk.Ack{Envelope: leaguesdk.Envelope{AuthToken: "tok_secretsecret"}, Status: "OK"}, ""},
	} {
		got := string(redactMessage(c.in))
		if c.want == "" {
			if strings.Contains(got, "tok_secret") || !strings.Contains(got, `"auth_token":"`+leaguesdk.Redacted+`"`) {
				t.Errorf("redactMessage(%T) = %s, want its auth_token masked", c.in, got)
			}
			continue
		}
		if got != c.want {
			t.Errorf("redactMessage(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
