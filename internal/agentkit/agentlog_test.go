package agentkit

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readLog returns the records of an agent log file.
func readLog(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return jsonLines(t, raw)
}

func TestAgentLogHoldsLinesUntilTheAgentIsKnown(t *testing.T) {
	root := t.TempDir()
	var human bytes.Buffer
	l := NewAgentLog("player:agent_alpha", slog.LevelDebug)
	log := l.Logger(slog.New(slog.NewTextHandler(&human, nil))).With("component", "test")
	log.Debug("before", slog.String("auth_token", "tok_0123456789abcdef"))
	if _, err := os.Stat(filepath.Join(root, "logs", "agents")); !os.IsNotExist(err) {
		t.Fatalf("a file was created before Open: %v", err)
	}
	if err := l.Open(root, "P07"); err != nil {
		t.Fatal(err)
	}
	log.Info("after")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	log.Info("after close")
	if err := l.Open(root, "P07"); err == nil {
		t.Error("a closed log opened again")
	}

	recs := readLog(t, filepath.Join(root, "logs", "agents", "P07.log.jsonl"))
	if len(recs) != 2 {
		t.Fatalf("log holds %d records, want 2: %v", len(recs), recs)
	}
	for i, want := range []struct{ msg, id, level string }{{"before", "player:agent_alpha", "DEBUG"}, {"after", "P07", "INFO"}} {
		r := recs[i]
		if r["message"] != want.msg || r["agent_id"] != want.id || r["level"] != want.level || r["component"] != "test" || r["timestamp"] == nil {
			t.Errorf("record %d = %v, want message %q agent_id %q level %s", i, r, want.msg, want.id, want.level)
		}
	}
	if strings.Contains(human.String(), "level=DEBUG") || !strings.Contains(human.String(), "after close") {
		t.Errorf("the base logger must keep its own level and keep logging after Close:\n%s", human.String())
	}
	if raw, _ := os.ReadFile(filepath.Join(root, "logs", "agents", "P07.log.jsonl")); bytes.Contains(raw, []byte("tok_0123")) {
		t.Errorf("token in the log:\n%s", raw)
	}
}

func TestAgentLogKeepsTheLastHeldLines(t *testing.T) {
	root := t.TempDir()
	l := NewAgentLog("referee:r", slog.LevelDebug)
	log := l.Logger(nil)
	for i := range MaxHeldLines + 5 {
		log.Info("held", slog.Int("i", i))
	}
	if err := l.Open(root, "REF01"); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	recs := readLog(t, filepath.Join(root, "logs", "agents", "REF01.log.jsonl"))
	if len(recs) != MaxHeldLines+1 {
		t.Fatalf("%d records, want %d held and a warning", len(recs), MaxHeldLines+1)
	}
	if recs[0]["i"] != float64(5) || recs[MaxHeldLines-1]["i"] != float64(MaxHeldLines+4) {
		t.Errorf("held lines are not the last ones: first %v, last %v", recs[0], recs[MaxHeldLines-1])
	}
	if w := recs[MaxHeldLines]; w["level"] != "WARN" || w["dropped"] != float64(5) || w["agent_id"] != "REF01" {
		t.Errorf("no warning about the dropped lines: %v", w)
	}
}

func TestNilAgentLogIsOff(t *testing.T) {
	var l *AgentLog
	base := slog.New(slog.DiscardHandler)
	if l.Logger(base) != base || l.Logger(nil) == nil {
		t.Error("a nil AgentLog must return its base logger, or a discarding one")
	}
	root := t.TempDir()
	if err := l.Open(root, "P01"); err != nil || l.Close() != nil {
		t.Fatal("Open and Close of a nil AgentLog must do nothing")
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Errorf("a nil AgentLog wrote %v", entries)
	}
}

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{
		"P01": "P01", "league_2025-even.odd": "league_2025-even.odd", "../../etc": ".._.._etc",
		"a/b\\c": "a_b_c", "": "_", ".": "_.", "..": "_..", "R1 M1:é": "R1_M1__",
	} {
		if got := SafeFileName(in); got != want {
			t.Errorf("SafeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAgentLogFileNameStaysInItsDirectory(t *testing.T) {
	root := t.TempDir()
	l := NewAgentLog("x", slog.LevelDebug)
	if err := l.Open(root, "../escape"); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "logs", "agents", ".._escape.log.jsonl")); err != nil {
		t.Errorf("the log of agent id %q is not where it should be: %v", "../escape", err)
	}
}

// Lines are written in batches: an info line reaches the file within
// flushDelay of being logged without anything else happening, a warning
// at once together with the lines before it, and a batch as soon as
// flushSize bytes wait.
func TestAgentLogWritesLinesInBatches(t *testing.T) {
	root := t.TempDir()
	l := NewAgentLog("P07", slog.LevelInfo)
	l.delay = time.Hour // until the lines are seen held
	if err := l.Open(root, "P07"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	path := filepath.Join(root, "logs", "agents", "P07.log.jsonl")
	size := func() int {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return int(fi.Size())
	}
	log := l.Logger(nil)

	log.Info("first")
	log.Info("second")
	if n := size(); n != 0 {
		t.Fatalf("%d bytes written at once for two info lines, want them held for a batch", n)
	}
	l.mu.Lock()
	l.delay = 10 * time.Millisecond
	l.flusher.Reset(l.delay)
	l.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for size() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("info lines never written without a flush")
		}
		time.Sleep(time.Millisecond)
	}
	if recs := readLog(t, path); len(recs) != 2 || recs[0]["message"] != "first" || recs[1]["message"] != "second" {
		t.Fatalf("after the delay the file holds %v, want the two lines in order", recs)
	}

	l.mu.Lock()
	l.delay = time.Hour
	l.mu.Unlock()
	log.Info("third")
	log.Warn("trouble")
	if recs := readLog(t, path); len(recs) != 4 || recs[2]["message"] != "third" || recs[3]["message"] != "trouble" {
		t.Fatalf("after a warning the file holds %v, want it and the line before it", recs)
	}

	before := size()
	for size() == before {
		log.Info("filler", slog.String("text", strings.Repeat("x", 200)))
		if size()-before > flushSize+1024 {
			break
		}
	}
	if grown := size() - before; grown < flushSize || grown > flushSize+1024 {
		t.Fatalf("a batch of %d bytes written, want one as soon as %d wait", grown, flushSize)
	}
}

// TestUrgent finds the level of every line NewLogger writes, with a
// timestamp and without one.
func TestUrgent(t *testing.T) {
	var buf bytes.Buffer
	h := NewLogger(&buf, "P01", slog.LevelDebug).With("note", `"level":"WARN`).Handler()
	for _, at := range []time.Time{{}, time.Now(), time.Date(2025, 1, 15, 10, 15, 5, 0, time.UTC)} {
		for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelInfo + 3, slog.LevelWarn, slog.LevelWarn + 1, slog.LevelError, slog.LevelError + 4} {
			buf.Reset()
			if err := h.Handle(context.Background(), slog.NewRecord(at, level, `"level":"ERROR`, 0)); err != nil {
				t.Fatal(err)
			}
			if got := urgent(buf.Bytes()); got != (level >= slog.LevelWarn) {
				t.Errorf("urgent(%s) = %v", buf.Bytes(), got)
			}
		}
	}
}
