package leaguesdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func standingsTable(n int) []StandingRow {
	rows := make([]StandingRow, n)
	for i := range rows {
		rows[i] = StandingRow{Rank: i + 1, PlayerID: fmt.Sprintf("P%04d", i+1), DisplayName: fmt.Sprintf("Player <%d> & co", i+1),
			Played: 10, Wins: 5, Draws: 2, Losses: 3, Points: 17}
	}
	return rows
}

// The spliced request is byte for byte the request of the message encoded
// whole, for every broadcast type and shape.
func TestSharedMessageWireEquality(t *testing.T) {
	now := time.Date(2025, 1, 15, 10, 30, 0, 0, time.UTC)
	next := RoundID(3)
	tests := []struct {
		name string
		msg  Message // its envelope is the recipient's
	}{
		{"standings", &LeagueStandingsUpdate{LeagueID: "league_2025_even_odd", RoundID: 2, Standings: standingsTable(5)}},
		{"empty standings", &LeagueStandingsUpdate{LeagueID: "l", RoundID: 1, Standings: []StandingRow{}}},
		{"nil standings", &LeagueStandingsUpdate{LeagueID: "l", RoundID: 1}},
		{"announcement", &RoundAnnouncement{LeagueID: "l", RoundID: 1, Matches: []ScheduledMatch{
			{MatchID: "R1M1", GameType: GameEvenOdd, PlayerAID: "P01", PlayerBID: "P02", RefereeEndpoint: "http://127.0.0.1:8001/mcp"},
			{MatchID: "R1M2", GameType: GameEvenOdd, PlayerAID: "P03", PlayerBID: "P04"}}}},
		{"round completed", &RoundCompleted{LeagueID: "l", RoundID: 2, MatchesCompleted: 2, NextRoundID: &next,
			Summary: &RoundSummary{TotalMatches: 2, Wins: 1, Draws: 1}}},
		{"league completed", &LeagueCompleted{LeagueID: "l", TotalRounds: 3, TotalMatches: 6,
			Champion: &Champion{PlayerID: "P01", Points: 9}, FinalStandings: standingsTable(3)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			shared, err := EncodeShared(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if shared.Type() != MessageTypeOf(tc.msg) {
				t.Fatalf("type %q, want %q", shared.Type(), MessageTypeOf(tc.msg))
			}
			for _, token := range []string{"tok_a", `tok_"quoted" <b>&`, ""} {
				env := NewEnvelope(MessageTypeOf(tc.msg), LeagueManagerSender, token, "", now)
				*tc.msg.Header() = env
				whole, err := json.Marshal(tc.msg)
				if err != nil {
					t.Fatal(err)
				}
				params, _, err := encodeParams(shared.To(env))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(params.join(), whole) {
					t.Fatalf("spliced params\n%s\nwant\n%s", params, whole)
				}
				old, _ := json.Marshal(struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      int64           `json:"id"`
					Method  string          `json:"method"`
					Params  json.RawMessage `json:"params"`
				}{"2.0", 42, MethodUpdateStandings, whole})
				if req := appendRequest(nil, 42, MethodUpdateStandings, params); !bytes.Equal(req, old) {
					t.Fatalf("request\n%s\nwant\n%s", req, old)
				}
				// The same through json.Marshal (MarshalJSON).
				if viaMarshal, err := json.Marshal(shared.To(env)); err != nil || !bytes.Equal(viaMarshal, whole) {
					t.Fatalf("json.Marshal of the addressed message: %s, %v", viaMarshal, err)
				}
				// And it decodes to the same message.
				back := LeagueStandingsUpdate{}
				if tc.name == "standings" {
					if err := json.Unmarshal(params.join(), &back); err != nil || back.AuthToken != token || len(back.Standings) != 5 {
						t.Fatalf("decoded %+v, %v", back, err)
					}
				}
			}
		})
	}
}

// Addressing a shared table to one more recipient costs the same number
// of allocations whatever the table's size, and never encodes its rows.
func TestSharedMessageCostPerRecipient(t *testing.T) {
	now := time.Date(2025, 1, 15, 10, 30, 0, 0, time.UTC)
	perRecipient := func(rows int) (allocs float64, bytesPerRecipient int) {
		shared, err := EncodeShared(&LeagueStandingsUpdate{LeagueID: "l", RoundID: 1, Standings: standingsTable(rows)})
		if err != nil {
			t.Fatal(err)
		}
		env := NewEnvelope(MsgLeagueStandingsUpdate, LeagueManagerSender, "tok_a", "conv", now)
		allocs = testing.AllocsPerRun(50, func() {
			params, _, err := encodeParams(shared.To(env))
			if err != nil {
				t.Fatal(err)
			}
			// As Client.call sends it: the request's parts, the table's
			// bytes shared, not joined into one body.
			bytesPerRecipient = requestParts(nil, 7, MethodUpdateStandings, params).size()
		})
		return allocs, bytesPerRecipient
	}
	small, _ := perRecipient(10)
	big, size := perRecipient(1000)
	// A few allocations of slack: with the race detector, sync.Pool drops
	// some of what is put back, and the encoder's pooled state is then
	// allocated again. An allocation per row would be a thousand more.
	if big > small+4 || big > 20 {
		t.Fatalf("allocations per recipient: %v with 10 rows, %v with 1000 rows; want the same, and a few", small, big)
	}
	// Encoding the 1000-row message whole for each recipient, as before,
	// costs allocations that grow with the table.
	whole := &LeagueStandingsUpdate{Envelope: NewEnvelope(MsgLeagueStandingsUpdate, LeagueManagerSender, "tok_a", "conv", now),
		LeagueID: "l", RoundID: 1, Standings: standingsTable(1000)}
	t.Logf("per recipient of a 1000-row table: %v allocations spliced (%d bytes sent), %v encoded whole",
		big, size, testing.AllocsPerRun(10, func() { _, _ = json.Marshal(whole) }))
}

// A message that is not its envelope followed by its fields is refused.
func TestEncodeSharedRefusesOtherShapes(t *testing.T) {
	if _, err := EncodeShared(&oddMessage{}); err == nil {
		t.Fatal("EncodeShared accepted a message that does not begin with its envelope")
	}
	if _, err := json.Marshal(&AddressedMessage{}); err == nil {
		t.Fatal("an AddressedMessage not made by To encoded")
	}
}

type oddMessage struct{ Envelope }

func (o *oddMessage) MarshalJSON() ([]byte, error) { return []byte(`{"x":1}`), nil }

// BenchmarkBroadcast1000 is one LEAGUE_STANDINGS_UPDATE of a 1000-row
// table to 1000 players (one op): encoded whole for each, as before, and
// encoded once with only the envelopes per recipient.
func BenchmarkBroadcast1000(b *testing.B) {
	const recipients = 1000
	now := time.Date(2025, 1, 15, 10, 30, 0, 0, time.UTC)
	table := standingsTable(recipients)
	envs := make([]Envelope, recipients)
	for i := range envs {
		envs[i] = NewEnvelope(MsgLeagueStandingsUpdate, LeagueManagerSender, fmt.Sprintf("tok_%d", i), "", now)
	}
	run := func(b *testing.B, round func(send func(params any))) {
		b.ReportAllocs()
		sent := 0
		for b.Loop() {
			sent = 0
			round(func(params any) {
				body, _, err := encodeParams(params)
				if err != nil {
					b.Fatal(err)
				}
				sent += len(appendRequest(nil, 1, MethodUpdateStandings, body))
			})
		}
		b.ReportMetric(float64(sent)/recipients, "B-sent/recipient")
	}
	b.Run("whole-per-recipient", func(b *testing.B) {
		run(b, func(send func(any)) {
			for i := range recipients {
				send(&LeagueStandingsUpdate{Envelope: envs[i], LeagueID: "l", RoundID: 1, Standings: table})
			}
		})
	})
	b.Run("encoded-once", func(b *testing.B) {
		run(b, func(send func(any)) {
			shared, err := EncodeShared(&LeagueStandingsUpdate{LeagueID: "l", RoundID: 1, Standings: table})
			if err != nil {
				b.Fatal(err)
			}
			for i := range recipients {
				send(shared.To(envs[i]))
			}
		})
	})
}

// A request is written byte for byte as json.Marshal writes it, whatever
// its method (written as it is, or escaped as json.Marshal escapes it) and
// whether it is one buffer (a small one) or parts (a large one).
func TestRequestPartsAsJSONMarshal(t *testing.T) {
	small := []byte(`{"a":1}`)
	large := []byte(`{"a":"` + strings.Repeat("x", joinBodyUpTo) + `"}`)
	for _, method := range []string{MethodChooseParity, "tools/call", "a<b>&c", `q"uote\`, "tab\there", "é", ""} {
		for _, params := range []encoded{{small}, {large}, {large[:5], large[5:]}} {
			want, err := json.Marshal(struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      int64           `json:"id"`
				Method  string          `json:"method"`
				Params  json.RawMessage `json:"params"`
			}{"2.0", 7, method, params.join()})
			if err != nil {
				t.Fatal(err)
			}
			parts := requestParts(nil, 7, method, params)
			if got := parts.join(); !bytes.Equal(got, want) {
				t.Fatalf("method %q: request\n%s\nwant\n%s", method, got, want)
			}
			if oneBuffer := len(parts) == 1; oneBuffer != (len(want) <= joinBodyUpTo) {
				t.Errorf("method %q, %d bytes: %d parts", method, len(want), len(parts))
			}
		}
	}
}
