package manager_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

// TestAgentLogFile registers a player with a manager and checks the
// manager's agent log, DataRoot/logs/agents/league_manager.log.jsonl: one
// JSON record per line with the log schema, and not the token it issued.
func TestAgentLogFile(t *testing.T) {
	dir := t.TempDir()
	r := startManager(t, fastConfig(t, dir))
	resp := registerPlayer(t, r.MCP, "Agent Alpha", "http://127.0.0.1:9/mcp", nil)
	if resp.AuthToken == "" {
		t.Fatalf("registration answered %+v", resp)
	}
	r.Stop() // Run returns: the file is complete and closed

	f, err := os.Open(filepath.Join(dir, "logs", "agents", leaguesdk.LeagueManagerSender+".log.jsonl"))
	if err != nil {
		t.Fatalf("no agent log: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec struct {
			Timestamp string `json:"timestamp"`
			Level     string `json:"level"`
			AgentID   string `json:"agent_id"`
			Message   string `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line is not JSON: %v\n%s", err, line)
		}
		if rec.Timestamp == "" || rec.Level == "" || rec.AgentID != leaguesdk.LeagueManagerSender || rec.Message == "" {
			t.Errorf("line does not follow the log schema: %s", line)
		}
		if strings.Contains(line, resp.AuthToken) {
			t.Errorf("the issued token is in the agent log: %s", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestNoAgentLog checks that Config.NoAgentLog keeps the agent log off disk.
func TestNoAgentLog(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.NoAgentLog = true
	startManager(t, cfg).Stop()
	if _, err := os.Stat(filepath.Join(dir, "logs", "agents")); !os.IsNotExist(err) {
		t.Errorf("logs/agents exists with NoAgentLog: %v", err)
	}
}
