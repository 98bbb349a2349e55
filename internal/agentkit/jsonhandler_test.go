package agentkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// tokenValue is a LogValuer whose value is a token.
type tokenValue struct{}

func (tokenValue) LogValue() slog.Value { return slog.StringValue("tok_0123456789abcdef") }

// groupValue is a LogValuer whose value is a group.
type groupValue struct{}

func (groupValue) LogValue() slog.Value {
	return slog.GroupValue(slog.String("auth_token", "x"), slog.Int("n", 1))
}

// countValue is a LogValuer whose value is how many times it was asked.
type countValue struct{ n int }

func (c *countValue) LogValue() slog.Value { c.n++; return slog.IntValue(c.n) }

// oddStrings returns strings made of everything JSON escapes, and tokens,
// from a fixed seed.
func oddStrings(n int) []string {
	pieces := []string{"a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&", "é", "\u2028", "\u2029",
		"\xff", "\xc3", "\xe2\x80", "😀", "tok_", "tok-", "abcdef", "0123456789", "_", "-", "[REDACTED]"}
	rng := rand.New(rand.NewPCG(1, 2))
	out := []string{"", "plain", "tok_0123456789abcdef0123456789abcdef", "x tok_abcdef and tok-ABCDEF_12 y", "tok_abc"}
	for range n {
		var sb strings.Builder
		for range rng.IntN(12) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out = append(out, sb.String())
	}
	return out
}

// TestJSONHandlerWritesWhatSlogWrites logs the same records through
// NewLogger's handler and through slog's JSONHandler with replaceAttr, the
// handler it stands for, and wants the same bytes: for the records it
// encodes itself and for those it passes on, derived with the same
// attributes and groups.
func TestJSONHandlerWritesWhatSlogWrites(t *testing.T) {
	var got, want bytes.Buffer
	fast := slog.Handler(newJSONHandler(&got, slog.LevelDebug))
	ref := slog.Handler(slog.NewJSONHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: replaceAttr}))
	derive := map[string]func(slog.Handler) slog.Handler{
		"none":     func(h slog.Handler) slog.Handler { return h },
		"agent_id": func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{slog.String("agent_id", "P01")}) },
		"two withs": func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("a", "1")}).WithAttrs([]slog.Attr{slog.Int("b", 2)})
		},
		"no attrs": func(h slog.Handler) slog.Handler { return h.WithAttrs(nil) },
		"with token": func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("token", "t"), slog.String("s", "a tok_0123456789")})
		},
		"with error": func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.Any("error", errors.New("bad tok_0123456789"))})
		},
		"with group": func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.Group("g", slog.String("token", "t"))}).WithAttrs([]slog.Attr{slog.Int("n", 1)})
		},
		"empty group": func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{slog.Group("g")}) },
		"with time": func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.Int("time", 1), slog.String("msg", "m")})
		},
		"with valuer": func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{slog.Any("asked", &countValue{})}) },
		"with msg":    func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{slog.String("msg", "m")}) },
		"group":       func(h slog.Handler) slog.Handler { return h.WithGroup("g") },
		"group attrs": func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("a", "1")}).WithGroup("g").WithAttrs([]slog.Attr{slog.String("token", "t")})
		},
	}
	odd := oddStrings(300)
	attrSets := [][]slog.Attr{
		nil,
		{slog.String("tool", "choose_parity"), slog.String("message_type", "CHOOSE_PARITY_CALL"), slog.String("sender", "referee:REF01"),
			slog.String("conversation_id", "conv-1"), slog.String("outcome", "ok"), slog.Duration("took", 1234567*time.Nanosecond)},
		{slog.Int("n", -3), slog.Int64("min", math.MinInt64), slog.Uint64("max", math.MaxUint64), slog.Bool("t", true), slog.Bool("f", false),
			slog.Duration("d", -time.Second)},
		{slog.Int("auth_token", 5), slog.Bool("token", true), slog.Duration("admin_token", 1), slog.String("token", "")},
		{slog.Any("error", errors.New("bad tok_0123456789abcdef")), slog.Any("nil", nil)},
		{slog.Float64("f", 0.1), slog.Float64("big", 1e21), slog.Float64("inf", math.Inf(1))},
		{slog.Time("deadline", time.Date(2025, 1, 15, 10, 15, 5, 120000000, time.FixedZone("x", 3600)))},
		{slog.Time("bad year", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))},
		{slog.Any("map", map[string]any{"auth_token": "tok_0123456789abcdef", "html": "<&>"}), slog.Any("raw", json.RawMessage(`{"a": "tok_0123456789abcdef"}`))},
		{slog.Group("g", slog.String("token", "t"), slog.Group("h", slog.Int("n", 1))), slog.Group("empty"), slog.Group("", slog.Int("inline", 1))},
		{slog.Int("time", 1), slog.String("msg", "a tok_0123456789")},
		{slog.String("msg", "a tok_0123456789")},
		{slog.Time("time", time.Date(2025, 1, 15, 10, 15, 5, 0, time.UTC))},
		{slog.String("", "empty key"), slog.Attr{}},
		{slog.Any("valuer", tokenValue{}), slog.Any("group valuer", groupValue{})},
		{slog.String("level", "x"), slog.String("timestamp", "y"), slog.String("message", "z")},
	}
	for _, s := range odd {
		attrSets = append(attrSets, []slog.Attr{slog.String(s, s)}, []slog.Attr{slog.Any("error", errors.New(s))})
	}
	times := []time.Time{
		{}, time.Now(), time.Date(2025, 1, 15, 10, 15, 5, 0, time.UTC), time.Date(2025, 1, 15, 10, 15, 5, 120000000, time.FixedZone("x", -7200)),
		time.Date(2025, 1, 15, 10, 15, 5, 1, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError, slog.LevelInfo + 2, slog.LevelDebug - 4}
	ctx := context.Background()
	for name, d := range derive {
		fh, rh := d(fast), d(ref)
		for i, attrs := range attrSets {
			got.Reset()
			want.Reset()
			r := slog.NewRecord(times[i%len(times)], levels[i%len(levels)], odd[i%len(odd)], 0)
			r.AddAttrs(attrs...)
			if err := fh.Handle(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := rh.Handle(ctx, r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s, record %d:\n got %q\nwant %q", name, i, got.Bytes(), want.Bytes())
			}
			// The same record without one: the call line of LogCalls.
			got.Reset()
			k := len(attrs) / 2
			if err := fh.(*jsonHandler).handleAttrs(ctx, r.Time, r.Level, r.Message, attrs[:k], attrs[k:]); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s, record %d without a record:\n got %q\nwant %q", name, i, got.Bytes(), want.Bytes())
			}
		}
	}
	// Timestamps: many seconds and fractions, trailing zeros and all.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		got.Reset()
		want.Reset()
		t0 := time.Unix(rng.Int64N(253402300799), rng.Int64N(1e9)).Truncate(time.Duration([]int64{1, 10, 1e3, 1e6, 1e8, 1e9}[i%6]))
		r := slog.NewRecord(t0.In(time.FixedZone("x", rng.IntN(86400)-43200)), slog.LevelInfo, "t", 0)
		if err := fast.Handle(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := ref.Handle(ctx, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("time %v:\n got %q\nwant %q", t0, got.Bytes(), want.Bytes())
		}
	}
	for _, l := range levels {
		if fast.Enabled(ctx, l) != ref.Enabled(ctx, l) {
			t.Errorf("enabled at %v: %v, want %v", l, fast.Enabled(ctx, l), ref.Enabled(ctx, l))
		}
	}
}

// TestJSONHandlerLinesStayWhole logs from several goroutines through
// handlers of one NewLogger, some lines encoded by the handler itself and
// some by slog's JSONHandler (in a group): every line must come out whole.
func TestJSONHandlerLinesStayWhole(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(&buf, "P01", slog.LevelInfo)
	grouped := log.WithGroup("g")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				if (g+i)%2 == 0 {
					log.Info("fast", slog.Int("g", g), slog.Int("i", i))
				} else {
					grouped.Info("slow", slog.Int("g", g), slog.Int("i", i))
				}
			}
		})
	}
	wg.Wait()
	if lines := jsonLines(t, buf.Bytes()); len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
}
