package manager_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/manager"
)

// TestFailureTriggerNamesWhatHappened: a player that answers every call
// with an error ("Unknown tool: …") goes SUSPENDED with the trigger
// error, not timeout, and the reason carries the peer's words.
func TestFailureTriggerNamesWhatHappened(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	cfg.MinPlayers = 3
	m := startManager(t, cfg)
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		if len(req.ID) == 0 {
			req.ID = json.RawMessage("null")
		}
		name := req.Method
		if req.Method == "tools/call" {
			name = req.Params.Name
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"error":{"code":-32603,"message":"Unknown tool: `+name+`"}}`)
	}))
	t.Cleanup(refusing.Close)
	startReferee(t, m.MCP, "Referee Alpha", refereeOptions{})
	registerPlayer(t, m.MCP, "Refusing", refusing.URL+"/mcp", nil)
	startPlayers(t, m.MCP, 2, nil)
	m.waitDone(t, 60*time.Second)
	if !reached(m.Events, "P01", manager.StateSuspended, manager.TriggerError) {
		t.Fatalf("P01: transitions %+v, want SUSPENDED (error)", transitions(m.Events, "P01"))
	}
	for _, tr := range transitions(m.Events, "P01") {
		if tr.Trigger == manager.TriggerTimeout {
			t.Errorf("P01 answered every call, yet moved %s → %s (timeout): %s", tr.From, tr.To, tr.Reason)
		}
		if tr.Trigger == manager.TriggerError && !strings.Contains(tr.Reason, "Unknown tool") {
			t.Errorf("reason %q does not say what the player answered", tr.Reason)
		}
	}
}
