// Package arena measures strategies against each other: it plays a
// round-robin between them, repeated, with the real game rules and the
// real player behaviour, and reports what each earned with a confidence
// interval.
//
//	report, err := arena.Run(ctx, arena.Config{
//		Entries: []arena.Entry{
//			arena.Ready("random"), arena.Ready("history"),
//			{Name: "mine", Strategy: mine},
//			arena.Remote("http://127.0.0.1:8101/mcp"), // a running player, in any language
//		},
//		Rounds: 1000, // every pair meets 1000 times
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	report.WriteTable(os.Stdout)
//
// Each Go strategy is played by a [player.Agent] of this process, through
// the in-process hook of its handler: the referee's messages reach it without a socket
// or any encoding, and it answers with its deadline safety and fallback,
// keeps its History and calls its Learner and StandingsObserver, as in a
// league. A URL is played over HTTP with the same messages. The games are
// those of a referee ([rules.EvenOdd], or any [rules.Rules]), and the
// run is reproducible: every random draw derives from [Config.Seed].
//
// The [Report] gives, per entry, the matches played, won, drawn and lost,
// the points per match with a 95 % confidence interval, the gain over
// random play in the even/odd game, a rating on the Elo scale that follows
// the points per match (the ranking follows it), the moves its player
// answered with its fallback because the strategy failed or was late
// (flagged, with a warning that says why, beyond [FallbackLimit] of its
// moves: [Standing.FallbackCause]), and the
// points per match against each other entry. Even/odd is mostly chance:
// read the intervals, not the ranks. [Config.League] plays
// whole leagues instead (a manager, referees and players over an
// in-memory network, package inmem).
//
// The command examples/arena runs it from a terminal.
package arena
