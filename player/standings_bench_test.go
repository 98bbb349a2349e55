package player_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
)

// BenchmarkStandingsUpdate measures what a player spends on one
// LEAGUE_STANDINGS_UPDATE of a 1000-player league, the message every
// player receives every round: the request over loopback HTTP, read,
// checked and answered, the player's own row kept.
func BenchmarkStandingsUpdate(b *testing.B) {
	m := startManager(b, &testManager{})
	a := runAgent(b, player.Config{League: m.URL, Strategy: always(leaguesdk.Even),
		Logger: slog.New(slog.DiscardHandler)})
	rows := make([]leaguesdk.StandingRow, 0, 1000)
	for i := 1; i <= 1000; i++ {
		id := fmt.Sprintf("P%02d", i)
		rows = append(rows, leaguesdk.StandingRow{Rank: i, PlayerID: id, DisplayName: "Player " + id,
			Played: 500, Wins: 200, Draws: 100, Losses: 200, Points: 700})
	}
	update := managerMessage(leaguesdk.MsgLeagueStandingsUpdate, "conv-standings",
		map[string]any{"league_id": testLeague, "round_id": 3, "standings": rows})
	body, err := json.Marshal(request(1, leaguesdk.MethodUpdateStandings, update))
	if err != nil {
		b.Fatal(err)
	}
	c := &http.Client{}
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for b.Loop() {
		resp, err := c.Post(a.Endpoint(), "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(reply, []byte(`"result"`)) {
			b.Fatalf("refused: %s", reply)
		}
	}
}
