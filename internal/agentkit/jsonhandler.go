package agentkit

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/agentleague/league/internal/redact"
	"github.com/agentleague/league/leaguesdk"
)

// jsonHandler is the handler of NewLogger. It writes what slog's
// JSONHandler writes with replaceAttr as its ReplaceAttr, byte for byte,
// but encodes the common record itself: one whose attributes are strings,
// integers, booleans, durations or errors, outside any group. A JSONHandler
// with a ReplaceAttr turns every attribute, the time, level and message
// included, into an Attr and back (the level through json.Marshal, the
// time through a formatted string), which made logging a visible share of
// an agent's CPU. Any other record (a group, a message logged whole as
// data, a time or float value, a key that replaceAttr renames) goes to
// that JSONHandler itself, derived with the same attributes and groups, so
// that what it writes never depends on which of the two wrote it.
type jsonHandler struct {
	out  *jsonOut
	pre  []byte              // the attributes of WithAttrs, encoded, each after a comma
	fast bool                // false once pre cannot say what the slow handler would: every record goes to slow
	slow func() slog.Handler // the JSONHandler with replaceAttr, derived as this handler was; made on first use
}

// jsonOut is what the handlers derived from one NewLogger share: the
// writer, the level, and the buffers lines are encoded in.
type jsonOut struct {
	mu    sync.Mutex // one line at a time, whichever handler encoded it
	w     io.Writer
	level slog.Leveler
	bufs  sync.Pool // of *[]byte
	sec   atomic.Pointer[second]
}

// second is one second formatted as the start of a timestamp, up to the
// fraction: "2006-01-02T15:04:05".
type second struct {
	unix int64
	text []byte
}

// appendTime appends t in UTC as time.RFC3339Nano formats it. The lines
// of one second share the formatting of their date and time of day; only
// the fraction is formatted for each.
func (o *jsonOut) appendTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	s := o.sec.Load()
	if s == nil || s.unix != t.Unix() {
		s = &second{unix: t.Unix(), text: t.AppendFormat(nil, "2006-01-02T15:04:05")}
		o.sec.Store(s)
	}
	b = append(b, s.text...)
	if ns := t.Nanosecond(); ns != 0 { // the nine digits without their trailing zeros, as .999999999
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i > 0; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := len(frac)
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z')
}

// Write writes one line of the slow handler, under the same lock as the
// lines encoded here.
func (o *jsonOut) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.w.Write(b)
}

// maxPooledLine bounds the buffers kept for reuse, so that one huge line
// does not keep its buffer alive.
const maxPooledLine = 16 << 10

func newJSONHandler(w io.Writer, level slog.Leveler) *jsonHandler {
	out := &jsonOut{w: w, level: level}
	out.bufs.New = func() any { b := make([]byte, 0, 1024); return &b }
	return &jsonHandler{out: out, fast: true, slow: sync.OnceValue(func() slog.Handler {
		return slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level, ReplaceAttr: replaceAttr})
	})}
}

func (h *jsonHandler) Enabled(_ context.Context, l slog.Level) bool {
	minLevel := slog.LevelInfo
	if h.out.level != nil {
		minLevel = h.out.level.Level()
	}
	return l >= minLevel
}

func (h *jsonHandler) Handle(ctx context.Context, r slog.Record) error {
	if !h.fast {
		return h.slow().Handle(ctx, r)
	}
	bp := h.out.bufs.Get().(*[]byte)
	b := h.appendHead((*bp)[:0], r.Time, r.Level, r.Message)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		b, ok = appendAttr(b, a)
		return ok
	})
	if !ok {
		h.out.bufs.Put(bp)
		return h.slow().Handle(ctx, r)
	}
	return h.write(bp, b)
}

// handleAttrs does what Handle does with the record of t, level and msg
// whose attributes are first and then, but makes that record only if the
// slow handler needs it: the line of a call served (LogCalls) would copy
// its attributes into a record, growing it, for nothing else.
func (h *jsonHandler) handleAttrs(ctx context.Context, t time.Time, level slog.Level, msg string, first, then []slog.Attr) error {
	if h.fast {
		bp := h.out.bufs.Get().(*[]byte)
		b := h.appendHead((*bp)[:0], t, level, msg)
		ok := true
		for _, a := range first {
			if b, ok = appendAttr(b, a); !ok {
				break
			}
		}
		for _, a := range then {
			if !ok {
				break
			}
			b, ok = appendAttr(b, a)
		}
		if ok {
			return h.write(bp, b)
		}
		h.out.bufs.Put(bp)
	}
	r := slog.NewRecord(t, level, msg, 0)
	r.AddAttrs(first...)
	r.AddAttrs(then...)
	return h.slow().Handle(ctx, r)
}

// write ends the line in b, the buffer of bp, writes it and keeps the
// buffer for the next line.
func (h *jsonHandler) write(bp *[]byte, b []byte) error {
	b = append(b, '}', '\n')
	h.out.mu.Lock()
	_, err := h.out.w.Write(b)
	h.out.mu.Unlock()
	if cap(b) <= maxPooledLine {
		*bp = b
		h.out.bufs.Put(bp)
	}
	return err
}

func (h *jsonHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	if h.fast {
		// The slow handler is derived on first use, perhaps never, from
		// the values as they are now, as slog resolves them in WithAttrs.
		pre := append([]byte(nil), h.pre...)
		resolved := make([]slog.Attr, len(attrs))
		ok := true
		for i, a := range attrs {
			a.Value = a.Value.Resolve()
			resolved[i] = a
			if pre, ok = appendAttr(pre, a); !ok {
				break
			}
		}
		if ok {
			parent := h.slow
			return &jsonHandler{out: h.out, pre: pre, fast: true, slow: sync.OnceValue(func() slog.Handler { return parent().WithAttrs(resolved) })}
		}
	}
	slow := h.slow().WithAttrs(attrs) // the handler of every record from now on
	return &jsonHandler{out: h.out, slow: func() slog.Handler { return slow }}
}

func (h *jsonHandler) WithGroup(name string) slog.Handler {
	parent := h.slow
	return &jsonHandler{out: h.out, slow: sync.OnceValue(func() slog.Handler { return parent().WithGroup(name) })}
}

// appendHead appends the start of a line, up to the attributes of the
// record: the timestamp (in UTC, when t is set), level and message, then
// the attributes of WithAttrs.
func (h *jsonHandler) appendHead(b []byte, t time.Time, level slog.Level, msg string) []byte {
	b = append(b, '{')
	if !t.IsZero() {
		b = append(b, `"timestamp":"`...)
		b = h.out.appendTime(b, t)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = appendString(b, level.String())
	b = append(b, `,"message":`...)
	b = appendString(b, redact.String(msg))
	return append(b, h.pre...)
}

// appendAttr appends a comma and a as replaceAttr and the JSONHandler
// would write it outside any group, and reports whether it could: not for
// a group, a key replaceAttr renames or an empty one, nor for a value
// that is not a string, an integer, a boolean, a duration or an error.
func appendAttr(b []byte, a slog.Attr) ([]byte, bool) {
	switch a.Key {
	case "", slog.TimeKey, slog.MessageKey:
		return b, false
	}
	v := a.Value
	if v.Kind() == slog.KindLogValuer { // Resolve itself costs a deferred recover for any value
		v = v.Resolve()
	}
	kind := v.Kind()
	if kind == slog.KindGroup {
		return b, false
	}
	b = append(b, ',')
	b = appendString(b, a.Key)
	b = append(b, ':')
	switch a.Key {
	case "auth_token", "token", "admin_token": // as leaguesdk.RedactAttr
		return appendString(b, leaguesdk.Redacted), true
	}
	switch kind {
	case slog.KindString:
		return appendString(b, redact.String(v.String())), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10), true
	case slog.KindAny:
		if err, ok := v.Any().(error); ok { // leaguesdk.RedactAttr logs an error as its text
			return appendString(b, redact.String(err.Error())), true
		}
	}
	return b, false
}

// appendString appends s as a JSON string, escaped as slog's JSONHandler
// escapes it: quotation mark, backslash and control characters, invalid
// UTF-8 as U+FFFD, and U+2028 and U+2029; not HTML's <, > and &.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
