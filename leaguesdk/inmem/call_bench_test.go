package inmem_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/leaguesdk/inmem"
)

// BenchmarkCall reports what one call costs through the SDK's client and
// server alone, on the in-memory network: a CHOOSE_PARITY_CALL encoded,
// routed, decoded and validated, its reply encoded, decoded and validated,
// from 4 goroutines per CPU at once. There is no league around it (no
// logs, transcripts, histories or journals), so it is the floor of what
// each of the calls of a league's match costs; BenchmarkLeague's
// cpu-µs/match divided by the calls of a match (about 14 at 50 players:
// start_match, two invitations, two choices, two GAME_OVERs, the report,
// and each match's share of the round's three broadcasts) set against its
// cpu-µs/call shows what the league's own work adds.
func BenchmarkCall(b *testing.B) {
	var n inmem.Network
	token := "tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c"
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return "player:P01" }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			return &leaguesdk.ChooseParityResponse{
				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", token, in.ConversationID, time.Now()),
				MatchID:      in.MatchID,
				PlayerID:     "P01",
				ParityChoice: leaguesdk.Even,
			}, nil
		})
	n.Handle("p01", srv)
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{HTTPClient: n.Client()})
	defer c.Close()
	now := time.Now()
	call := &leaguesdk.ChooseParityCall{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", token, "conv-r1m1-001", now),
		MatchID:  "R1M1",
		PlayerID: "P01",
		GameType: leaguesdk.GameEvenOdd,
		Context:  leaguesdk.ParityContext{OpponentID: "P02", RoundID: 1},
		Deadline: leaguesdk.FormatTime(now.Add(time.Hour)),
	}
	ctx := context.Background()
	b.SetParallelism(4)
	b.ReportAllocs()
	start, cpu := time.Now(), cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			var resp leaguesdk.ChooseParityResponse
			if err := c.Call(ctx, "http://p01/mcp", leaguesdk.MethodChooseParity, call, &resp); err != nil {
				b.Error(err)
				return
			}
			if resp.ParityChoice != leaguesdk.Even {
				b.Errorf("choice %q, want even", resp.ParityChoice)
				return
			}
		}
	})
	elapsed, cpu := time.Since(start), cpuTime()-cpu
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/call")
	}
}
