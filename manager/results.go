package manager

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/agentleague/league/leaguesdk"
)

// handleReport serves report_match_result. A result is accepted only from
// a referee the match was given to, and recorded once: the first report
// is written durably before it is acknowledged RECORDED, and every later
// report of the same match is acknowledged DUPLICATE and not recorded.
//
// "Given to" means every referee start_match was sent to for the match,
// as the assignment journal keeps them across restarts: a referee the
// match was taken from (because it did not report in time, or because a
// restarted manager could not reach it) still counts. When its report
// arrives before the new referee's, it is the result that counts, since
// the game was played; its report after the match is recorded is a
// DUPLICATE, never refused.
func (m *Manager) handleReport(_ context.Context, _ *leaguesdk.Request, rep *leaguesdk.MatchResultReport) (*leaguesdk.Ack, error) {
	_, refID := leaguesdk.SplitSender(rep.Sender)
	if m.cfg.Insecure {
		m.mu.Lock()
		if mt := m.matchLocked(rep.MatchID); m.refByID[refID] == nil && mt != nil {
			refID = mt.holder()
			if refID == "" {
				refID = mt.RefereeID
			}
		}
		m.mu.Unlock()
	}
	ack := func(status leaguesdk.AckStatus) *leaguesdk.Ack {
		token := m.replyToken(&rep.Envelope) // the referee's own, never to anyone else
		return &leaguesdk.Ack{
			Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgAck, leaguesdk.LeagueManagerSender, token, rep.ConversationID, m.cfg.Now()),
			Status:   status, Acknowledged: leaguesdk.MsgMatchResultReport, MatchID: rep.MatchID}
	}
	m.mu.Lock()
	mt, err := m.reportableLocked(rep, refID)
	m.mu.Unlock()
	if err == nil {
		err = m.checkReport(rep, refID, mt) // reportcheck.go: awaited, and consistent with the match
	}
	if err != nil {
		m.log.Warn("match result refused", slog.String("match_id", rep.MatchID), slog.String("sender", rep.Sender),
			slog.String("error", err.Error()))
		return nil, err
	}
	if err := checkResult(&rep.Result, mt.PlayerA, mt.PlayerB); err != nil {
		return nil, err
	}

	m.announcing.RLock()
	rec, status, err := m.record(mt, refID, rep.Result)
	recorded := err == nil && status == leaguesdk.AckRecorded
	if recorded {
		m.markViews(viewStandings)
		m.emit(Event{Kind: EventMatchResult, RoundID: rec.RoundID, MatchID: rec.MatchID, PlayerA: rec.PlayerA, PlayerB: rec.PlayerB,
			RefereeID: refID, Result: &rec.Result, Message: describeResult(&rec)})
	}
	m.announcing.RUnlock()
	if err != nil {
		return nil, err
	}
	if recorded {
		m.wakeUp()
		m.lifecycleReport(&rec) // lifecycle.go
	}
	return ack(status), nil
}

// record records res as mt's result, durably, unless a result was recorded
// before. It returns the record and AckRecorded, or AckDuplicate.
func (m *Manager) record(mt *match, refID string, res leaguesdk.MatchResult) (MatchRecord, leaguesdk.AckStatus, error) {
	// One recorder per match at a time, through the lock of its run (made
	// for it if need be: a match has one until its result is recorded);
	// the check is repeated under it.
	m.mu.Lock()
	if mt.record != nil {
		m.mu.Unlock()
		return MatchRecord{}, leaguesdk.AckDuplicate, nil
	}
	run := mt.live()
	m.mu.Unlock()
	run.recording.Lock()
	defer run.recording.Unlock()
	m.mu.Lock()
	recorded := mt.record != nil
	m.mu.Unlock()
	if recorded {
		return MatchRecord{}, leaguesdk.AckDuplicate, nil
	}
	res.Status = resultStatus(&res)
	rec := MatchRecord{MatchID: mt.MatchID, RoundID: mt.RoundID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB,
		RefereeID: refID, Result: res, RecordedAt: m.cfg.Now().UTC()}
	// Durable before it is acknowledged: on disk when Append returns.
	if err := m.results.Append(context.Background(), resultFile{SchemaVersion: SchemaVersion,
		LastUpdated: leaguesdk.FormatTime(m.cfg.Now()), LeagueID: m.cfg.LeagueID, MatchRecord: rec}); err != nil {
		m.log.Error("cannot record a match result", slog.String("match_id", rec.MatchID), slog.String("error", err.Error()))
		// Not recorded: the referee may report again.
		return rec, "", &leaguesdk.Error{Code: leaguesdk.CodeConnectionError,
			Message: "the manager could not record the result; report it again"}
	}
	m.mu.Lock()
	mt.record, mt.status = compactRecord(&rec), leaguesdk.MatchFinished
	if holder := m.refByID[mt.holder()]; holder != nil {
		holder.active--
	}
	mt.run = nil // played: what its attempts were is in the assignment journal
	if mt.RefereeID != refID {
		mt.RefereeID = refID
	}
	m.records = append(m.records, mt)
	m.updatedAt = m.cfg.Now()
	m.mu.Unlock()
	return rec, leaguesdk.AckRecorded, nil
}

// reportableLocked returns the match a report is about, or the error to
// refuse it with. m.mu must be held.
func (m *Manager) reportableLocked(rep *leaguesdk.MatchResultReport, refID string) (*match, error) {
	if m.cfg.Insecure {
		// Without authentication the sender is taken at its word; a sender
		// that names no referee is taken to be the match's referee.
		mt := m.matchLocked(rep.MatchID)
		if mt == nil {
			return nil, &leaguesdk.Error{Code: leaguesdk.CodeMatchNotFound, Field: "match_id",
				Message: fmt.Sprintf("league %s has no match %q", m.cfg.LeagueID, rep.MatchID)}
		}
		return mt, nil
	}
	if _, isPlayer := m.playerByID[refID]; isPlayer {
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "sender",
			Message: fmt.Sprintf("%s is a player; only the referee a match was given to may report its result", refID)}
	}
	if m.refByID[refID] == nil {
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeRefereeNotRegistered, Field: "sender",
			Message: fmt.Sprintf("%q is not a referee of league %s", rep.Sender, m.cfg.LeagueID)}
	}
	if rep.LeagueID != m.cfg.LeagueID {
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeLeagueNotFound, Field: "league_id",
			Message: fmt.Sprintf("this manager runs league %s, not %s", m.cfg.LeagueID, rep.LeagueID)}
	}
	mt := m.matchLocked(rep.MatchID)
	if mt == nil {
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeMatchNotFound, Field: "match_id",
			Message: fmt.Sprintf("league %s has no match %q", m.cfg.LeagueID, rep.MatchID)}
	}
	// The set of referees the match was given to, restored from the
	// assignment journal after a restart (see restoreAssignments).
	if !mt.assigned(refID) {
		return nil, &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "sender",
			Message: fmt.Sprintf("match %s was not given to referee %s; only its referee may report its result", mt.MatchID, refID)}
	}
	return mt, nil
}

// describeResult says in a sentence how a match ended.
func describeResult(rec *MatchRecord) string {
	res := &rec.Result
	how := ""
	if res.Details.DrawnNumber != 0 {
		how = fmt.Sprintf(" (drawn number %d", res.Details.DrawnNumber)
		if len(res.Details.Choices) > 0 {
			how += fmt.Sprintf("; %s chose %s, %s chose %s", rec.PlayerA, res.Details.Choices[rec.PlayerA],
				rec.PlayerB, res.Details.Choices[rec.PlayerB])
		}
		how += ")"
	} else if res.Details.Reason != "" {
		how = " (" + res.Details.Reason + ")"
	}
	switch resultStatus(res) {
	case leaguesdk.ResultDraw:
		return fmt.Sprintf("%s: %s and %s drew%s", rec.MatchID, rec.PlayerA, rec.PlayerB, how)
	case leaguesdk.ResultTechnicalLoss:
		if res.Winner == "" {
			return fmt.Sprintf("%s: %s and %s both failed to play; no points%s", rec.MatchID, rec.PlayerA, rec.PlayerB, how)
		}
		return fmt.Sprintf("%s: %s wins by technical loss of its opponent%s", rec.MatchID, res.Winner, how)
	}
	return fmt.Sprintf("%s: %s beats %s%s", rec.MatchID, res.Winner, loser(rec), how)
}

func loser(rec *MatchRecord) string {
	if string(rec.Result.Winner) == rec.PlayerA {
		return rec.PlayerB
	}
	return rec.PlayerA
}
