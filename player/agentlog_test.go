package player_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// TestAgentLogFile runs a player through registration and a parity call and
// checks its agent log: DataRoot/logs/agents/<player_id>.log.jsonl, one
// JSON record per line with the log schema, lines from before registration
// included, and no token.
func TestAgentLogFile(t *testing.T) {
	m := startManager(t, &testManager{playerID: "P07"})
	data := t.TempDir()
	a, _, stop := startAgent(t, player.Config{League: m.URL, DataRoot: data, Strategy: always(leaguesdk.Odd), AgentLogLevel: slog.LevelDebug})
	select {
	case <-a.Registered():
	case <-time.After(10 * time.Second):
		t.Fatal("the player did not register")
	}
	var resp leaguesdk.ChooseParityResponse
	call(t, a, leaguesdk.MethodChooseParity, parityCall("R1M1", "P07", "P02", 5*time.Second), &resp)
	stop() // Run returns: the file is complete and closed

	path := filepath.Join(data, "logs", "agents", "P07.log.jsonl")
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no agent log: %v", err)
	}
	defer f.Close()
	ids := map[string]string{} // message → agent_id
	redacted := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line is not JSON: %v\n%s", err, line)
		}
		for _, k := range []string{"timestamp", "level", "agent_id", "message"} {
			if s, _ := rec[k].(string); s == "" {
				t.Errorf("line lacks %s: %s", k, line)
			}
		}
		if strings.Contains(line, playerToken) || strings.Contains(line, refereeToken) {
			t.Errorf("token in the agent log: %s", line)
		}
		redacted = redacted || strings.Contains(line, leaguesdk.Redacted)
		msg, _ := rec["message"].(string)
		id, _ := rec["agent_id"].(string)
		ids[msg] = id
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !redacted {
		t.Error("no message with its token redacted in the log: the check above proved nothing")
	}
	if ids["player serving"] != "player:agent_alpha" || ids["registered"] != "P07" || ids["player stopped"] != "P07" {
		t.Errorf("agent ids by message = %v: want the name-based sender before registration, the player id after", ids)
	}
}

// TestNoAgentLog checks that Config.NoAgentLog keeps the agent log off disk.
func TestNoAgentLog(t *testing.T) {
	m := startManager(t, &testManager{})
	data := t.TempDir()
	runAgent(t, player.Config{League: m.URL, DataRoot: data, NoAgentLog: true})
	if _, err := os.Stat(filepath.Join(data, "logs")); !os.IsNotExist(err) {
		t.Errorf("logs/ exists with NoAgentLog: %v", err)
	}
}
