package agentkit

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// MaxHeldLines bounds the lines an [AgentLog] holds before its file opens:
// past it the oldest are dropped, and a warning saying how many is
// written once the file opens.
const MaxHeldLines = 1000

// AgentLog is the JSON-lines log of one agent in the data layer,
// <data root>/logs/agents/<agent_id>.log.jsonl (records made by
// [NewLogger]: timestamp, level, agent_id, message; tokens
// redacted). An agent whose id is known only after registration creates it
// with a provisional id (its name-based sender, "player:agent_alpha") and
// calls [AgentLog.Open] once the id is known: the lines logged before (the last
// [MaxHeldLines] of them) are held in memory, written when the file opens,
// and keep the provisional agent_id; later lines carry the real one.
//
// A nil *AgentLog is a log that is turned off: Logger returns its base,
// Open and Close do nothing. AgentLog is safe for concurrent use.
type AgentLog struct {
	base  atomic.Pointer[baseHandler] // the JSON handler of the current agent id
	level slog.Level                  // the least level written to the file

	mu      sync.Mutex
	held    [][]byte // lines written before Open, oldest first
	dropped int      // lines dropped from held
	f       *os.File
	closed  bool
	pending []byte        // lines written since the last write to f
	flusher *time.Timer   // writes pending out, armed while there is any
	werr    error         // the first error of a write of pending
	delay   time.Duration // how long a line may wait: flushDelay
}

// Lines go to the file in batches: a line waits at most flushDelay, and
// no more than flushSize bytes wait, so that an agent serving hundreds of
// calls a second makes a few writes a second rather than one per line.
// Lines at warning level and above are written at once, with those
// waiting before them, and so is everything on Close.
const (
	flushDelay = 100 * time.Millisecond
	flushSize  = 16 << 10
)

// baseHandler is the JSON handler of one agent id; a new one is made when
// Open names the real id.
type baseHandler struct{ h slog.Handler }

// NewAgentLog returns an [AgentLog] whose lines carry agentID until [AgentLog.Open]
// names the real id, and that writes the records of level and above (the
// agents' Config.AgentLogLevel: info by default, whose lines carry ids and
// outcomes; debug adds every message sent and received, whole). Nothing is
// written to disk before Open.
func NewAgentLog(agentID string, level slog.Level) *AgentLog {
	l := &AgentLog{level: level, delay: flushDelay}
	l.setID(agentID)
	return l
}

func (l *AgentLog) setID(agentID string) {
	l.base.Store(&baseHandler{NewLogger(writerFunc(l.write), agentID, l.level).Handler()})
}

// Logger returns a logger that writes every record of the log's level and
// up to the agent log and passes it to base as well (nil base: the agent log only).
// On a nil [AgentLog] it returns base, or a logger that discards when base
// is nil.
func (l *AgentLog) Logger(base *slog.Logger) *slog.Logger {
	switch {
	case l == nil && base == nil:
		return slog.New(slog.DiscardHandler)
	case l == nil:
		return base
	case base == nil || base.Handler() == slog.DiscardHandler:
		return slog.New(&logHandler{log: l})
	}
	return slog.New(slog.NewMultiHandler(&logHandler{log: l}, base.Handler()))
}

// Open opens (appending) dataRoot/logs/agents/<agentID>.log.jsonl, writes
// the lines held so far to it, and makes agentID the agent_id of the lines
// logged from now on. Opening a log that is open already does nothing;
// opening a closed log is an error.
func (l *AgentLog) Open(dataRoot, agentID string) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	if l.f != nil {
		l.mu.Unlock()
		return nil
	}
	if l.closed {
		l.mu.Unlock()
		return errors.New("agent log: open after close")
	}
	file, err := openAgentFile(dataRoot, agentID)
	if err != nil {
		l.mu.Unlock()
		return err
	}
	for _, line := range l.held {
		if _, werr := file.Write(line); werr != nil && err == nil {
			err = werr
		}
	}
	dropped := l.dropped
	l.held, l.dropped, l.f = nil, 0, file
	l.setID(agentID)
	l.mu.Unlock()
	if dropped > 0 {
		slog.New(&logHandler{log: l}).Warn("log lines from before the agent log opened were dropped",
			slog.Int("dropped", dropped), slog.Int("kept", MaxHeldLines))
	}
	return err
}

// openAgentFile opens (appending) dataRoot/logs/agents/<agentID>.log.jsonl
// (agentID made a safe file name, see SafeFileName).
func openAgentFile(dataRoot, agentID string) (*os.File, error) {
	dir := filepath.Join(dataRoot, "logs", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dir, SafeFileName(agentID)+".log.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
}

// Close closes the file, if it was opened, and drops the held lines.
// Lines logged afterwards are discarded.
func (l *AgentLog) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed, l.held, l.dropped = true, nil, 0
	if l.f == nil {
		return nil
	}
	if l.flusher != nil {
		l.flusher.Stop()
	}
	err := l.flushLocked()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// flush writes the lines pending to the file.
func (l *AgentLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.flushLocked(); err != nil && l.werr == nil {
		l.werr = err
	}
}

// flushLocked writes the lines pending to the file. l.mu must be held.
func (l *AgentLog) flushLocked() error {
	if len(l.pending) == 0 || l.f == nil {
		return nil
	}
	_, err := l.f.Write(l.pending)
	l.pending = l.pending[:0]
	return err
}

// write appends one line to the file, or holds it until the file opens.
func (l *AgentLog) write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.f != nil:
		if l.werr != nil { // a batch written meanwhile failed: say so once
			err := l.werr
			l.werr = nil
			return 0, err
		}
		l.pending = append(l.pending, b...)
		if len(l.pending) >= flushSize || urgent(b) {
			if err := l.flushLocked(); err != nil {
				return 0, err
			}
			return len(b), nil
		}
		if l.flusher == nil {
			l.flusher = time.AfterFunc(l.delay, l.flush)
		} else if len(l.pending) == len(b) { // the first line since the last batch
			l.flusher.Reset(l.delay)
		}
		return len(b), nil
	case l.closed:
	default:
		if len(l.held) == MaxHeldLines {
			l.held = append(l.held[:0], l.held[1:]...)
			l.dropped++
		}
		l.held = append(l.held, slices.Clone(b))
	}
	return len(b), nil
}

// urgent reports whether a JSON line of NewLogger is at warning level or
// above: its level member comes first, or second after a timestamp, which
// holds no quotation mark.
func urgent(line []byte) bool {
	const stamp, level = `{"timestamp":"`, `"level":"`
	rest := line[1:]
	if bytes.HasPrefix(line, []byte(stamp)) {
		end := bytes.IndexByte(line[len(stamp):], '"')
		if end < 0 {
			return false
		}
		rest = line[len(stamp)+end+2:] // past the quotation mark and the comma
	}
	rest, ok := bytes.CutPrefix(rest, []byte(level))
	return ok && (bytes.HasPrefix(rest, []byte("WARN")) || bytes.HasPrefix(rest, []byte("ERROR")))
}

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(b []byte) (int, error) { return w(b) }

// logHandler passes records to the JSON handler of the log's current agent
// id, replaying the attributes and groups it was derived with.
type logHandler struct {
	log   *AgentLog
	ops   []func(slog.Handler) slog.Handler
	built atomic.Pointer[builtHandler]
}

// builtHandler is a logHandler's handler for one baseHandler.
type builtHandler struct {
	base *baseHandler
	h    slog.Handler
}

func (h *logHandler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.log.level
}

func (h *logHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.handler().Handle(ctx, r)
}

// handler returns the handler of the log's current agent id, derived as h was.
func (h *logHandler) handler() slog.Handler {
	base := h.log.base.Load()
	b := h.built.Load()
	if b == nil || b.base != base {
		b = &builtHandler{base: base, h: base.h}
		for _, op := range h.ops {
			b.h = op(b.h)
		}
		h.built.Store(b)
	}
	return b.h
}

func (h *logHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.with(func(x slog.Handler) slog.Handler { return x.WithAttrs(attrs) })
}

func (h *logHandler) WithGroup(name string) slog.Handler {
	return h.with(func(x slog.Handler) slog.Handler { return x.WithGroup(name) })
}

func (h *logHandler) with(op func(slog.Handler) slog.Handler) slog.Handler {
	return &logHandler{log: h.log, ops: append(slices.Clip(h.ops), op)}
}

// LogCalls returns the Server middleware that logs the calls an agent
// serves on log: a line per call with ids and the outcome only (tool,
// message_type, sender, conversation_id, outcome, as [leaguesdk.Outcome],
// and took). A call whose handler says what it did through [LogOutcome]
// (the referee's "match accepted": a line per match) or that is refused
// gets that line at info, its message what the handler said (else
// "served") and the handler's attributes before the call's ids; any other
// call gets it at debug only, so that an agent serving thousands of calls
// a second writes a line per match rather than one per call. The whole
// message received and the whole reply sent go in debug lines
// ("received", "sent"); tokens are redacted by the agent's log handler.
func LogCalls(log *slog.Logger) leaguesdk.Middleware { return logCalls(log, slog.LevelInfo) }

// LogCallsForPeople is [LogCalls] with each call's line at debug level, for
// an agent whose info lines are written for a person watching a terminal
// (the player): what a handler says through [LogOutcome] then goes on an
// info line of its own, without the call's ids, and the call's ids only
// at debug.
func LogCallsForPeople(log *slog.Logger) leaguesdk.Middleware { return logCalls(log, slog.LevelDebug) }

// logCalls logs each call's line at said, the level of a call whose
// handler said what it did or that was refused (info for LogCalls), and at
// debug otherwise. At debug level, what a handler says goes on its own
// info line through LogOutcome (LogCallsForPeople).
func logCalls(log *slog.Logger, said slog.Level) leaguesdk.Middleware {
	return func(next leaguesdk.HandlerFunc) leaguesdk.HandlerFunc {
		return func(ctx context.Context, req *leaguesdk.Request) (any, error) {
			debug := log.Enabled(ctx, slog.LevelDebug)
			if debug {
				msgType, _, conv := callIDs(req)
				log.LogAttrs(ctx, slog.LevelDebug, "received", slog.String("message_type", string(msgType)),
					slog.String("conversation_id", conv), slog.Any("data", req.Message))
			}
			var line *callLine
			if said == slog.LevelInfo && log.Enabled(ctx, said) {
				cc := &callCtx{Context: ctx}
				line, ctx = &cc.line, cc
			}
			start := time.Now()
			out, err := next(ctx, req)
			var msg string
			var attrs []slog.Attr
			if line != nil {
				msg, attrs = line.close()
			}
			level := slog.LevelDebug
			if msg != "" || err != nil {
				level = said
			}
			if debug || (level != slog.LevelDebug && log.Enabled(ctx, level)) {
				if msg == "" {
					msg = "served"
				}
				msgType, sender, conv := callIDs(req)
				ids := [...]slog.Attr{slog.String("tool", req.Tool), slog.String("message_type", string(msgType)),
					slog.String("sender", sender), slog.String("conversation_id", conv),
					slog.String("outcome", leaguesdk.Outcome(err)), slog.Duration("took", time.Since(start))}
				log.LogAttrs(ctx, level, msg, append(slices.Clip(attrs), ids[:]...)...)
			}
			if m, ok := out.(leaguesdk.Message); ok && debug && err == nil {
				log.LogAttrs(ctx, slog.LevelDebug, "sent", MessageAttrs(m)...)
			}
			return out, err
		}
	}
}

// callIDs returns the message type, sender and conversation id of the
// call req, empty when it has no envelope.
func callIDs(req *leaguesdk.Request) (msgType leaguesdk.MessageType, sender, conv string) {
	if env := req.Envelope; env != nil {
		return env.MessageType, env.Sender, env.ConversationID
	}
	return "", "", ""
}

// callLine is the info line of one call served through LogCalls while its
// handler runs: what the handler said it did, if it said so.
type callLine struct {
	mu     sync.Mutex
	msg    string
	attrs  []slog.Attr
	closed bool // written: what is said later goes on a line of its own
}

type callLineKey struct{}

// callCtx is the context of a call served through LogCalls: ctx with its
// callLine as the value of callLineKey. It is context.WithValue's context
// and the line in one allocation rather than two.
type callCtx struct {
	context.Context
	line callLine
}

func (c *callCtx) Value(key any) any {
	if key == (callLineKey{}) {
		return &c.line
	}
	return c.Context.Value(key)
}

// say keeps msg and attrs for the line and reports whether it did: not
// once the line is written, nor a second time.
func (l *callLine) say(msg string, attrs []slog.Attr) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.msg != "" {
		return false
	}
	l.msg, l.attrs = msg, attrs
	return true
}

// close marks the line written and returns what the handler said.
func (l *callLine) close() (string, []slog.Attr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	return l.msg, l.attrs
}

// LogOutcome logs, at info level, what a handler did with the call it
// serves: msg with attrs, which must not repeat the call line's own keys
// (tool, message_type, sender, conversation_id, outcome, took). When ctx
// is the context of a call served through [LogCalls], they go on that call's
// one info line, written on LogCalls' logger when the handler returns (its
// message becomes msg, and attrs come before the call's ids); the agents
// give LogCalls and their handlers the same logger. Otherwise, and for a
// second outcome of the same call, they go on a line of their own on log.
// Warnings and errors are logged as usual, on lines of their own, at once.
func LogOutcome(ctx context.Context, log *slog.Logger, msg string, attrs ...slog.Attr) {
	if line, ok := ctx.Value(callLineKey{}).(*callLine); ok && line.say(msg, attrs) {
		return
	}
	log.LogAttrs(ctx, slog.LevelInfo, msg, attrs...)
}
