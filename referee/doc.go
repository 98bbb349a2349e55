// Package referee is the referee agent of the league: it registers with a
// league manager, accepts matches (start_match) within its capacity, runs
// each match as the protocol's state machine and reports every result to
// the manager exactly once.
//
// Quick start:
//
//	ref, err := referee.New(referee.Config{
//		Name:   "Referee Alpha",
//		League: "http://127.0.0.1:8000/mcp",
//		Addr:   "127.0.0.1:8001",
//	})
//	if err != nil {
//		log.Fatal(err)
//	}
//	if err := ref.Run(ctx); err != nil { // serves, registers, runs matches until ctx ends (then nil)
//		log.Fatal(err)
//	}
//
// A match goes WAITING_FOR_PLAYERS (GAME_INVITATION to both players at
// once, GAME_JOIN_ACK within [Config.JoinTimeout]) → COLLECTING_CHOICES
// (CHOOSE_PARITY_CALL to both at once, each answer within
// [Config.MoveTimeout]) → DRAWING_NUMBER (a number 1–10 from crypto/rand) →
// FINISHED (GAME_OVER to both players, MATCH_RESULT_REPORT to the manager,
// retried until acknowledged). A player that fails a call is sent a
// GAME_ERROR and asked again, up to [Config.Retries] times; a player that
// never answers in time, declines, or never gives a valid choice loses by
// TECHNICAL_LOSS (0 points, 3 for the opponent, 0 each when both fail).
// Each match is recorded at data/matches/<league_id>/<match_id>.json under
// [Config.DataRoot] (see [Transcript]). The record is made durable through a
// journal under data/matches/<league_id>/.journal/ (the matches that end
// together share one fsync) before GAME_OVER is sent and the result
// reported; after a crash, the next referee to open the league rebuilds
// the files from the journal. The journal is the referee's own, or that of
// a [Store] shared by the referees of one process ([Config.Store]), so that
// their matches share fsyncs too; such referees may share one HTTP client
// as well ([Config.HTTPClient]), and then dial each player once between
// them. The
// referee writes its own log, JSON lines with tokens redacted, to
// logs/agents/<referee_id>.log.jsonl under Config.DataRoot, besides
// passing every record to [Config.Logger]; [Config.NoAgentLog] turns the file
// off. It keeps its registration, token included, in
// data/referees/<referee_id>/registration.json (mode 0600): started again
// on the same data root with the same name, manager and endpoint, it
// registers with that token and the manager gives it back its id.
//
// With the defaults, a match whose player fails every call ends, and is
// reported, within about two and a half minutes: at most 4 × 5 s to join
// and 4 × 30 s to choose, 2 s before each retry, 5 s for GAME_OVER. A
// player that is silent holds up only its own match.
//
// Players are read tolerantly: a reply may be request-shaped, use choice
// for parity_choice or accepted for accept, carry a player id of the
// player's own (the reply is the called player's all the same), or be a
// bare acknowledgement followed by the real GAME_JOIN_ACK /
// CHOOSE_PARITY_RESPONSE sent as a request to the referee (callback style)
// within the same deadline. The referee cannot check a player's token, so
// a callback is matched by match_id and player id only; choices are never
// shown to anyone before the match is over, get_match_state included.
//
// Games are pluggable: [Rules] describes a game (who moves, what is legal,
// who won), [EvenOdd] is the league's game, and [Config.Games] maps game types
// to rules. Moves of other games go out as GAME_MOVE_CALL with
// valid_options, so alternating games (tic-tac-toe, say) run unchanged.
//
// Shutdown: when [Referee.Run]'s context ends the referee refuses new matches, lets
// in-flight matches finish for up to [Config.ShutdownGrace] and then aborts
// the rest. An aborted match is never reported: the manager, lacking a
// result, assigns it again. Shutdown(ctx) does the same with ctx as the
// deadline; Close aborts at once and releases the connections and the
// agent log. When serving fails Run returns the error at once, even while
// registration is still waiting for a manager that is down.
package referee
