package referee_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

// TestAgentLogFile registers a referee, has it run one match and checks its
// agent log: DataRoot/logs/agents/<referee_id>.log.jsonl, one JSON record
// per line with the log schema, and none of the tokens of the referee or
// the players.
func TestAgentLogFile(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) { c.AgentLogLevel = slog.LevelDebug })
	a := newTestPlayer(t, behaviour{Choice: leaguesdk.Even})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	e.play(t, e.match(a, b, "P01", "P02"))
	if err := e.stop(t); err != nil { // Run returns: the file is complete and closed
		t.Fatalf("Run = %v", err)
	}

	f, err := os.Open(filepath.Join(e.dataRoot, "logs", "agents", "REF01.log.jsonl"))
	if err != nil {
		t.Fatalf("no agent log: %v", err)
	}
	defer f.Close()
	types := map[string]bool{}
	var registered bool
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var rec struct {
			Timestamp   string `json:"timestamp"`
			Level       string `json:"level"`
			AgentID     string `json:"agent_id"`
			Message     string `json:"message"`
			MessageType string `json:"message_type"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("line is not JSON: %v\n%s", err, line)
		}
		if rec.Timestamp == "" || rec.Level == "" || rec.AgentID == "" || rec.Message == "" {
			t.Errorf("line lacks a field of the log schema: %s", line)
		}
		for _, tok := range []string{mgr.token, a.token, b.token} {
			if strings.Contains(line, tok) {
				t.Errorf("token in the agent log: %s", line)
			}
		}
		types[rec.MessageType] = true
		registered = registered || (rec.Message == "registered" && rec.AgentID == "REF01")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !registered || !types[string(leaguesdk.MsgMatchResultReport)] {
		t.Errorf("the log lacks the registration (as REF01) or the match's report (message types %v)", types)
	}
}

// TestNoAgentLog checks that Config.NoAgentLog keeps the agent log off disk.
func TestNoAgentLog(t *testing.T) {
	e := startReferee(t, newTestManager(t), func(c *referee.Config) { c.NoAgentLog = true })
	if err := e.stop(t); err != nil {
		t.Fatalf("Run = %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.dataRoot, "logs")); !os.IsNotExist(err) {
		t.Errorf("logs/ exists with NoAgentLog: %v", err)
	}
}
