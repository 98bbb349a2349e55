package player

import (
	"context"
	"net/http"

	"github.com/agentleague/league/leaguesdk"
)

// handler is the Agent's HTTP handler ([Agent.Handler]). Its Deliver is
// the in-process hook of package player/arena, reached by a type
// assertion: no part of the author's API.
type handler struct {
	http.Handler
	a *Agent
}

// Deliver hands msg to the player as if it had come on the wire, without
// encoding it or a server, and returns the reply the player sends on the
// wire: the same handlers as POST /mcp, with the same deadline safety and
// fallback, [History], [Learner] and [StandingsObserver]. It serves what a
// referee or a manager sends a player during a league (GAME_INVITATION,
// CHOOSE_PARITY_CALL, GAME_MOVE_CALL, GAME_OVER, GAME_ERROR,
// LEAGUE_STANDINGS_UPDATE, ROUND_COMPLETED, LEAGUE_COMPLETED); msg is
// validated as on the wire, and an invalid message, or one of another
// type, is refused with a [*leaguesdk.Error]. The player need not be
// registered: it then answers as the player the referee addresses, as a
// bare [Agent.Handler] does. ROUND_ANNOUNCEMENT is not among them: a
// referee's invitation tells the player what it needs of a match.
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
		a.observe(ctx, int(m.RoundID), m.Standings)
		return a.ack(m, ""), nil
	case *leaguesdk.RoundCompleted:
		return a.onRoundCompleted(ctx, m)
	case *leaguesdk.LeagueCompleted:
		return a.onLeagueCompleted(ctx, m)
	}
	return nil, leaguesdk.NewError(leaguesdk.CodeMissingRequiredField, "player: Deliver takes a referee's or a manager's message to a player, not %s",
		msg.Header().MessageType)
}
