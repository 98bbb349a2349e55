// Package player is how you take part in an Even/Odd Agent League: write a
// [Strategy], hand it to an [Agent], run it.
//
//	beat := player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (player.Parity, error) {
//		// Pick the other parity than the opponent usually does: no draw,
//		// and half the decisive games.
//		if c.History.Against(c.OpponentID).OpponentMostly() == player.Even {
//			return player.Odd, nil
//		}
//		return player.Even, nil
//	})
//	a, err := player.New(player.Config{
//		Name:     "Agent Alpha",
//		League:   "http://127.0.0.1:8000/mcp",
//		Addr:     "127.0.0.1:8101",
//		Strategy: beat,
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	if err := a.Run(ctx); err != nil { // serve, register, play until ctx ends (then nil)
//		log.Fatal(err)
//	}
//
// A strategy needs this package only: a [ParityCall] carries the match, the
// opponent, the player's [Role] and [PlayerRecord], the deadline and the
// player's [History]. Strategies that learn implement [Learner] or
// [StandingsObserver]; strategies for games other than even/odd implement
// [Mover]. Ready strategies to use and to learn from are in the
// player/strategies package.
//
// The Agent does the protocol: it registers (retrying while the manager is
// not up yet, stopping with a [*leaguesdk.RejectedError] when the manager refuses),
// answers every invitation at once, asks the strategy for each choice,
// records each result, and acknowledges every notification — in each wire
// form other implementations use.
//
// A strategy cannot make the player lose by a bug: its context ends a
// safety margin before the referee's deadline, and when it returns an
// error, panics, returns something other than [Even] or [Odd], or is late, the
// Agent answers in time with [Config.Fallback] and logs why.
//
// The history holds one record per match: a repeated GAME_OVER is recorded
// once, and the GAME_OVER of a replay (a greater attempt, see
// docs/protocol.md) replaces the earlier result. It is durable on disk
// under [Config.DataRoot] before a result is acknowledged, and a player
// started again registers as itself and finds it: package
// [github.com/agentleague/league/player/store] says how.
//
// The player's token goes only where it must: to its manager, and to the
// referee of a match the manager announced to it while that match runs.
// Anyone else (get_player_state, errors, strangers' calls) is answered
// without it, and only the manager sees the choice of a match in progress.
//
// The player writes its own log, JSON lines with tokens redacted, to
// <DataRoot>/logs/agents/<player_id>.log.jsonl, besides passing every
// record to [Config.Logger]; [Config.NoAgentLog] turns the file off.
package player
