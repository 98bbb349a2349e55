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
// the realised points per match (those the drawn numbers gave) and the
// expected points per match (what the choices were worth on average over
// every number the referee could have drawn, for rules whose only chance
// is that number, [rules.DrawRules]), each with a 95 % confidence
// interval, the differ rate (how often its choice differed from its
// opponent's), the gain over random play in the even/odd game, a rating
// on the Elo scale that follows the expected points (the ranking follows
// it), the moves its player answered with its fallback because the
// strategy failed or was late (flagged, with a warning that says why,
// beyond [FallbackLimit] of its moves: [Standing.FallbackCause]), and the
// expected points per match against each other entry. Even/odd is mostly chance: the expected points
// take the referee's chance out. [Config.League] plays whole leagues
// instead (a manager, referees and players over an in-memory network,
// package inmem).
//
// In even/odd both players of a match expect the same points (1 each
// when they choose alike, 1.5 each when they differ), so a head-to-head
// between two versions of a strategy cannot say which is better. [Compare]
// answers that question: the candidate and the baseline each play the
// same pool of opponents on common random numbers, and a sequential test
// of the per-match differences of their expected points stops with a
// [Verdict] as soon as it knows:
//
//	v, err := arena.Compare(ctx, arena.CompareConfig{
//		Candidate: arena.Entry{Name: "v2", Strategy: v2},
//		Baseline:  arena.Entry{Name: "v1", Strategy: v1},
//		Pool:      []arena.Entry{arena.Ready("random"), arena.Ready("history"), arena.Ready("always_even")},
//	})
//	fmt.Println(v) // v2 vs v1 against 3 opponents: +0.012 points a match ± 0.004 (95 %), 1 200 matches each: better (α = β = 0.05, δ = 0.01)
//
// The command examples/arena runs it from a terminal.
package arena
