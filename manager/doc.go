// Package manager is the league manager of the Even/Odd Agent League: the
// source of truth of one league. It registers referees and players, starts
// the league, plays a round-robin in rounds, hands each match to a referee,
// records each result exactly once, keeps the standings, answers queries,
// and keeps all of it on disk so that a manager started again resumes the
// league where it stopped.
//
// Quick start:
//
//	m, err := manager.New(manager.Config{
//		LeagueID:   "league_2025_even_odd",
//		Addr:       "127.0.0.1:8000",
//		DataRoot:   "./league-data",
//		MinPlayers: 4,
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	if err := m.Run(ctx); err != nil { // registration, every round, LEAGUE_COMPLETED; then queries until ctx ends (then nil)
//		log.Fatal(err)
//	}
//
// # Registration and start
//
// Referees (register_referee) and players (register_player) get ids in
// order — REF01, REF02, … and P01, P02, … (P100 after P99) — and a token
// that every later message must carry. A registration is REJECTED, with a
// reason, when it declares a protocol_version older than 2.0.0, does not
// play the league's game, would exceed [Config.MaxPlayers], uses the contact
// endpoint of an agent already registered (an agent presenting its own
// token again is answered with its id and token instead), or, for players,
// arrives after the start. Referees may join a running league.
//
// The league starts when [Config.MinPlayers] players and a referee are
// registered, when [Config.RegistrationWindow] has passed with at least two
// players and a referee, or on start_league carrying [Config.AdminToken]
// ([Manager.Start] does the same for programs that embed the manager).
//
// # Rounds
//
// The schedule is [RoundRobin] over the players in registration order. For
// each round the manager sends ROUND_ANNOUNCEMENT to every player, then
// start_match to referees: all matches of the round in parallel over every
// referee of the game, least loaded first (among equally loaded referees,
// one that had either player in the round before, whose connection to the
// player is likely still open), never more at once on a referee than its
// max_concurrent_matches (further matches wait for room). A
// referee that cannot be reached or refuses loses the match to another; one
// that does not report within [Config.ReportTimeout] too. A result is accepted
// only from a referee the match was given to and recorded once; later
// reports of the same match are acknowledged DUPLICATE. A referee the
// match was taken from still counts as one it was given to: if its late
// report arrives first, that result stands (the game was played), and the
// new referee's report is the duplicate. After the round,
// every player gets LEAGUE_STANDINGS_UPDATE and ROUND_COMPLETED; after the
// last, players and referees get LEAGUE_COMPLETED. Broadcasts go out
// concurrently, each call bounded by [Config.BroadcastTimeout], so an agent
// that is down delays nobody. A player LEAGUE_COMPLETED did not reach is
// sent it again while the manager runs, after [Config.RetryDelay] and then
// at doubling pauses up to [Config.MaxRetryDelay], until it acknowledges
// it: back again, it learns the results it missed.
//
// # Agent lifecycle
//
// The manager keeps every agent's [AgentState] (lifecycle.go): REGISTERED on
// registration, ACTIVE when the league starts, SUSPENDED when a call to it
// fails or a referee reports that it did not answer, ACTIVE again when a
// call or a GET /health probe (each suspended agent at most once per
// [Config.ProbeInterval]) succeeds, SHUTDOWN after [Config.MaxFails]
// consecutive failures and for everyone at the league's end. A SHUTDOWN
// referee gets no more matches; a SHUTDOWN player no more broadcasts, and
// start_match names it in shutdown_players so that the referee makes one
// quick attempt before the technical loss. Registering again with its own
// token makes an agent ACTIVE. Each transition is an agent_state event and
// a line of data/leagues/<league_id>/lifecycle.jsonl, replayed on resume.
//
// # Standings
//
// [ComputeStandings] derives the table from the recorded results only: win
// 3, draw 1, loss 0; a technical loss is a loss for the offender and a win
// for its opponent; when both failed, both lose. [Config.Tiebreakers] orders
// equal points (default points, wins, draws, player_id; head_to_head is
// available).
//
// # Security
//
// Every message after registration must carry the token issued to the agent
// its sender names (E011 without a token, E012 with another agent's);
// results only from a referee the match was given to (E012). The manager
// sends each referee its own token in start_match and each player its own
// token in broadcasts. [Config.Insecure] turns authentication off for third-party
// agents that do not send tokens; use it only on a trusted network.
//
// # Files and resuming
//
// Under [Config.DataRoot]: config/system.json, config/leagues/<league_id>.json,
// data/leagues/<league_id>/standings.json and rounds.json, the manager's
// recoverable state data/leagues/<league_id>/state.json (mode 0600: it
// holds the tokens), the recorded results, one JSON line each, in
// data/leagues/<league_id>/results.jsonl, the league log
// logs/league/<league_id>/league.log.jsonl and the agent log
// logs/agents/league_manager.log.jsonl. Every file is replaced atomically
// or appended to; a result is on disk before its report is acknowledged,
// and results that arrive together share one write and one fsync (group
// commit). Every
// start_match is appended to data/leagues/<league_id>/assignments.jsonl
// (flushed to disk) before it is sent.
//
// [New] opens the journals and logs; [Manager.Run] releases them when it returns, and
// Close does for a manager whose [Manager.Handler] is served by someone else (or
// that is never run), so a second manager can then open the same data root.
//
// A manager started on the same data root with the same league id resumes:
// agents keep their ids and tokens, recorded results stay and finished
// matches are not played again. A match that was handed out and not
// recorded stays with its referee: the manager asks that referee
// (get_match_state; a finished match is handed to it again, unchanged, so
// that it reports again) and waits for its report up to
// Config.ReportTimeout. Only when that referee cannot be reached, does not
// know the match, or does not report in time is the match handed out
// again, as a new attempt. A report from any referee a match was given to,
// before or after the restart, is accepted until the match is recorded, and
// acknowledged DUPLICATE after that. start_match carries the attempt number
// and the referee passes it on in GAME_OVER, so that a player replaces the
// result of an earlier attempt by the replay's (see docs/protocol.md,
// "Replays and attempts").
//
// A data root holds league after league ([LeagueFiles] lists a league's
// files). A manager started on a data root where its league has completed
// starts the next league of the series, <league_id>-2, <league_id>-3…,
// unless [Config.ShowCompleted] keeps the completed one on show; a completed
// league refuses every registration, saying it is over. [Config.Keep]
// removes the files of all but the last leagues when the manager starts,
// and [LeagueUsage] says how much a league's files take.
//
// # HTTP surface
//
// Handler serves the protocol on POST /mcp (and POST /), GET /health, the
// [Snapshot] as JSON on GET /api/state (a page of its lists with ?limit=N),
// the viewer's answers on GET /api/view/… (a match, a player, the league's
// course and its standings after any round, read by view.html), and the
// live dashboard on every other GET path. A [Viewer] serves the same pages
// for any league of a data root once its manager has stopped, and writes
// one as a self-contained HTML file.
package manager
