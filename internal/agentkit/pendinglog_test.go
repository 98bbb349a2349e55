package agentkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPendingLogHoldsLinesUntilTheAgentIsKnown(t *testing.T) {
	root := t.TempDir()
	var l PendingLog
	if _, err := l.Write([]byte("before\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "logs", "agents")); !os.IsNotExist(err) {
		t.Fatalf("a file was created before Open: %v", err)
	}
	if err := l.Open(root, "P07"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "logs", "agents", "P07.log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "before\nafter\n" {
		t.Errorf("log file holds %q, want the held line then the new one", got)
	}
}
