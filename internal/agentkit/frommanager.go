package agentkit

import (
	"context"
	"log/slog"

	"github.com/agentleague/league/leaguesdk"
)

// FromManager reports whether a notification of the manager's, of envelope
// env, may change the state of an agent (kind "player" or "referee") that
// the manager gave the token mine: it carries that token, or the manager
// gave none (a manager of another implementation; or the agent is not
// registered yet), and is trusted as it comes. Any other is a security
// event, logged on log: the caller acknowledges it, as the profile's
// tolerance asks, and changes nothing — else anyone could end an agent's
// league or announce it matches.
func FromManager(ctx context.Context, log *slog.Logger, env *leaguesdk.Envelope, mine, kind string) bool {
	if mine == "" || leaguesdk.TokensEqual(env.AuthToken, mine) {
		return true
	}
	what := "without the token the manager gave this " + kind
	if env.AuthToken != "" {
		what = "with a token that is not the one the manager gave this " + kind
	}
	log.LogAttrs(ctx, slog.LevelWarn, "security: "+string(env.MessageType)+" "+what+"; acknowledged and ignored",
		slog.String("message_type", string(env.MessageType)), slog.String("sender", env.Sender),
		slog.String("conversation_id", env.ConversationID))
	return false
}
