package leaguesdk_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// CallResponse returns the reply with the bytes of its message as the
// peer sent them, wherever in the reply it was; a reply that does not
// decode comes back with its bytes, what did decode, and an E003.
func TestCallResponseCarriesTheReplyBytes(t *testing.T) {
	const msg = `{"message_type":"CHOOSE_PARITY_RESPONSE", "match_id":"R1M1","player_id":"P01","parity_choice":"odd"}`
	const bad = `{"message_type":"CHOOSE_PARITY_RESPONSE","match_id":7,"player_id":"P01","choice":"even"}`
	replies := map[string]string{
		"/result":  `{"jsonrpc":"2.0","id":1,"result":` + msg + `}`,
		"/wrapped": `{"jsonrpc":"2.0","id":1,"result":{"message":` + msg + `}}`,
		"/request": `{"jsonrpc":"2.0","method":"choose_parity_response","params":` + msg + `}`,
		"/bad":     `{"jsonrpc":"2.0","id":1,"result":` + bad + `}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, replies[r.URL.Path])
	}))
	defer srv.Close()
	client := leaguesdk.NewClient(leaguesdk.ClientConfig{})
	defer client.Close()
	ctx := context.Background()
	for _, path := range []string{"/result", "/wrapped", "/request"} {
		resp, err := leaguesdk.CallResponse[leaguesdk.ChooseParityResponse](ctx, client, srv.URL+path, chooseParityCall(), leaguesdk.CallOptions{})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if string(resp.Raw) != msg || resp.Msg.ParityChoice != leaguesdk.Odd || resp.Msg.MatchID != "R1M1" || resp.Form != leaguesdk.FormSpec {
			t.Fatalf("%s: raw %s, message %+v, form %v", path, resp.Raw, resp.Msg, resp.Form)
		}
	}
	resp, err := leaguesdk.CallResponse[leaguesdk.ChooseParityResponse](ctx, client, srv.URL+"/bad", chooseParityCall(), leaguesdk.CallOptions{})
	if leaguesdk.CodeOf(err) != leaguesdk.CodeMissingRequiredField || resp == nil {
		t.Fatalf("undecodable reply: %+v, %v; want the response and E003", resp, err)
	}
	if choice, ok, _ := resp.Msg.Choice(); string(resp.Raw) != bad || !ok || choice != "even" {
		t.Fatalf("undecodable reply: raw %s, choice %q %v", resp.Raw, choice, ok)
	}
	// A failed call has no response.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if resp, err := leaguesdk.CallResponse[leaguesdk.ChooseParityResponse](ctx, client, gone.URL+"/mcp", chooseParityCall(),
		leaguesdk.CallOptions{Retry: leaguesdk.Once()}); resp != nil || !errors.As(err, new(*leaguesdk.Error)) {
		t.Fatalf("unreachable peer: %+v, %v", resp, err)
	}
}
