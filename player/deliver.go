package player

import (
	"context"
	"net/http"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player/internal/broadcast"
)

// handler is the Agent's HTTP handler ([Agent.Handler]). Its Deliver is
// the in-process hook of package arena, reached by a type
// assertion: no part of the author's API.
type handler struct {
	http.Handler
	a *Agent
}

// Deliver hands msg, a referee's or the manager's message to a player
// (ROUND_ANNOUNCEMENT excepted: an invitation tells the player what it
// needs of a match), to the player's own handlers, validated as on the
// wire but not encoded, and returns the reply it would send. An
// unregistered player answers as the player the message addresses.
func (h handler) Deliver(ctx context.Context, msg leaguesdk.Message) (leaguesdk.Message, error) {
	a := h.a
	if err := leaguesdk.Validate(msg); err != nil {
		return nil, err
	}
	switch m := msg.(type) {
	case *leaguesdk.GameInvitation:
		return a.onInvitation(ctx, m)
	case *leaguesdk.ChooseParityCall:
		return a.onChooseParity(ctx, m)
	case *leaguesdk.GameMoveCall:
		return a.onMove(ctx, m)
	case *leaguesdk.GameOver:
		return a.onGameOver(ctx, m)
	case *leaguesdk.GameError:
		return a.onGameError(ctx, m)
	case *leaguesdk.LeagueStandingsUpdate:
		if !a.fromManager(ctx, &m.Envelope) {
			return a.ack(m, ""), nil
		}
		var in broadcast.StandingsUpdate
		if err := asRead(m, &in); err != nil {
			return nil, err
		}
		a.keepTable(ctx, int(m.RoundID), in.Standings)
		return a.ack(m, ""), nil
	case *leaguesdk.RoundCompleted:
		return a.onRoundCompleted(ctx, m)
	case *leaguesdk.LeagueCompleted:
		var in broadcast.LeagueCompleted
		if err := asRead(m, &in); err != nil {
			return nil, err
		}
		return a.onLeagueCompleted(ctx, &in)
	}
	return nil, leaguesdk.NewError(leaguesdk.CodeMissingRequiredField, "player: Deliver takes a referee's or a manager's message to a player, not %s",
		msg.Header().MessageType)
}

// asRead gives msg as the player reads it from the wire (into, a type of
// package broadcast): its table as the rows came, as the player keeps it.
func asRead(msg leaguesdk.Message, into any) error {
	text, err := wirejson.Marshal(msg)
	if err != nil {
		return err
	}
	return wirejson.Unmarshal(text, into)
}
