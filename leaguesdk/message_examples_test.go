package leaguesdk_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

var update = flag.Bool("update", false, "rewrite docs/message-examples from the Go values in exampleMessages")

const examplesDir = "../docs/message-examples"

// Tokens of the example league: tok_ + 32 hex, one per agent.
const (
	exTokREF01 = "tok_7c1e4b9a2f6d3e8c5a0b9d4f1e7c2a6b"
	exTokP01   = "tok_2d8f6a1c9e4b7d3f0a5c8e2b6d9f1a4c"
	exTokP02   = "tok_9b3e7d1f5a2c8e4b6d0f3a7c1e5b9d2f"
	exTokAdmin = "tok_5e0a9c3f7b2d6e1a4c8f0b3d7a2e6c9f"
	exLeague   = "league_2025_even_odd"
)

// exAt is 2025-01-15 at the given time of day, the day of the example league.
func exAt(hh, mm, ss int) time.Time { return time.Date(2025, 1, 15, hh, mm, ss, 0, time.UTC) }

func env(t leaguesdk.MessageType, sender, token, conv string, at time.Time) leaguesdk.Envelope {
	return leaguesdk.NewEnvelope(t, sender, token, conv, at)
}

func roundPtr(r leaguesdk.RoundID) *leaguesdk.RoundID { return &r }

var exStandings = []leaguesdk.StandingRow{
	{Rank: 1, PlayerID: "P01", DisplayName: "Agent Alpha", Played: 1, Wins: 1, Points: 3},
	{Rank: 2, PlayerID: "P03", DisplayName: "Agent Gamma", Played: 1, Draws: 1, Points: 1},
	{Rank: 3, PlayerID: "P04", DisplayName: "Agent Delta", Played: 1, Draws: 1, Points: 1},
	{Rank: 4, PlayerID: "P02", DisplayName: "Agent Beta", Played: 1, Losses: 1},
}

// exampleMessages returns one realistic message of every type, following
// the example league of the protocol text: four players, two referees,
// match R1M1 between P01 and P02 refereed by REF01.
func exampleMessages() []leaguesdk.Message {
	const conv = "conv-r1m1-001"
	standingsData, _ := json.Marshal(leaguesdk.StandingsData{LeagueID: exLeague, RoundID: 1, Standings: exStandings})
	state, _ := json.Marshal(map[string]any{
		"match_id": "R1M1", "state": "COLLECTING_CHOICES", "player_A_id": "P01", "player_B_id": "P02",
		"choices_received": []string{"P01"}, "deadline": "2025-01-15T10:15:35Z",
	})
	return []leaguesdk.Message{
		&leaguesdk.RefereeRegisterRequest{
			Envelope: env(leaguesdk.MsgRefereeRegisterRequest, leaguesdk.NameSender("referee", "Referee Alpha"), "", "conv-ref-alpha-reg-001", exAt(10, 0, 0)),
			RefereeMeta: leaguesdk.RefereeMeta{DisplayName: "Referee Alpha", Version: "1.0.0", GameTypes: []string{leaguesdk.GameEvenOdd},
				ContactEndpoint: "http://localhost:8001/mcp", MaxConcurrentMatches: 2, ProtocolVersion: leaguesdk.ProtocolVersion},
		},
		&leaguesdk.RefereeRegisterResponse{
			Envelope: env(leaguesdk.MsgRefereeRegisterResponse, leaguesdk.LeagueManagerSender, exTokREF01, "conv-ref-alpha-reg-001", exAt(10, 0, 1)),
			Status:   leaguesdk.StatusAccepted, RefereeID: "REF01", LeagueID: exLeague,
		},
		&leaguesdk.LeagueRegisterRequest{
			Envelope: env(leaguesdk.MsgLeagueRegisterRequest, leaguesdk.NameSender("player", "Agent Alpha"), "", "conv-player-alpha-reg-001", exAt(10, 5, 0)),
			PlayerMeta: leaguesdk.PlayerMeta{DisplayName: "Agent Alpha", Version: "1.0.0", GameTypes: []string{leaguesdk.GameEvenOdd},
				ContactEndpoint: "http://localhost:8101/mcp", ProtocolVersion: leaguesdk.ProtocolVersion},
		},
		&leaguesdk.LeagueRegisterResponse{
			Envelope: env(leaguesdk.MsgLeagueRegisterResponse, leaguesdk.LeagueManagerSender, exTokP01, "conv-player-alpha-reg-001", exAt(10, 5, 1)),
			Status:   leaguesdk.StatusAccepted, PlayerID: "P01", LeagueID: exLeague,
		},
		&leaguesdk.RoundAnnouncement{
			Envelope: env(leaguesdk.MsgRoundAnnouncement, leaguesdk.LeagueManagerSender, exTokP01, "conv-round-1-announce", exAt(10, 10, 0)),
			LeagueID: exLeague, RoundID: 1,
			Matches: []leaguesdk.ScheduledMatch{
				{MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd, PlayerAID: "P01", PlayerBID: "P02", RefereeEndpoint: "http://localhost:8001/mcp"},
				{MatchID: "R1M2", GameType: leaguesdk.GameEvenOdd, PlayerAID: "P03", PlayerBID: "P04", RefereeEndpoint: "http://localhost:8002/mcp"},
			},
		},
		&leaguesdk.RoundCompleted{
			Envelope: env(leaguesdk.MsgRoundCompleted, leaguesdk.LeagueManagerSender, exTokP01, "conv-round-1-complete", exAt(10, 20, 5)),
			LeagueID: exLeague, RoundID: 1, MatchesCompleted: 2, NextRoundID: roundPtr(2),
			Summary: &leaguesdk.RoundSummary{TotalMatches: 2, Wins: 1, Draws: 1},
		},
		&leaguesdk.LeagueCompleted{
			Envelope: env(leaguesdk.MsgLeagueCompleted, leaguesdk.LeagueManagerSender, exTokP01, "conv-league-complete", exAt(12, 0, 0)),
			LeagueID: exLeague, TotalRounds: 3, TotalMatches: 6,
			Champion: &leaguesdk.Champion{PlayerID: "P01", DisplayName: "Agent Alpha", Points: 7},
			FinalStandings: []leaguesdk.StandingRow{
				{Rank: 1, PlayerID: "P01", DisplayName: "Agent Alpha", Played: 3, Wins: 2, Draws: 1, Points: 7},
				{Rank: 2, PlayerID: "P03", DisplayName: "Agent Gamma", Played: 3, Wins: 1, Draws: 2, Points: 5},
				{Rank: 3, PlayerID: "P04", DisplayName: "Agent Delta", Played: 3, Wins: 1, Draws: 1, Losses: 1, Points: 4},
				{Rank: 4, PlayerID: "P02", DisplayName: "Agent Beta", Played: 3, Draws: 2, Losses: 1, Points: 2},
			},
		},
		&leaguesdk.GameInvitation{
			Envelope: env(leaguesdk.MsgGameInvitation, "referee:REF01", exTokREF01, conv, exAt(10, 15, 0)),
			LeagueID: exLeague, RoundID: 1, MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd,
			RoleInMatch: leaguesdk.PlayerA, OpponentID: "P02", PlayerID: "P01",
		},
		&leaguesdk.GameJoinAck{
			Envelope: env(leaguesdk.MsgGameJoinAck, "player:P01", exTokP01, conv, exAt(10, 15, 1)),
			MatchID:  "R1M1", PlayerID: "P01", ArrivalTimestamp: "2025-01-15T10:15:01Z", Accept: true,
		},
		&leaguesdk.ChooseParityCall{
			Envelope: env(leaguesdk.MsgChooseParityCall, "referee:REF01", exTokREF01, conv, exAt(10, 15, 5)),
			MatchID:  "R1M1", PlayerID: "P01", GameType: leaguesdk.GameEvenOdd,
			Context:  leaguesdk.ParityContext{OpponentID: "P02", RoundID: 1, YourStandings: leaguesdk.PlayerRecord{}},
			Deadline: "2025-01-15T10:15:35Z",
		},
		&leaguesdk.ChooseParityResponse{
			Envelope: env(leaguesdk.MsgChooseParityResponse, "player:P01", exTokP01, conv, exAt(10, 15, 10)),
			MatchID:  "R1M1", PlayerID: "P01", ParityChoice: leaguesdk.Even,
		},
		&leaguesdk.GameOver{
			Envelope: env(leaguesdk.MsgGameOver, "referee:REF01", exTokREF01, conv, exAt(10, 15, 30)),
			MatchID:  "R1M1", GameType: leaguesdk.GameEvenOdd,
			GameResult: leaguesdk.GameResult{Status: leaguesdk.ResultWin, WinnerPlayerID: "P01", DrawnNumber: 8, NumberParity: leaguesdk.Even,
				Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd},
				Reason:  "P01 chose even, number was 8 (even)"},
		},
		&leaguesdk.MatchResultReport{
			Envelope: env(leaguesdk.MsgMatchResultReport, "referee:REF01", exTokREF01, "conv-r1m1-report", exAt(10, 15, 35)),
			LeagueID: exLeague, RoundID: 1, MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd,
			Result: leaguesdk.MatchResult{Winner: "P01", Score: map[string]int{"P01": 3, "P02": 0}, Status: leaguesdk.ResultWin,
				Details: leaguesdk.MatchDetails{DrawnNumber: 8, Choices: map[string]leaguesdk.Parity{"P01": leaguesdk.Even, "P02": leaguesdk.Odd}}},
		},
		&leaguesdk.LeagueStandingsUpdate{
			Envelope: env(leaguesdk.MsgLeagueStandingsUpdate, leaguesdk.LeagueManagerSender, exTokP01, "conv-round-1-standings", exAt(10, 20, 0)),
			LeagueID: exLeague, RoundID: 1, Standings: exStandings,
		},
		&leaguesdk.LeagueError{
			Envelope:  env(leaguesdk.MsgLeagueError, leaguesdk.LeagueManagerSender, "", "conv-query-standings-002", exAt(10, 25, 30)),
			ErrorCode: leaguesdk.CodeAuthTokenInvalid, ErrorName: leaguesdk.CodeAuthTokenInvalid.Name(),
			ErrorDescription:    "auth_token does not belong to sender \"player:P01\"",
			OriginalMessageType: leaguesdk.MsgLeagueQuery, Retryable: false,
			Context: map[string]any{"field": "sender", "action": "LEAGUE_QUERY"},
		},
		&leaguesdk.GameError{
			Envelope: env(leaguesdk.MsgGameError, "referee:REF01", exTokREF01, conv, exAt(10, 15, 36)),
			MatchID:  "R1M1", PlayerID: "P02", ErrorCode: leaguesdk.CodeTimeout, ErrorName: leaguesdk.CodeTimeout.Name(),
			ErrorDescription: "no CHOOSE_PARITY_RESPONSE before the deadline", AffectedPlayer: "P02",
			ActionRequired: "CHOOSE_PARITY_RESPONSE", GameState: "COLLECTING_CHOICES", Retryable: true, RetryCount: 1, MaxRetries: 3,
			RetryInfo:   &leaguesdk.RetryInfo{RetryCount: 1, MaxRetries: 3, NextRetryAt: "2025-01-15T10:15:38Z"},
			Consequence: "Technical loss if no response after retries",
		},
		&leaguesdk.LeagueQuery{
			Envelope: env(leaguesdk.MsgLeagueQuery, "player:P01", exTokP01, "conv-query-standings-001", exAt(10, 25, 0)),
			LeagueID: exLeague, QueryType: leaguesdk.QueryStandings,
		},
		&leaguesdk.LeagueQueryResponse{
			Envelope:  env(leaguesdk.MsgLeagueQueryResponse, leaguesdk.LeagueManagerSender, exTokP01, "conv-query-standings-001", exAt(10, 25, 0)),
			QueryType: leaguesdk.QueryStandings, Success: true, Data: standingsData,
		},
		&leaguesdk.GameMoveCall{
			Envelope: env(leaguesdk.MsgGameMoveCall, "referee:REF01", exTokREF01, conv, exAt(10, 15, 5)),
			MatchID:  "R1M1", PlayerID: "P01", GameType: leaguesdk.GameEvenOdd,
			MoveRequest: leaguesdk.MoveRequest{MoveType: "parity_choice", ValidOptions: []string{"even", "odd"},
				Context: json.RawMessage(`{"opponent_id":"P02","round_id":1}`)},
			Deadline: "2025-01-15T10:15:35Z",
		},
		&leaguesdk.GameMoveResponse{
			Envelope: env(leaguesdk.MsgGameMoveResponse, "player:P01", exTokP01, conv, exAt(10, 15, 10)),
			MatchID:  "R1M1", PlayerID: "P01", GameType: leaguesdk.GameEvenOdd,
			MoveData: leaguesdk.MoveData{MoveType: "parity_choice", Choice: "even"},
		},
		&leaguesdk.StartMatch{
			Envelope: env(leaguesdk.MsgStartMatch, leaguesdk.LeagueManagerSender, exTokREF01, "conv-r1m1-assign", exAt(10, 10, 1)),
			LeagueID: exLeague, RoundID: 1, MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd,
			PlayerAID: "P01", PlayerBID: "P02", PlayerAEndpoint: "http://localhost:8101/mcp", PlayerBEndpoint: "http://localhost:8102/mcp",
			Standings: map[string]leaguesdk.PlayerRecord{"P01": {}, "P02": {}},
		},
		&leaguesdk.StartMatchResponse{
			Envelope: env(leaguesdk.MsgStartMatchResponse, "referee:REF01", exTokREF01, "conv-r1m1-assign", exAt(10, 10, 1)),
			MatchID:  "R1M1", Status: leaguesdk.StatusAccepted,
		},
		&leaguesdk.StartLeague{
			Envelope: env(leaguesdk.MsgStartLeague, "operator:admin", exTokAdmin, "conv-start-league-001", exAt(10, 9, 0)),
			LeagueID: exLeague,
		},
		&leaguesdk.StartLeagueResponse{
			Envelope: env(leaguesdk.MsgStartLeagueResponse, leaguesdk.LeagueManagerSender, "", "conv-start-league-001", exAt(10, 9, 0)),
			LeagueID: exLeague, Status: leaguesdk.StartLeagueStarted, Players: 4, Referees: 2, TotalRounds: 3,
		},
		&leaguesdk.Ack{
			Envelope: env(leaguesdk.MsgAck, leaguesdk.LeagueManagerSender, exTokREF01, "conv-r1m1-report", exAt(10, 15, 35)),
			Status:   leaguesdk.AckRecorded, Acknowledged: leaguesdk.MsgMatchResultReport, MatchID: "R1M1",
		},
		&leaguesdk.StateQuery{
			Envelope: env(leaguesdk.MsgStateQuery, "player:P01", exTokP01, "conv-debug-001", exAt(10, 15, 20)),
			MatchID:  "R1M1",
		},
		&leaguesdk.StateResponse{
			Envelope: env(leaguesdk.MsgStateResponse, "referee:REF01", exTokREF01, "conv-debug-001", exAt(10, 15, 20)),
			State:    state,
		},
	}
}

func encodeExample(m leaguesdk.Message) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// TestMessageExamples keeps docs/message-examples in sync with the Go
// types: with -update it writes one file per message type from
// exampleMessages; without, it decodes and validates every file and checks
// that it re-encodes to the same bytes.
func TestMessageExamples(t *testing.T) {
	if *update {
		msgs := exampleMessages()
		if err := os.MkdirAll(examplesDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if err := leaguesdk.Validate(m); err != nil {
				t.Fatalf("%s: %v", m.Header().MessageType, err)
			}
			b, err := encodeExample(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(examplesDir, string(m.Header().MessageType)+".json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	types := leaguesdk.MessageTypes()
	want := map[string]bool{}
	for _, mt := range types {
		want[string(mt)+".json"] = true
	}
	entries, err := os.ReadDir(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !want[e.Name()] {
			t.Errorf("%s names no message type of leaguesdk.MessageTypes()", e.Name())
		}
	}
	readme, err := os.ReadFile(filepath.Join(examplesDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mt := range types {
		t.Run(string(mt), func(t *testing.T) {
			name := string(mt) + ".json"
			raw, err := os.ReadFile(filepath.Join(examplesDir, name))
			if err != nil {
				t.Fatalf("no example for %s (run go test ./leaguesdk -run TestMessageExamples -update): %v", mt, err)
			}
			m := leaguesdk.NewMessage(mt)
			if m == nil {
				t.Fatalf("NewMessage(%s) = nil", mt)
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(m); err != nil {
				t.Fatalf("%s does not decode into %T: %v", name, m, err)
			}
			if got := m.Header().MessageType; got != mt {
				t.Fatalf("%s holds message_type %s", name, got)
			}
			if leaguesdk.MessageTypeOf(m) != mt {
				t.Fatalf("MessageTypeOf(%T) = %s", m, leaguesdk.MessageTypeOf(m))
			}
			if err := leaguesdk.Validate(m); err != nil {
				t.Fatalf("%s does not validate: %v", name, err)
			}
			h := m.Header()
			if h.Timestamp != leaguesdk.FormatTime(mustParse(t, h.Timestamp)) {
				t.Fatalf("timestamp %q is not in the sent form", h.Timestamp)
			}
			if h.AuthToken != "" && !tokenRE.MatchString(h.AuthToken) {
				t.Fatalf("auth_token %q is not tok_ + 32 hex", h.AuthToken)
			}
			again, err := encodeExample(m)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, raw) {
				t.Fatalf("%s does not re-encode to itself; run go test ./leaguesdk -run TestMessageExamples -update\n got: %s\nfile: %s", name, again, raw)
			}
			if !strings.Contains(string(readme), "("+name+")") {
				t.Fatalf("README.md does not link %s", name)
			}
		})
	}
}

func mustParse(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := leaguesdk.ParseTime(s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestMessageTypesComplete checks that every MessageType constant of the
// package is in MessageTypes, has a Go type (NewMessage) and is recognised
// by MessageTypeOf, and that the examples cover every type.
func TestMessageTypesComplete(t *testing.T) {
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "MessageType" {
					for _, v := range vs.Values {
						if lit, ok := v.(*ast.BasicLit); ok {
							declared = append(declared, strings.Trim(lit.Value, `"`))
						}
					}
				}
			}
		}
	}
	var listed []string
	for _, mt := range leaguesdk.MessageTypes() {
		listed = append(listed, string(mt))
		m := leaguesdk.NewMessage(mt)
		if m == nil || leaguesdk.MessageTypeOf(m) != mt {
			t.Errorf("%s: NewMessage %T, MessageTypeOf %q", mt, m, leaguesdk.MessageTypeOf(m))
		}
	}
	sort.Strings(declared)
	sort.Strings(listed)
	if strings.Join(declared, ",") != strings.Join(listed, ",") {
		t.Fatalf("declared message types:\n%v\nMessageTypes():\n%v", declared, listed)
	}
	var fromExamples []string
	for _, m := range exampleMessages() {
		fromExamples = append(fromExamples, string(m.Header().MessageType))
	}
	sort.Strings(fromExamples)
	if strings.Join(fromExamples, ",") != strings.Join(listed, ",") {
		t.Fatalf("exampleMessages covers %v", fromExamples)
	}
	if leaguesdk.NewMessage("NOPE") != nil || leaguesdk.MessageTypeOf(42) != "" {
		t.Fatal("unknown types")
	}
}
