package manager

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// A broadcast encoded once and addressed to a player is, byte for byte,
// the whole message encoded with that player's envelope.
func TestSharedBroadcastIsTheWholeMessage(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []leaguesdk.StandingRow{{Rank: 1, PlayerID: "P01", DisplayName: "Odd <Olive> & co", Played: 3, Wins: 2, Points: 6},
		{Rank: 2, PlayerID: "P02", DisplayName: "Even \"Eddie\"", Played: 3, Draws: 1, Points: 1}}
	matches := []leaguesdk.ScheduledMatch{{MatchID: "R1M1", GameType: "even_odd", PlayerAID: "P01", PlayerBID: "P02",
		RefereeEndpoint: "http://127.0.0.1:8001/mcp"}}
	for _, msg := range []leaguesdk.Message{
		&leaguesdk.LeagueStandingsUpdate{Envelope: leaguesdk.Envelope{MessageType: leaguesdk.MsgLeagueStandingsUpdate}, LeagueID: "L1", RoundID: 2, Standings: rows},
		&leaguesdk.RoundAnnouncement{Envelope: leaguesdk.Envelope{MessageType: leaguesdk.MsgRoundAnnouncement}, LeagueID: "L1", RoundID: 1, Matches: matches},
	} {
		fields, err := fieldsAfterEnvelope(msg)
		if err != nil {
			t.Fatal(err)
		}
		body := sharedBody{typ: msg.Header().MessageType, fields: fields}
		env := leaguesdk.NewEnvelope(body.typ, leaguesdk.LeagueManagerSender, "tok_abc", "conv-1", now)
		got, err := body.to(env)
		if err != nil {
			t.Fatal(err)
		}
		*msg.Header() = env
		want, err := json.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Join(), want) {
			t.Errorf("%s addressed:\n%s\nwhole:\n%s", body.typ, got.Join(), want)
		}
		if n := len(body.fields); n > 0 && (len(got) != 3 || &got[1][0] != &body.fields[0]) {
			t.Errorf("%s: the shared fields are copied, not sent as they are", body.typ)
		}
	}
}
