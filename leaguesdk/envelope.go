package leaguesdk

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Envelope holds the fields every league.v2 message carries. Every message
// type embeds it, so its fields appear at the top level of the JSON object.
type Envelope struct {
	Protocol       string      `json:"protocol" validate:"required,protocol"`
	MessageType    MessageType `json:"message_type" validate:"required"`
	Sender         string      `json:"sender" validate:"required,sender"`
	Timestamp      string      `json:"timestamp" validate:"required,utc"`
	ConversationID string      `json:"conversation_id" validate:"required"`
	// AuthToken is empty only in the two registration requests.
	AuthToken string `json:"auth_token"`
}

// Header returns the envelope itself. Through embedding, every message type
// has it, which makes every message a [Message].
func (e *Envelope) Header() *Envelope { return e }

// Message is implemented by every protocol message type of this package.
type Message interface {
	Header() *Envelope
}

// TimeFormat is the layout of every timestamp this module sends: UTC, whole
// seconds, with a Z suffix ("2025-01-15T10:30:00Z").
const TimeFormat = "2006-01-02T15:04:05Z"

// FormatTime formats t in the form this module sends: UTC, whole seconds, Z.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// ParseTime parses a protocol timestamp. It accepts RFC 3339 with or without
// fractional seconds whose zone is "Z" or "+00:00" (also "-00:00"); a
// timestamp without a zone or with a non-zero offset is refused with an
// [*Error] of code E021.
func ParseTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, &Error{Code: CodeInvalidTimestamp, Field: "timestamp",
			Message: "timestamp " + quote(s) + " is not an RFC 3339 time with a UTC zone"}
	}
	if _, off := t.Zone(); off != 0 {
		return time.Time{}, &Error{Code: CodeInvalidTimestamp, Field: "timestamp",
			Message: "timestamp " + quote(s) + " is not in UTC (use Z or +00:00)"}
	}
	return t.UTC(), nil
}

// NewConversationID returns a fresh conversation id.
func NewConversationID() string { return "conv-" + uuid.NewString() }

// NewEnvelope returns an envelope for a message of type t sent by sender at
// time now, carrying token. An empty conversation id is replaced by a fresh one.
func NewEnvelope(t MessageType, sender, token, conversationID string, now time.Time) Envelope {
	if conversationID == "" {
		conversationID = NewConversationID()
	}
	return Envelope{
		Protocol:       Protocol,
		MessageType:    t,
		Sender:         sender,
		Timestamp:      FormatTime(now),
		ConversationID: conversationID,
		AuthToken:      token,
	}
}

// PlayerSender returns the sender value of the player with the given id.
func PlayerSender(id string) string { return "player:" + id }

// RefereeSender returns the sender value of the referee with the given id.
func RefereeSender(id string) string { return "referee:" + id }

// NameSender returns the sender used before registration, made from a
// display name: kind + ":" + the name in lower case with spaces as "_"
// ("Agent Alpha" → "player:agent_alpha").
func NameSender(kind, displayName string) string {
	n := strings.ToLower(strings.TrimSpace(displayName))
	n = strings.Join(strings.Fields(n), "_")
	if n == "" {
		n = "unregistered"
	}
	return kind + ":" + n
}

// SplitSender splits a sender into its kind ("player", "referee",
// "league_manager") and id. It accepts "kind:id", "kind_id" and a bare id
// (kind ""), so that senders of other implementations can be read.
func SplitSender(sender string) (kind, id string) {
	if k, v, ok := strings.Cut(sender, ":"); ok {
		return k, v
	}
	for _, k := range []string{"league_manager", "referee", "player"} {
		if sender == k {
			return k, ""
		}
		if rest, ok := strings.CutPrefix(sender, k+"_"); ok && k != "league_manager" {
			return k, rest
		}
	}
	return "", sender
}

// RoundID is a round number. It is sent as a JSON integer; on receipt it
// also accepts a string holding a number, possibly with a prefix ("2",
// "ROUND_2").
type RoundID int

// UnmarshalJSON implements [json.Unmarshaler].
func (r *RoundID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || bytes.Equal(b, []byte("null")) {
		return nil
	}
	if b[0] != '"' {
		n, err := strconv.ParseFloat(string(b), 64)
		if err != nil || n != float64(int(n)) {
			return fmt.Errorf("round_id: %s is not an integer", b)
		}
		*r = RoundID(int(n))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return fmt.Errorf("round_id: %q holds no round number", s)
	}
	*r = RoundID(n)
	return nil
}

func quote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}
