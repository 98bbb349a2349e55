package referee_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

// journals returns the transcript journals open under root for the test
// league.
func journals(t *testing.T, root string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "data", "matches", testLeague, ".journal", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// Two referees of one process share a Store: their transcripts go to one
// journal, a referee that stops leaves the Store to the other, a match
// one of them has decided is not played again by the other, and closing
// the Store leaves every match's file.
func TestRefereesShareAStore(t *testing.T) {
	root := t.TempDir()
	store, err := referee.OpenStore(root)
	if err != nil {
		t.Fatal(err)
	}
	mgr := newTestManager(t)
	shared := func(c *referee.Config) { c.DataRoot, c.Store = "", store }
	a, b := startReferee(t, mgr, shared), startReferee(t, mgr, shared)
	p1, p2 := newTestPlayer(t, behaviour{}), newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})

	first := b.play(t, b.match(p1, p2, "P01", "P02"))
	// A's match is decided and its GAME_OVER delivered, but its report is
	// answered 503 for now: the match is in the journal only.
	mgr.failReports.Store(1 << 20)
	m2 := a.match(p1, p2, "P01", "P02")
	if resp, err := a.start(t, m2); err != nil || resp.Status != leaguesdk.StatusAccepted {
		t.Fatalf("start_match on A: %+v, %v", resp, err)
	}
	waitFor(t, 10*time.Second, func() bool { return len(p1.GameOvers()) == 2 && len(p2.GameOvers()) == 2 })
	if n := len(journals(t, root)); n != 1 {
		t.Fatalf("%d transcript journals for two referees sharing a store, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(root, "data", "matches", testLeague, m2.MatchID+".json")); err == nil {
		t.Fatal("the file of a match not yet reported is written; want it in the journal only")
	}

	// The manager, tired of waiting, gives the match to B: B knows it from
	// the store and reports A's result, without inviting anyone again.
	invitations, _, _, _, _ := p1.counts()
	m2b := *m2
	m2b.Envelope = leaguesdk.NewEnvelope(leaguesdk.MsgStartMatch, leaguesdk.LeagueManagerSender, mgr.token, "", time.Now())
	resp, err := b.start(t, &m2b)
	if err != nil || resp.Status != leaguesdk.StatusAccepted || !strings.Contains(string(resp.Reason), "already finished") {
		t.Fatalf("start_match on B of a match A decided: %+v, %v", resp, err)
	}
	mgr.failReports.Store(0)
	reports := mgr.waitReports(t, 3, 10*time.Second)
	for _, r := range reports[1:] {
		if r.MatchID != m2.MatchID || r.Result.Winner != reports[1].Result.Winner || r.Result.Details.DrawnNumber != reports[1].Result.Details.DrawnNumber {
			t.Fatalf("reports of %s differ or name another match: %+v", m2.MatchID, reports[1:])
		}
	}
	if again, _, _, _, _ := p1.counts(); again != invitations {
		t.Fatalf("the match was played again: %d invitations, %d before", again, invitations)
	}

	// A stops; the store stays open for B.
	if err := a.stop(t); err != nil {
		t.Fatal(err)
	}
	third := b.play(t, b.match(p1, p2, "P01", "P02"))
	if n := len(journals(t, root)); n != 1 {
		t.Fatalf("%d transcript journals after A stopped, want the shared one", n)
	}
	if err := b.stop(t); err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(journals(t, root)); n != 0 {
		t.Fatalf("%d transcript journals left after Close, want none", n)
	}
	for _, id := range []string{first.MatchID, m2.MatchID, third.MatchID} {
		tr, err := referee.ReadTranscript(root, testLeague, id)
		if err != nil || tr.Result == nil {
			t.Fatalf("transcript of %s after Close: %+v, %v", id, tr, err)
		}
	}
}

// OpenStore names a data root it cannot use.
func TestOpenStoreOnAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := referee.OpenStore(file); err == nil || !strings.Contains(err.Error(), "open transcript store") {
		t.Fatalf("OpenStore on a file: %v, want an error", err)
	}
}
