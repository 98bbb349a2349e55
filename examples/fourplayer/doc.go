// Command fourplayer runs a whole Even/Odd league in one process: the league
// manager, two referees and four players with four different strategies,
// each a real HTTP server on the loopback interface, started in the
// exercise's order — manager, referees, players. It prints the league as it
// happens and, at the end, the final standings and the champion.
//
//	go run ./examples/fourplayer                 # manager :8000, referees :8001-8002, players :8101-8104
//	go run ./examples/fourplayer -ephemeral      # free ports instead
//	go run ./examples/fourplayer -players 6 -referees 3 -data /tmp/league
//	go run ./examples/fourplayer -ephemeral -players 200 -referees 10 -exit   # one line per round
//	go run ./examples/fourplayer -manager http://127.0.0.1:8000/mcp -ephemeral -players 200 -referees 10 -exit
//
// Flags:
//
//	-data       data root (./league-data): config/, data/ and logs/ of the league go under it
//	-ephemeral  listen on free ports instead of the exercise's fixed ones
//	-players    number of players, at least 2 (4); strategies random, always_even, always_odd, history in turn
//	-referees   number of referees, at least 1 (2); each runs its share of a round's matches at
//	            once (at least 2), so that every match of a round runs together
//	-progress   match (a line per match), round (one line per round: matches done, matches/s, time left),
//	            or auto (the default: per match up to 10 players; per round with -manager)
//	-exit       exit once the league has completed (default: keep serving until Ctrl-C)
//	-keep N     keep the files of only the last N leagues under -data, this one included (0: all)
//	-manager    run no manager: join the manager at this endpoint (http://host:port/mcp) with the
//	            referees and players, and follow its league through its GET /api/state; the manager
//	            is started on its own with -min-players set to -players (see docs/PERFORMANCE.md)
//
// With -manager the manager is a process of its own, so its memory and
// CPU can be read apart from the agents' (its GET /metrics serves
// league_heap_live_bytes and league_heap_live_peak_bytes). The command
// waits up to a minute for that manager to answer, so both may be started
// together; a manager that stops answering later is polled again, since it
// may be restarting.
//
// A league of hundreds of players in one process spends about a sixth of
// its processor time collecting garbage; the runtime's GOGC environment
// variable trades memory for it (GOGC=200: about 5 % less processor time
// for 40 % more memory in a 400-player league; docs/PERFORMANCE.md, "Where
// the rest goes"). The command leaves the runtime's default alone.
//
// The manager's dashboard is at http://127.0.0.1:8000/. Once the league has
// completed and the champion is printed, every agent keeps serving, so the
// dashboard stays up, until Ctrl-C, which stops every agent cleanly and
// exits 0; with -exit the command exits 0 as soon as the champion is
// printed. Each run is a new league, named after the time it started, so
// the data root keeps the earlier ones; at the end the command says how much
// the league's files took and, when the data root holds several leagues,
// how much they all take (-keep N keeps only the last N). A port in use stops it at once with
// a hint to use -ephemeral; Ctrl-C before the end exits 1. Ctrl-C stops the
// referees first: the matches they have in flight end and are reported
// while the manager and the players still serve, so no match that started
// is left unreported; then the manager and the players stop.
package main
