// Package playertest checks a player endpoint — written in any language —
// against the league.v2 protocol profile, and says exactly what deviates
// and why.
//
// In a Go test, run the suite against a live player; each check becomes a
// subtest named by its id:
//
//	func TestConformance(t *testing.T) {
//		srv := httptest.NewServer(myPlayer.Handler())
//		defer srv.Close()
//		playertest.Run(t, srv.URL+"/mcp", playertest.Options{ChoiceDeadline: time.Second})
//	}
//
// Anywhere else, [Check] returns the same checks as a [Report]:
//
//	rep, err := playertest.Check(ctx, "http://127.0.0.1:8101/mcp")
//	for _, c := range rep.Checks {
//		fmt.Println(c) // PASS  health  GET http://127.0.0.1:8101/health → HTTP 200 {...}  [PROFILE §Transport]
//	}
//
// From a shell, for players in any language:
//
//	go run ./examples/conformance -player http://127.0.0.1:8101/mcp
//
// The kit plays a referee and a league manager. It sends strictly what the
// profile says (spec method names, flat params, full envelopes, integer
// ids, sender "referee:REF01" with a token) and reads the replies the way
// the project's own client does — tolerantly — so that "does it work"
// checks pass whenever a referee of this project could play with the
// player. So a player that refuses a spec method is sent the message again
// as tools/call, under the spec name or the player's own name for it found
// in its tools/list (receive_game_invitation, say, as MCP-native
// implementations serve it); when that is answered, the check that sent it
// reads that answer and warns that only this project's agents, which learn
// the name, can reach the player so. Each deviation from the strict profile is then reported by the
// one check that owns it: a warning when tolerant readers accept it
// (a request-shaped reply, a refused alternative wire form), a failure
// when a referee would not (parity "EVEN", a missing match_id, a late
// acknowledgement, a crash on malformed input).
//
// The checks, in the order they run ([CheckIDs] lists them):
//
//   - health: GET /health answers 200 {"status":"healthy",...}.
//   - mcp.initialize, mcp.initialized, mcp.tools_list: the MCP lifecycle,
//     so that MCP clients can connect (refusing it is a warning, answering
//     it wrongly a failure).
//   - tool.handle_game_invitation.spec, tool.choose_parity.spec: the two
//     game calls in the spec form are answered with the right message.
//   - reply.shape: those replies are JSON-RPC 2.0 responses (id echoed,
//     Content-Type application/json) carrying the message itself as
//     result, with its own required fields (match_id, accept,
//     parity_choice).
//   - envelope.protocol, envelope.timestamp, envelope.sender,
//     envelope.conversation_id, envelope.match_id, envelope.player_id,
//     envelope.auth_token: one check per envelope field of those replies.
//   - timing.join_ack, timing.choice: the replies came within the join
//     deadline ([Options.Timeout]) and the choice deadline
//     ([Options.ChoiceDeadline]).
//   - choice.parity: the choice is exactly "even" or "odd".
//   - tool.<call>.tools_call, tool.<call>.message_type, tool.<call>.generic:
//     the other accepted wire forms (warnings only).
//   - reply.shapes: the kit calls as a referee of another implementation
//     does (game_invitation, the lower-case message type, as method; then
//     choose_parity for the same match) and reports the shapes in which
//     each reply carries its message: result, the bare message at the top
//     level, request-shaped (method + params). Referees of that dialect
//     read only the last two. A report only: it passes whatever the
//     shapes, and is skipped when no reply came.
//   - notify.*, receive.repeated_game_over: every notification a referee or
//     a manager sends is acknowledged, a repeated GAME_OVER too.
//   - receive.choice_without_invitation: a parity call for a match never
//     announced is answered.
//   - concurrency.two_matches: two matches at once, each answered under its
//     own match_id.
//   - tool.get_player_state: the debugging tool answers (a warning only
//     when it is missing).
//   - secret.state_no_token: get_player_state asked by a caller that proves
//     nothing (a made-up token) answers no token, in its envelope or in
//     the state: a token lets its holder speak as the player.
//   - robust.malformed: malformed requests get JSON-RPC errors and the
//     player still answers a valid call after each.
//
// A check cites the profile section it enforces ([Result.Rule]). Checks are
// independent: each looks at one aspect of the exchanges, so a player with
// one defect fails one check. A check with nothing to look at (its
// exchange failed, as another check reports) is skipped.
//
// A player learns its id and token when it registers, which the kit does
// not do: it addresses the player as "P01" unless [Options.PlayerID] says
// otherwise, and checks the player's token only when [Options.PlayerToken]
// gives it. With a token, the kit first announces its spec-form match as the
// manager would (ROUND_ANNOUNCEMENT carrying the player's token): a player
// answers a referee with its token only about a match its manager
// announced.
package playertest
