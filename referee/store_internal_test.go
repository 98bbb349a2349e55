package referee

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func transcriptOf(league, match string, state State, reported bool) *Transcript {
	return &Transcript{
		SchemaVersion: SchemaVersion, LeagueID: league, MatchID: match, State: state, Reported: reported,
		Players:   []TranscriptPlayer{{PlayerID: "P01"}, {PlayerID: "P02"}},
		Lifecycle: []LifecycleEntry{{State: state}}, Transcript: []TranscriptMessage{},
	}
}

// journalLines counts the records of every journal of the league.
func journalLines(t *testing.T, root, league string) int {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "data", "matches", league, ".journal", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// The records end at the zeros reserved after them.
		records, _, _ := bytes.Cut(b, []byte{0})
		n += bytes.Count(records, []byte{'\n'})
	}
	return n
}

// A crash after a transcript was made durable in the journal, which left
// the match's own file missing or behind (it is replaced without an fsync),
// is repaired when the league's journal is next opened: reading the match
// gives the journal's newest transcript, and the file then holds it.
func TestTranscriptFileIsRebuiltFromTheJournalAfterACrash(t *testing.T) {
	root := t.TempDir()
	// A live referee sharing the data root: its journal is not touched.
	live := newTranscripts(root)
	if err := live.write(transcriptOf("L1", "R2M1", StateFinished, false), false); err != nil {
		t.Fatal(err)
	}
	s := newTranscripts(root)
	for _, tr := range []*Transcript{
		transcriptOf("L1", "R1M1", StateFinished, false),
		transcriptOf("L1", "R1M2", StateFinished, false),
		transcriptOf("L1", "R1M1", StateFinished, true),
	} {
		if err := s.write(tr, true); err != nil {
			t.Fatal(err)
		}
	}
	// The crash: the files are lost (a power loss before the page cache
	// reached the disk) and the store is never closed, so the journal
	// keeps its records and the lock is released by the process's end.
	lt, _ := s.league("L1")
	if err := lt.j.Close(); err != nil {
		t.Fatal(err)
	}
	lt.lock.Release(false)
	if err := os.Remove(lt.path("R1M1")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lt.path("R1M2"), nil, 0o644); err != nil { // torn
		t.Fatal(err)
	}

	if n := journalLines(t, root, "L1"); n != 4 {
		t.Fatalf("journals hold %d records, want 4", n)
	}

	s2 := newTranscripts(root)
	defer s2.close()
	got, err := s2.read("L1", "R1M1")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reported {
		t.Errorf("R1M1 rebuilt from an older record: reported = false")
	}
	if _, err := ReadTranscript(root, "L1", "R1M2"); err != nil {
		t.Errorf("R1M2 not rebuilt: %v", err)
	}
	if n := journalLines(t, root, "L1"); n != 1 {
		t.Errorf("journals hold %d records after the crashed one was recovered, want the live referee's 1", n)
	}
	if err := live.close(); err != nil {
		t.Fatal(err)
	}
	if n := journalLines(t, root, "L1"); n != 0 {
		t.Errorf("journals hold %d records after the live referee closed, want 0", n)
	}
}

// A file that is newer than the crashed referee's record (the match was
// played again elsewhere) is left as it is.
func TestRecoveryKeepsANewerFile(t *testing.T) {
	root := t.TempDir()
	s := newTranscripts(root)
	old := transcriptOf("L1", "R1M1", StateFinished, false)
	old.LastUpdated = "2026-01-01T00:00:00Z"
	if err := s.write(old, true); err != nil {
		t.Fatal(err)
	}
	newer := transcriptOf("L1", "R1M1", StateFinished, true)
	newer.LastUpdated = "2026-01-01T00:00:05Z"
	s2 := newTranscripts(root)
	if err := s2.write(newer, true); err != nil {
		t.Fatal(err)
	}
	lt, _ := s.league("L1")
	_ = lt.j.Close()
	lt.lock.Release(false)
	s3 := newTranscripts(root)
	defer s3.close()
	got, err := s3.read("L1", "R1M1")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Reported {
		t.Error("recovery replaced a newer file with an older record")
	}
	_ = s2.close()
}

// The journal does not grow with the league: every compactEvery records
// the files are made durable and their records dropped; close empties it.
// Every match's file holds its newest transcript throughout.
func TestTranscriptJournalIsCompacted(t *testing.T) {
	root := t.TempDir()
	s := newTranscripts(root)
	const matches = compactEvery + compactEvery/2
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < matches; i += 8 {
				id := fmt.Sprintf("M%d", i)
				if err := s.write(transcriptOf("L1", id, StateFinished, false), true); err != nil {
					t.Error(err)
					return
				}
				if err := s.write(transcriptOf("L1", id, StateFinished, true), true); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	lt, _ := s.league("L1")
	lt.wg.Wait()
	if n := journalLines(t, root, "L1"); n >= 2*matches {
		t.Errorf("journal holds %d records after %d writes: never compacted", n, 2*matches)
	}
	if st := lt.j.Stats(); st.Syncs >= st.Records && st.Records > 0 {
		t.Logf("no fsync shared: %d syncs for %d records", st.Syncs, st.Records)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if n := journalLines(t, root, "L1"); n != 0 {
		t.Errorf("journal holds %d records after close, want 0", n)
	}
	for i := 0; i < matches; i++ {
		tr, err := ReadTranscript(root, "L1", fmt.Sprintf("M%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if !tr.Reported {
			t.Fatalf("M%d: file holds an older transcript", i)
		}
	}
	// After close a write still reaches a durable file.
	if err := s.write(transcriptOf("L1", "late", StateAborted, false), true); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTranscript(root, "L1", "late"); err != nil {
		t.Fatal(err)
	}
}

// A finished match's transcript is durable in the journal at once, but its
// file is written only when the match is settled (its report answered),
// once: until then reads are served from the journal's record, and a
// referee that stops first writes the file.
func TestMatchFileIsWrittenOnceWhenSettled(t *testing.T) {
	root := t.TempDir()
	s := newTranscripts(root)
	if err := s.write(transcriptOf("L1", "R1M1", StateFinished, false), false); err != nil {
		t.Fatal(err)
	}
	lt, _ := s.league("L1")
	if _, err := os.Stat(lt.path("R1M1")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file of an unsettled match: %v, want none yet", err)
	}
	if got, err := s.read("L1", "R1M1"); err != nil || got.State != StateFinished {
		t.Fatalf("read before the file: %+v, %v", got, err)
	}
	if n := journalLines(t, root, "L1"); n != 1 {
		t.Fatalf("journal holds %d records, want 1", n)
	}
	if err := s.write(transcriptOf("L1", "R1M1", StateFinished, true), true); err != nil {
		t.Fatal(err)
	}
	// The league's writer creates the file off the match's path.
	if tr, err := settledFile(root, "L1", "R1M1"); err != nil || !tr.Reported {
		t.Fatalf("file after settling: %+v, %v", tr, err)
	}
	// Stopping writes the files of matches not yet settled.
	if err := s.write(transcriptOf("L1", "R1M2", StateFinished, false), false); err != nil {
		t.Fatal(err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if tr, err := ReadTranscript(root, "L1", "R1M2"); err != nil || tr.State != StateFinished {
		t.Fatalf("file of the unsettled match after close: %+v, %v", tr, err)
	}
}

// A compaction takes a match's record while the match is still
// unsettled, and the match settles before the compaction writes the
// files it took: the settled file stays, the older record is not written
// over it, and the settled record stays in the journal until its file is
// flushed. (The interleaving is played step by step here: compact is
// take, then flush.)
func TestCompactionNeverWritesAnOlderTranscriptOverANewer(t *testing.T) {
	root := t.TempDir()
	s := newTranscripts(root)
	if err := s.write(transcriptOf("L1", "R1M1", StateFinished, false), false); err != nil {
		t.Fatal(err)
	}
	lt, _ := s.league("L1")
	lt.gate.Lock()
	lt.mu.Lock()
	taken := lt.dirty // what compact takes
	lt.dirty = map[string]*pending{}
	lt.mu.Unlock()
	lt.gate.Unlock()

	if err := s.write(transcriptOf("L1", "R1M1", StateFinished, true), true); err != nil {
		t.Fatal(err)
	}
	if err := lt.flush(taken); err != nil {
		t.Fatal(err)
	}
	if tr, err := settledFile(root, "L1", "R1M1"); err != nil || !tr.Reported {
		t.Fatalf("file after the flush of the older record: %+v, %v; want the settled transcript", tr, err)
	}
	if record := lt.newest("R1M1"); record == nil {
		t.Fatal("the settled record left the journal's pending set before its file was flushed")
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	if tr, err := ReadTranscript(root, "L1", "R1M1"); err != nil || !tr.Reported {
		t.Fatalf("file after close: %+v, %v; want the settled transcript", tr, err)
	}
}

// write is writeWith, as the recorder uses it.
func (s *transcripts) write(t *Transcript, file bool) error { return s.writeWith(t, file) }

// settledFile reads a match's file once the league's writer has written
// a settled transcript to it, or returns what it read after 5 s.
func settledFile(root, leagueID, matchID string) (*Transcript, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		tr, err := ReadTranscript(root, leagueID, matchID)
		if err == nil && tr.Reported || time.Now().After(deadline) {
			return tr, err
		}
		time.Sleep(time.Millisecond)
	}
}
