package leaguesdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/agentleague/league/leaguesdk"
)

// A tool that reads its message itself, and a hook that acknowledges what
// no tool takes.
func ExampleServer_HandleRaw() {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{
		Unknown: func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			if req.Envelope == nil { // not a protocol message: "method not found"
				return nil, leaguesdk.ErrUnrouted
			}
			return map[string]string{"status": "ok", "acknowledged": string(req.Envelope.MessageType)}, nil
		},
	})
	srv.HandleRaw(leaguesdk.Tool{Name: "echo", Public: true},
		func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(req.Message, &in); err != nil {
				return nil, leaguesdk.NewError(leaguesdk.CodeMissingRequiredField, "text does not decode")
			}
			return map[string]string{"echo": in.Text, "form": req.Form.String()}, nil
		})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hello"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"notify_weather","params":{"message_type":"WEATHER_REPORT"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"server/discover"}`,
	} {
		resp, err := http.Post(ts.URL+"/mcp", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Print(string(out))
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"echo":"hello","form":"spec"}}
	// {"jsonrpc":"2.0","id":2,"result":{"acknowledged":"WEATHER_REPORT","status":"ok"}}
	// {"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: \"server/discover\""}}
}
