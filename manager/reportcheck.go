package manager

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/agentleague/league/leaguesdk"
)

// checkReport refuses a match report that a token alone must not make
// acceptable: one for a match that is not awaiting a result (never handed
// to a referee), and one that contradicts what the manager knows of the
// match (its round, its players). Every refusal is a security event: the
// league log and Config.OnEvent hear of it. A report of a match already
// recorded passes, so that it is acknowledged as a repeat.
func (m *Manager) checkReport(rep *leaguesdk.MatchResultReport, refID string, mt *match) error {
	m.mu.Lock()
	err := reportContradiction(rep, mt)
	m.mu.Unlock()
	if err == nil {
		return nil
	}
	m.emit(Event{Kind: EventSecurity, RoundID: mt.RoundID, MatchID: mt.MatchID, PlayerA: mt.PlayerA, PlayerB: mt.PlayerB,
		RefereeID: refID, Message: fmt.Sprintf("match result for %s from %q refused: %s", mt.MatchID, rep.Sender, err.Message)})
	m.log.Warn("security: match result refused", slog.String("match_id", mt.MatchID), slog.String("sender", rep.Sender),
		slog.String("error", err.Error()))
	return err
}

// reportContradiction returns why rep cannot be a true report of mt, or
// nil. m.mu must be held.
func reportContradiction(rep *leaguesdk.MatchResultReport, mt *match) *leaguesdk.Error {
	if mt.record != nil {
		return nil
	}
	awaited := mt.status == matchStarting || mt.status == leaguesdk.MatchRunning ||
		mt.status == matchResuming || // given out before a restart
		(mt.status == leaguesdk.MatchPending && mt.assignees.first != "") // taken from a late referee, not yet given again
	if !awaited {
		return &leaguesdk.Error{Code: leaguesdk.CodeOutOfTurn, Field: "match_id",
			Message: fmt.Sprintf("match %s is not being played: no result is awaited", mt.MatchID)}
	}
	if int(rep.RoundID) != mt.RoundID {
		return &leaguesdk.Error{Code: leaguesdk.CodeMatchNotFound, Field: "round_id",
			Message: fmt.Sprintf("match %s belongs to round %d, not %d", mt.MatchID, mt.RoundID, int(rep.RoundID))}
	}
	players := []string{mt.PlayerA, mt.PlayerB}
	named := []struct {
		field string
		ids   []string
	}{
		{"result.winner", []string{string(rep.Result.Winner)}},
		{"result.score", slices.Sorted(maps.Keys(rep.Result.Score))},
		{"result.details.choices", slices.Sorted(maps.Keys(rep.Result.Details.Choices))},
	}
	for _, n := range named {
		for _, id := range n.ids {
			if id != "" && !slices.Contains(players, id) {
				return &leaguesdk.Error{Code: leaguesdk.CodeInvalidChoice, Field: n.field,
					Message: fmt.Sprintf("%s names %q, who is not a player of match %s (%s vs %s)", n.field, id, mt.MatchID, mt.PlayerA, mt.PlayerB)}
			}
		}
	}
	return nil
}
