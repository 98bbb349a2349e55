package referee_test

import (
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/referee"
)

func TestNormalMatchWinAndDraw(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) { c.Rand = draws(8) })
	a := newTestPlayer(t, behaviour{Choice: leaguesdk.Even})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})

	req := e.match(a, b, "P01", "P02")
	rep := e.play(t, req)
	res := rep.Result
	if res.Status != leaguesdk.ResultWin || res.Winner != "P01" || res.Score["P01"] != 3 || res.Score["P02"] != 0 {
		t.Fatalf("result %+v, want WIN for P01 3-0", res)
	}
	if res.Details.DrawnNumber != 8 || res.Details.Choices["P01"] != leaguesdk.Even || res.Details.Choices["P02"] != leaguesdk.Odd {
		t.Fatalf("details %+v", res.Details)
	}
	if rep.Sender != "referee:REF01" || rep.LeagueID != testLeague || rep.RoundID != 1 || rep.GameType != leaguesdk.GameEvenOdd {
		t.Fatalf("report envelope %+v", rep)
	}

	// Both players were invited with their roles and asked with their own
	// standings, a deadline and the referee's token.
	for _, p := range []*testPlayer{a, b} {
		inv, par, _, errs, overs := p.counts()
		if inv != 1 || par != 1 || errs != 0 || overs != 1 {
			t.Fatalf("player calls: invitations %d, parity %d, errors %d, game overs %d", inv, par, errs, overs)
		}
		over := p.GameOvers()[0]
		if over.GameResult.Status != leaguesdk.ResultWin || over.GameResult.WinnerPlayerID != "P01" ||
			over.GameResult.DrawnNumber != 8 || over.GameResult.NumberParity != leaguesdk.Even {
			t.Fatalf("GAME_OVER %+v", over.GameResult)
		}
	}
	if a.invitations[0].RoleInMatch != leaguesdk.PlayerA || b.invitations[0].RoleInMatch != leaguesdk.PlayerB ||
		a.invitations[0].OpponentID != "P02" {
		t.Fatalf("invitations %+v / %+v", a.invitations[0], b.invitations[0])
	}
	call := a.parityCalls[0]
	if call.Context.YourStandings.Wins != 2 || call.Context.YourStandings.Losses != 1 || call.Context.OpponentID != "P02" {
		t.Fatalf("CHOOSE_PARITY_CALL context %+v", call.Context)
	}
	if b.parityCalls[0].Context.YourStandings.Draws != 1 {
		t.Fatalf("P02 standings %+v", b.parityCalls[0].Context)
	}
	dl, err := leaguesdk.ParseTime(call.Deadline)
	if err != nil {
		t.Fatal(err)
	}
	if sent, _ := leaguesdk.ParseTime(call.Timestamp); dl.Sub(sent) > time.Second {
		t.Fatalf("deadline %s too far from %s", call.Deadline, call.Timestamp)
	}
	if !leaguesdk.TokensEqual(call.AuthToken, mgr.token) || call.Sender != "referee:REF01" {
		t.Fatalf("call carries sender %q and another token", call.Sender)
	}

	// A draw: both choose odd.
	c := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	d := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	res = e.play(t, e.match(c, d, "P03", "P04")).Result
	if res.Status != leaguesdk.ResultDraw || res.Winner != "" || res.Score["P03"] != 1 || res.Score["P04"] != 1 {
		t.Fatalf("draw result %+v", res)
	}
}

func TestTranscriptRecordsLifecycleMessagesAndResult(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) { c.Rand = draws(3) })
	a := newTestPlayer(t, behaviour{Choice: leaguesdk.Even})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	req := e.match(a, b, "P01", "P02")
	e.play(t, req)

	var tr *referee.Transcript
	waitFor(t, 2*time.Second, func() bool {
		var err error
		tr, err = referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
		return err == nil && tr.Reported
	})
	var states []referee.State
	for _, l := range tr.Lifecycle {
		if _, err := leaguesdk.ParseTime(l.At); err != nil {
			t.Fatalf("lifecycle time %q: %v", l.At, err)
		}
		states = append(states, l.State)
	}
	want := []referee.State{referee.StateWaitingForPlayers, referee.StateCollectingChoices, referee.StateDrawingNumber, referee.StateFinished}
	if !slices.Equal(states, want) {
		t.Fatalf("lifecycle %v, want %v", states, want)
	}
	if tr.SchemaVersion != "1.0.0" || tr.LastUpdated == "" || tr.MatchID != req.MatchID || tr.RefereeID != "REF01" || len(tr.Players) != 2 {
		t.Fatalf("transcript header %+v", tr)
	}
	if tr.Result == nil || tr.Result.Winner != "P02" || tr.Result.DrawnNumber != 3 {
		t.Fatalf("transcript result %+v", tr.Result)
	}
	// Every exchange: invitation, choice and GAME_OVER to each player, and
	// the report, each sent and answered.
	count := map[string]int{}
	for _, m := range tr.Transcript {
		count[m.Direction+" "+m.Method]++
		if m.Direction != referee.Sent && m.Direction != referee.Received {
			t.Fatalf("direction %q", m.Direction)
		}
	}
	for _, k := range []string{"handle_game_invitation", "choose_parity", "notify_match_result"} {
		if count["sent "+k] != 2 || count["received "+k] != 2 {
			t.Fatalf("transcript counts %v (method %s)", count, k)
		}
	}
	if count["sent report_match_result"] != 1 || count["received report_match_result"] != 1 {
		t.Fatalf("transcript counts %v", count)
	}
	raw, err := os.ReadFile(referee.TranscriptPath(e.dataRoot, testLeague, req.MatchID))
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{mgr.token, a.token, b.token} {
		if contains(string(raw), tok) {
			t.Fatal("transcript holds an auth token")
		}
	}
	if !contains(string(raw), leaguesdk.Redacted) {
		t.Fatal("transcript shows no redacted token")
	}
}

func TestDeclineIsTechnicalLossWithoutRetry(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, nil)
	a := newTestPlayer(t, behaviour{Decline: true})
	b := newTestPlayer(t, behaviour{})
	res := e.play(t, e.match(a, b, "P01", "P02")).Result
	assertTechnicalLoss(t, res, "P01", "P02")
	if inv, par, _, errs, overs := a.counts(); inv != 1 || par != 0 || errs != 0 || overs != 1 {
		t.Fatalf("decliner: invitations %d, parity %d, errors %d, game overs %d", inv, par, errs, overs)
	}
	if _, par, _, _, overs := b.counts(); par != 0 || overs != 1 {
		t.Fatalf("opponent asked %d times for a choice, %d GAME_OVER", par, overs)
	}
	if over := b.GameOvers()[0]; over.GameResult.Status != leaguesdk.ResultTechnicalLoss || over.GameResult.WinnerPlayerID != "P02" {
		t.Fatalf("GAME_OVER %+v", over.GameResult)
	}
}

func assertTechnicalLoss(t *testing.T, res leaguesdk.MatchResult, offender, winner string) {
	t.Helper()
	if res.Status != leaguesdk.ResultTechnicalLoss || string(res.Winner) != winner ||
		res.Score[offender] != 0 || res.Score[winner] != 3 || len(res.Score) != 2 || res.Details.Reason == "" {
		t.Fatalf("result %+v, want technical loss of %s to %s", res, offender, winner)
	}
}

func TestSlowButInTimePlayerIsNotPenalised(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) {
		c.Rand = draws(7)
		c.JoinTimeout, c.MoveTimeout = 400*time.Millisecond, 500*time.Millisecond
	})
	a := newTestPlayer(t, behaviour{Choice: leaguesdk.Even, JoinDelay: 250 * time.Millisecond, MoveDelay: 350 * time.Millisecond})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	res := e.play(t, e.match(a, b, "P01", "P02")).Result
	if res.Status != leaguesdk.ResultWin || res.Winner != "P02" {
		t.Fatalf("result %+v", res)
	}
	if _, _, _, errs, _ := a.counts(); errs != 0 {
		t.Fatalf("slow player got %d GAME_ERRORs", errs)
	}
}

func TestSilentPlayerLosesInBoundedTime(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    behaviour
	}{
		{"silent at join", behaviour{SilentJoin: true}},
		{"silent at choice", behaviour{SilentMove: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := newTestManager(t)
			e := startReferee(t, mgr, tight)
			a := newTestPlayer(t, tc.b)
			b := newTestPlayer(t, behaviour{})
			start := time.Now()
			res := e.play(t, e.match(a, b, "P01", "P02")).Result
			took := time.Since(start)
			assertTechnicalLoss(t, res, "P01", "P02")
			// 4 attempts of 200 ms (join) or 300 ms (choice), 3 pauses of
			// 10 ms, then GAME_OVER and the report.
			if took > 2*time.Second {
				t.Fatalf("silent player held the match %s", took)
			}
			inv, par, _, errs, _ := a.counts()
			if tc.b.SilentJoin && (inv != 4 || par != 0) || tc.b.SilentMove && (inv != 1 || par != 4) {
				t.Fatalf("silent player: %d invitations, %d parity calls", inv, par)
			}
			if errs != 3 {
				t.Fatalf("silent player got %d GAME_ERRORs, want 3", errs)
			}
			for i, ge := range a.GameErrors() {
				if ge.ErrorCode != leaguesdk.CodeTimeout || !ge.Retryable || ge.MaxRetries != 3 || ge.RetryCount < 1 || ge.RetryCount > 3 {
					t.Fatalf("GAME_ERROR %d: %+v", i, ge)
				}
			}
			if _, _, _, errs, overs := b.counts(); errs != 0 || overs != 1 {
				t.Fatalf("opponent: %d GAME_ERRORs, %d GAME_OVERs", errs, overs)
			}
		})
	}
}

func TestInvalidParityChoice(t *testing.T) {
	t.Run("always EVEN: E004, GAME_ERROR, retries, technical loss", func(t *testing.T) {
		mgr := newTestManager(t)
		e := startReferee(t, mgr, nil)
		a := newTestPlayer(t, behaviour{InvalidMoves: 100})
		b := newTestPlayer(t, behaviour{})
		res := e.play(t, e.match(a, b, "P01", "P02")).Result
		assertTechnicalLoss(t, res, "P01", "P02")
		if _, par, _, _, _ := a.counts(); par != 4 {
			t.Fatalf("%d parity calls, want 4", par)
		}
		errs := a.GameErrors()
		if len(errs) != 3 {
			t.Fatalf("%d GAME_ERRORs", len(errs))
		}
		var counts []int
		for _, ge := range errs {
			if ge.ErrorCode != leaguesdk.CodeInvalidParityChoice || ge.GameState != string(referee.StateCollectingChoices) ||
				ge.MatchID == "" || ge.PlayerID != "P01" || ge.RetryInfo == nil {
				t.Fatalf("GAME_ERROR %+v", ge)
			}
			counts = append(counts, ge.RetryCount)
		}
		slices.Sort(counts)
		if !slices.Equal(counts, []int{1, 2, 3}) {
			t.Fatalf("retry counts %v", counts)
		}
	})
	t.Run("EVEN once, then even: the retry counts", func(t *testing.T) {
		mgr := newTestManager(t)
		e := startReferee(t, mgr, func(c *referee.Config) { c.Rand = draws(2) })
		a := newTestPlayer(t, behaviour{InvalidMoves: 1, Choice: leaguesdk.Even})
		b := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
		res := e.play(t, e.match(a, b, "P01", "P02")).Result
		if res.Status != leaguesdk.ResultWin || res.Winner != "P01" {
			t.Fatalf("result %+v", res)
		}
		if errs := a.GameErrors(); len(errs) != 1 || errs[0].RetryCount != 1 || errs[0].ErrorCode != leaguesdk.CodeInvalidParityChoice {
			t.Fatalf("GAME_ERRORs %+v", errs)
		}
	})
}

func TestGarbageRepliesAreTechnicalLoss(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, tight)
	a := newTestPlayer(t, behaviour{Garbage: true})
	b := newTestPlayer(t, behaviour{})
	start := time.Now()
	req := e.match(a, b, "P01", "P02")
	res := e.play(t, req).Result
	assertTechnicalLoss(t, res, "P01", "P02")
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %s", took)
	}
	if _, _, _, errs, _ := a.counts(); errs != 3 {
		t.Fatalf("%d GAME_ERRORs", errs)
	}
	// Four invitations (the client also tried its other wire forms on
	// each, which the transcript does not count).
	waitFor(t, 2*time.Second, func() bool {
		tr, err := referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
		return err == nil && tr.Reported
	})
	tr, _ := referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
	sent := 0
	for _, m := range tr.Transcript {
		if m.Direction == referee.Sent && m.Method == leaguesdk.MethodHandleGameInvitation && m.Peer == "P01" {
			sent++
		}
	}
	if sent != 4 {
		t.Fatalf("%d invitations sent to P01, want 4", sent)
	}
}

func TestPlayerDyingMidMatch(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, tight)
	a := newTestPlayer(t, behaviour{CrashAfterJoin: true})
	b := newTestPlayer(t, behaviour{})
	start := time.Now()
	res := e.play(t, e.match(a, b, "P01", "P02")).Result
	assertTechnicalLoss(t, res, "P01", "P02")
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %s", took)
	}
	if _, par, _, _, overs := b.counts(); par != 1 || overs != 1 {
		t.Fatalf("opponent: %d parity calls, %d GAME_OVER", par, overs)
	}
}

func TestBothPlayersFailing(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, tight)
	a := newTestPlayer(t, behaviour{SilentMove: true})
	b := newTestPlayer(t, behaviour{InvalidMoves: 100})
	start := time.Now()
	res := e.play(t, e.match(a, b, "P01", "P02")).Result
	if res.Status != leaguesdk.ResultTechnicalLoss || res.Winner != "" || res.Score["P01"] != 0 || res.Score["P02"] != 0 || len(res.Score) != 2 {
		t.Fatalf("result %+v", res)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %s", took)
	}
	// Declined and silent at the invitation: both lose too.
	c := newTestPlayer(t, behaviour{Decline: true})
	d := newTestPlayer(t, behaviour{SilentJoin: true})
	res = e.play(t, e.match(c, d, "P03", "P04")).Result
	if res.Status != leaguesdk.ResultTechnicalLoss || res.Winner != "" || res.Score["P03"]+res.Score["P04"] != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestTolerantReplies(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    behaviour
	}{
		{"callback style", behaviour{Callback: true}},
		{"request-shaped replies", behaviour{RequestShaped: true}},
		{"choice and accepted aliases", behaviour{ChoiceAlias: true}},
		{"callback under a foreign player id", behaviour{Callback: true, ForeignID: "agent_x"}},
		{"replies under a foreign player id", behaviour{ForeignID: "agent_x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mgr := newTestManager(t)
			e := startReferee(t, mgr, func(c *referee.Config) { c.Rand = draws(4) })
			ba, bb := tc.b, tc.b
			ba.Choice, bb.Choice = leaguesdk.Even, leaguesdk.Odd
			if tc.b.ForeignID != "" {
				ba.ForeignID, bb.ForeignID = "agent_alpha", "agent_beta"
			}
			a := newTestPlayer(t, ba)
			b := newTestPlayer(t, bb)
			res := e.play(t, e.match(a, b, "P01", "P02")).Result
			if res.Status != leaguesdk.ResultWin || res.Winner != "P01" || res.Details.Choices["P02"] != leaguesdk.Odd {
				t.Fatalf("result %+v", res)
			}
			for _, p := range []*testPlayer{a, b} {
				if inv, par, _, errs, _ := p.counts(); inv != 1 || par != 1 || errs != 0 {
					t.Fatalf("invitations %d, parity calls %d, GAME_ERRORs %d", inv, par, errs)
				}
			}
		})
	}
}

// A player whose callback overtakes its direct reply: the callback's
// answer ends the call the referee still waits on, so the match goes on at
// once, not at the deadline (a minute here; the player would hold each
// reply 20 s).
func TestCallbackEndsTheCallItAnswers(t *testing.T) {
	mgr := newTestManager(t)
	e := startReferee(t, mgr, func(c *referee.Config) {
		c.Rand = draws(4)
		c.JoinTimeout, c.MoveTimeout = time.Minute, time.Minute
	})
	a := newTestPlayer(t, behaviour{Callback: true, CallbackFirst: true, Choice: leaguesdk.Even})
	b := newTestPlayer(t, behaviour{Callback: true, CallbackFirst: true, Choice: leaguesdk.Odd})
	res := e.play(t, e.match(a, b, "P01", "P02")).Result
	if res.Status != leaguesdk.ResultWin || res.Winner != "P01" || res.Details.Choices["P02"] != leaguesdk.Odd {
		t.Fatalf("result %+v", res)
	}
	// The invitation and the parity call of each player were given up
	// once their callbacks arrived; the server sees it as the connection
	// closes, a moment after the referee went on.
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range []*testPlayer{a, b} {
		for p.givenUpCalls() < 2 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if n := p.givenUpCalls(); n != 2 {
			t.Fatalf("%d direct calls given up, want 2 (the invitation and the parity call)", n)
		}
	}
}

func TestReportRetriedUntilAcknowledged(t *testing.T) {
	mgr := newTestManager(t)
	mgr.failReports.Store(2)
	e := startReferee(t, mgr, nil)
	a := newTestPlayer(t, behaviour{})
	b := newTestPlayer(t, behaviour{Choice: leaguesdk.Odd})
	req := e.match(a, b, "P01", "P02")
	rep := e.play(t, req)
	if rep.MatchID != req.MatchID {
		t.Fatal(rep.MatchID)
	}
	if n := mgr.failReports.Load(); n >= 0 {
		t.Fatalf("the manager refused %d fewer reports than planned", n+1)
	}
	waitFor(t, 2*time.Second, func() bool {
		tr, err := referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
		return err == nil && tr.Reported
	})
	tr, _ := referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
	sent := 0
	for _, m := range tr.Transcript {
		if m.Direction == referee.Sent && m.Method == leaguesdk.MethodReportMatchResult {
			sent++
		}
	}
	if sent != 3 {
		t.Fatalf("report sent %d times, want 3 (two refused)", sent)
	}
}

func waitFor(t testing.TB, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReportRefusedForGoodIsNotRetried(t *testing.T) {
	mgr := newTestManager(t)
	mgr.refuseReport.Store(true)
	e := startReferee(t, mgr, nil)
	a := newTestPlayer(t, behaviour{})
	b := newTestPlayer(t, behaviour{})
	req := e.match(a, b, "P01", "P02")
	if _, err := e.start(t, req); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Second, func() bool {
		tr, err := referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
		if err != nil {
			return false
		}
		for _, m := range tr.Transcript {
			if m.Method == leaguesdk.MethodReportMatchResult && m.Direction == referee.Received {
				return contains(m.Error, "E013")
			}
		}
		return false
	})
	waitFor(t, 2*time.Second, func() bool { return e.ref.ActiveMatches() == 0 })
	if err := e.stop(t); err != nil {
		t.Fatal(err)
	}
	mgr.mu.Lock()
	refused := mgr.refused
	mgr.mu.Unlock()
	if refused != 1 {
		t.Fatalf("report sent %d times after a non-retryable refusal, want 1", refused)
	}
	if tr, _ := referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID); tr.Reported || tr.Result == nil {
		t.Fatalf("transcript reported=%v result=%+v", tr.Reported, tr.Result)
	}
}

// TestTranscriptIsWrittenWhenTheMatchEnds: while a match runs, its states
// are kept in memory and no transcript is on disk; the file appears when
// the match ends, with every state it went through.
func TestTranscriptIsWrittenWhenTheMatchEnds(t *testing.T) {
	e := startReferee(t, newTestManager(t), nil)
	a := newTestPlayer(t, behaviour{MoveDelay: 600 * time.Millisecond})
	b := newTestPlayer(t, behaviour{MoveDelay: 600 * time.Millisecond})
	req := e.match(a, b, "P01", "P02")
	if _, err := e.start(t, req); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 5*time.Second, func() bool {
		st, ok := e.ref.MatchState(req.MatchID)
		return ok && st.State == referee.StateCollectingChoices
	})
	if _, err := os.Stat(referee.TranscriptPath(e.dataRoot, testLeague, req.MatchID)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a transcript is on disk while the match is still collecting choices (stat: %v)", err)
	}
	e.mgr.waitReports(t, 1, 10*time.Second)
	var tr *referee.Transcript
	waitFor(t, 5*time.Second, func() bool {
		var err error
		tr, err = referee.ReadTranscript(e.dataRoot, testLeague, req.MatchID)
		return err == nil && tr.Reported
	})
	if n := len(tr.Lifecycle); n < 3 || tr.Lifecycle[0].State != referee.StateWaitingForPlayers ||
		tr.Lifecycle[n-1].State != referee.StateFinished || tr.Result == nil {
		t.Fatalf("transcript written at the end lacks states or the result: %+v", tr)
	}
}
