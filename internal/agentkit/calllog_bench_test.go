package agentkit_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
)

// BenchmarkCallLine serves one call through LogCalls on the logger an agent
// builds (an AgentLog open on a file in b.TempDir(), at info): "served" is
// a call whose handler says nothing, "outcome" one whose handler says what
// it did with LogOutcome (the player's "chose"), and "stderr" the same
// outcome on an agent that also logs to a text handler at info, as the
// example programs do.
//
//	go test ./internal/agentkit -run '^$' -bench CallLine -benchmem -count 5
func BenchmarkCallLine(b *testing.B) {
	env := leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", "tok_0123456789abcdef0123456789abcdef", "conv-r1m1-001", time.Now())
	req := &leaguesdk.Request{Method: leaguesdk.MethodChooseParity, Tool: leaguesdk.MethodChooseParity, Envelope: &env}
	quiet := func(context.Context, *leaguesdk.Request) (any, error) { return nil, nil }
	for _, bc := range []struct {
		name string
		base *slog.Logger
		says bool
	}{
		{"served", slog.New(slog.DiscardHandler), false},
		{"outcome", slog.New(slog.DiscardHandler), true},
		{"stderr", slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{ReplaceAttr: leaguesdk.RedactAttr})), true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			l := agentkit.NewAgentLog("player:agent_alpha", slog.LevelInfo)
			if err := l.Open(b.TempDir(), "P01"); err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			log := l.Logger(bc.base)
			next := quiet
			if bc.says {
				next = func(ctx context.Context, _ *leaguesdk.Request) (any, error) {
					agentkit.LogOutcome(ctx, log, "chose", slog.String("match_id", "R1M1"), slog.String("opponent_id", "P02"),
						slog.String("choice", "even"), slog.Duration("decided_in", 1234*time.Microsecond))
					return nil, nil
				}
			}
			h := agentkit.LogCalls(log)(next)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
