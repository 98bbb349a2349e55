package referee

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/internal/atomicfile"
	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/internal/redact"
	"github.com/agentleague/league/leaguesdk"
)

// Transcript is the record of one match the referee keeps at
// data/matches/<league_id>/<match_id>.json: the match's lifecycle with UTC
// times, every message sent and received (auth tokens redacted), and the
// result. It is written atomically when the match ends (finished or
// aborted) and again when the manager acknowledges the result; the states
// it went through on the way are kept in memory until then, so a match
// costs two writes however long it runs.
type Transcript struct {
	SchemaVersion string `json:"schema_version"`
	LastUpdated   string `json:"last_updated"`
	MatchID       string `json:"match_id"`
	LeagueID      string `json:"league_id"`
	RoundID       int    `json:"round_id"`
	GameType      string `json:"game_type"`
	RefereeID     string `json:"referee_id,omitempty"`
	// ConversationID is the conversation id of the match's messages, kept
	// so that a result reported again from the transcript carries it.
	ConversationID string              `json:"conversation_id,omitempty"`
	Players        []TranscriptPlayer  `json:"players"`
	State          State               `json:"state"`
	Lifecycle      []LifecycleEntry    `json:"lifecycle"`
	Transcript     []TranscriptMessage `json:"transcript"`
	Result         *Result             `json:"result"`
	// Reported is true once the manager acknowledged the result.
	Reported bool `json:"reported"`
}

// TranscriptPlayer is one player of a match.
type TranscriptPlayer struct {
	PlayerID string         `json:"player_id"`
	Role     leaguesdk.Role `json:"role"`
	Endpoint string         `json:"endpoint"`
}

// LifecycleEntry records when a match entered a state.
type LifecycleEntry struct {
	State State  `json:"state"`
	At    string `json:"at"`
	Note  string `json:"note,omitempty"`
}

// Directions of a [TranscriptMessage].
const (
	Sent     = "sent"
	Received = "received"
)

// TranscriptMessage is one message of a match: sent by the referee or
// received from a peer. A call that got no readable reply is recorded as a
// received entry with Error set and no Message.
type TranscriptMessage struct {
	At        string          `json:"at"`
	Direction string          `json:"direction"`
	Peer      string          `json:"peer"`
	Method    string          `json:"method"`
	Message   json.RawMessage `json:"message,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// TranscriptPath returns the path of a match's transcript under a data root.
func TranscriptPath(dataRoot, leagueID, matchID string) string {
	return filepath.Join(dataRoot, "data", "matches", agentkit.SafeFileName(leagueID), agentkit.SafeFileName(matchID)+".json")
}

// ReadTranscript reads a match's transcript from a data root.
func ReadTranscript(dataRoot, leagueID, matchID string) (*Transcript, error) {
	var t Transcript
	if err := atomicfile.ReadJSON(TranscriptPath(dataRoot, leagueID, matchID), &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// recorder owns a match's Transcript and writes it to disk.
type recorder struct {
	mu    sync.Mutex
	store *transcripts
	now   func() time.Time
	t     Transcript
	err   error // first write error, reported once
}

func (r *recorder) at() string { return r.now().UTC().Format(time.RFC3339Nano) }

// message records a message sent to or received from peer: msg is a
// message to encode, or its JSON text (json.RawMessage). It does not
// write the file: messages are flushed with the next state change.
func (r *recorder) message(direction, peer, method string, msg any, callErr error) {
	var raw json.RawMessage
	if msg != nil {
		raw = redactMessage(msg)
	}
	r.add(direction, peer, method, raw, callErr)
}

// raw records a message as the bytes sent or received, whose auth token
// (if any) is token: the token is masked in a copy of them, once.
func (r *recorder) raw(direction, peer, method string, raw []byte, token string) {
	r.add(direction, peer, method, maskToken(raw, token), nil)
}

func (r *recorder) add(direction, peer, method string, raw json.RawMessage, callErr error) {
	e := TranscriptMessage{At: r.at(), Direction: direction, Peer: peer, Method: method, Message: raw}
	if callErr != nil {
		e.Error = leaguesdk.RedactTokens(callErr.Error())
	}
	r.mu.Lock()
	r.t.Transcript = append(r.t.Transcript, e)
	r.mu.Unlock()
}

// state records a state change; the transcript is written when the
// match ends (StateFinished, StateAborted).
func (r *recorder) state(s State, note string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.t.State = s
	r.t.Lifecycle = append(r.t.Lifecycle, LifecycleEntry{State: s, At: r.at(), Note: note})
	switch s {
	case StateFinished: // durable now; its file once the report is answered
		return r.flushLocked(false)
	case StateAborted: // settled: no report follows
		return r.flushLocked(true)
	}
	return nil
}

// set changes the transcript with f without writing it.
func (r *recorder) set(f func(t *Transcript)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.t)
}

// settle changes the transcript with f and writes it, with its match's
// file: the match is settled.
func (r *recorder) settle(f func(t *Transcript)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(&r.t)
	return r.flushLocked(true)
}

func (r *recorder) flushLocked(file bool) error {
	r.t.LastUpdated = leaguesdk.FormatTime(r.now())
	err := r.store.writeWith(&r.t, file)
	if err != nil && r.err == nil {
		r.err = err
		return err
	}
	return nil
}

// redactMessage returns msg as JSON with every auth token replaced.
func redactMessage(msg any) json.RawMessage {
	var raw []byte
	switch m := msg.(type) {
	case json.RawMessage:
		raw = m
	case []byte:
		raw = m
	default:
		b, err := wirejson.Marshal(msg)
		if err != nil {
			return nil
		}
		raw = b
	}
	out, ok := maskTokenMembers(make([]byte, 0, len(raw)), raw)
	if !ok {
		out, _ = json.Marshal(string(raw))
	}
	// Token-shaped text elsewhere is masked too, in place.
	return redact.Append(out[:0], out)
}

// maskToken returns a copy of the JSON text raw with token, the auth
// token it carries (read from its decoded envelope), masked wherever it
// appears as a JSON string, and other token-shaped text masked too. A
// token that would need escaping in JSON is found by redactMessage's
// reading of raw instead.
func maskToken(raw []byte, token string) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if strings.ContainsAny(token, "\"\\") || hasControl(token) {
		return redactMessage(json.RawMessage(raw))
	}
	out := raw
	if token != "" {
		out = bytes.ReplaceAll(raw, []byte(`"`+token+`"`), []byte(`"`+leaguesdk.Redacted+`"`))
	}
	// Token-shaped text elsewhere is masked too; into a copy when
	// ReplaceAll made none.
	dst := make([]byte, 0, len(out))
	if &out[0] != &raw[0] {
		dst = out[:0]
	}
	return redact.Append(dst, out)
}

// hasControl reports whether s holds a control character.
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}

// maskTokenMembers appends to out the JSON text raw with the values of
// its auth_token, token and admin_token members (of the object raw is)
// replaced by leaguesdk.Redacted wherever they appear (empty and null ones
// are kept), the rest byte for byte; raw as it is when it is well-formed
// JSON but not an object. It reports false, with out in an unspecified
// state, when raw is not well-formed JSON.
func maskTokenMembers(out, raw []byte) ([]byte, bool) {
	var tokens struct {
		AuthToken  json.RawMessage `json:"auth_token"`
		Token      json.RawMessage `json:"token"`
		AdminToken json.RawMessage `json:"admin_token"`
	}
	if err := wirejson.Unmarshal(raw, &tokens); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) { // well-formed, but not an object
			return out, false
		}
	}
	out = append(out, raw...)
	for _, v := range [...]json.RawMessage{tokens.AuthToken, tokens.Token, tokens.AdminToken} {
		if len(v) < 3 || v[0] != '"' { // absent, null, "" or not a string
			continue
		}
		out = bytes.ReplaceAll(out, v, []byte(`"`+leaguesdk.Redacted+`"`))
	}
	return out, true
}
