// Package rules holds the games of the league on their own, apart from the
// agents that play them: the [Rules] and [Game] of a game type, the
// even/odd game ([EvenOdd]), the registry of game types ([Games]) and the
// round-robin schedule a league plays ([RoundRobin]). It imports no agent:
// the referee runs its games, the manager schedules its rounds with it,
// and the arena and a strategy author's own simulation play games with it
// directly.
//
// Play one even/odd game:
//
//	g, err := rules.EvenOdd{}.NewGame([2]string{"P01", "P02"}, crand.Reader)
//	...
//	_ = g.Apply("P01", "even")
//	_ = g.Apply("P02", "odd")
//	if g.Over() {
//		fmt.Println(g.Outcome().Reason)
//	}
//
// # Adding a game
//
// A game type is a value that implements [Rules]:
//
//  1. Info returns its [GameInfo]: a display name, the move types it asks
//     for and the valid choices of each, the number of players.
//  2. NewGame starts a [Game] between two player ids. The game draws
//     anything random from the reader it is given, so that a run can be
//     replayed.
//  3. The Game says whose move it waits for ([Game.Pending]), applies a
//     choice or refuses it with [InvalidChoice] or [OutOfTurn] (leaving
//     itself unchanged), and reports its [Outcome] once [Game.Over] holds.
//
// Then put it in a [Games] registry under its game type: the referee's
// Config.Games (the referee then advertises and plays it), or the arena's
// Config.GameType and Config.Rules. A move of type [MoveChooseParity] goes
// to a player as CHOOSE_PARITY_CALL; any other as GAME_MOVE_CALL, with the
// move request's Context. The referee keeps the wire (invitations,
// deadlines, retries, technical losses, reports); the rules only say who
// must move, what is legal and how a game ends.
package rules
