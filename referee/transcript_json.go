package referee

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/agentleague/league/internal/jsonscan"
)

// flatten puts each message of t from index from on on one line
// (flatMessage) and returns the number of t's messages: a recorder
// flattens each message once, not at every write of its transcript.
func (t *Transcript) flatten(from int) int {
	for i := from; i < len(t.Transcript); i++ {
		t.Transcript[i].Message = flatMessage(t.Transcript[i].Message)
	}
	return len(t.Transcript)
}

// resultJSON returns t's result as encoding/json writes it.
func (t *Transcript) resultJSON() ([]byte, error) {
	if t.Result == nil {
		return []byte("null"), nil
	}
	return json.Marshal(t.Result)
}

// layout is the white space a transcript is encoded with: none (oneLine,
// the journal's record), or document's (laidOut, the match's file).
type layout bool

const (
	oneLine layout = false
	laidOut layout = true
)

// member returns what comes before each member.
func (l layout) member() string { return l.pick("", "\n  ") }

// colon returns what comes between a member's name and its value.
func (l layout) colon() string { return l.pick(":", ": ") }

// elem returns what comes before each element of a list.
func (l layout) elem() string { return l.pick("", "\n    ") }

// close returns what comes before the closing bracket of a list that has
// elements.
func (l layout) close() string { return l.pick("", "\n  ") }

// end returns what comes after the last member, and after the closing
// brace.
func (l layout) end() string { return l.pick("", "\n") }

func (l layout) pick(one, laid string) string {
	if l == laidOut {
		return laid
	}
	return one
}

// appendTo appends t to b in layout l, with result as the encoding of its
// result (see resultJSON). t's messages must each be on one line (see
// flatten). b may be nil: the buffer is then made the size the encoding
// takes when no string needs escaping, so that it is not grown on the way.
func (t *Transcript) appendTo(b []byte, l layout, result []byte) []byte {
	if b == nil {
		b = make([]byte, 0, t.size(len(result), l))
	}
	b = append(b, '{')
	b = appendField(b, l, "", "schema_version", t.SchemaVersion)
	b = appendField(b, l, ",", "last_updated", t.LastUpdated)
	b = appendField(b, l, ",", "match_id", t.MatchID)
	b = appendField(b, l, ",", "league_id", t.LeagueID)
	b = strconv.AppendInt(appendKey(b, l, ",", "round_id"), int64(t.RoundID), 10)
	b = appendField(b, l, ",", "game_type", t.GameType)
	if t.RefereeID != "" {
		b = appendField(b, l, ",", "referee_id", t.RefereeID)
	}
	if t.ConversationID != "" {
		b = appendField(b, l, ",", "conversation_id", t.ConversationID)
	}
	b = appendList(appendKey(b, l, ",", "players"), l, t.Players, func(b []byte, p TranscriptPlayer) []byte {
		b = appendField(b, oneLine, "{", "player_id", p.PlayerID)
		b = appendField(b, oneLine, ",", "role", string(p.Role))
		b = appendField(b, oneLine, ",", "endpoint", p.Endpoint)
		return append(b, '}')
	})
	b = appendField(b, l, ",", "state", string(t.State))
	b = appendList(appendKey(b, l, ",", "lifecycle"), l, t.Lifecycle, func(b []byte, e LifecycleEntry) []byte {
		b = appendField(b, oneLine, "{", "state", string(e.State))
		b = appendField(b, oneLine, ",", "at", e.At)
		if e.Note != "" {
			b = appendField(b, oneLine, ",", "note", e.Note)
		}
		return append(b, '}')
	})
	b = appendList(appendKey(b, l, ",", "transcript"), l, t.Transcript, func(b []byte, m TranscriptMessage) []byte {
		b = appendField(b, oneLine, "{", "at", m.At)
		b = appendField(b, oneLine, ",", "direction", m.Direction)
		b = appendField(b, oneLine, ",", "peer", m.Peer)
		b = appendField(b, oneLine, ",", "method", m.Method)
		if len(m.Message) > 0 {
			b = append(appendKey(b, oneLine, ",", "message"), m.Message...)
		}
		if m.Error != "" {
			b = appendField(b, oneLine, ",", "error", m.Error)
		}
		return append(b, '}')
	})
	b = append(appendKey(b, l, ",", "result"), result...)
	b = strconv.AppendBool(appendKey(b, l, ",", "reported"), t.Reported)
	b = append(append(b, l.end()...), '}')
	return append(b, l.end()...)
}

// size returns the length of t's encoding in layout l when no string
// needs escaping, its result's encoding taking n bytes.
func (t *Transcript) size(n int, l layout) int {
	const members = 14 // of a transcript, each a name and a value
	size := 2 + n + members*(len(l.member())+len(l.colon())+3) + 192 + 2*len(l.end()) +
		len(t.SchemaVersion) + len(t.LastUpdated) + len(t.MatchID) + len(t.LeagueID) + len(t.GameType) +
		len(t.RefereeID) + len(t.ConversationID) + len(t.State)
	for _, p := range t.Players {
		size += len(l.elem()) + 48 + len(p.PlayerID) + len(p.Role) + len(p.Endpoint)
	}
	for _, e := range t.Lifecycle {
		size += len(l.elem()) + 32 + len(e.State) + len(e.At) + len(e.Note)
	}
	for _, m := range t.Transcript {
		size += len(l.elem()) + 72 + len(m.At) + len(m.Direction) + len(m.Peer) + len(m.Method) + len(m.Message) + len(m.Error)
	}
	return size
}

// appendKey appends a member's name in layout l, after sep (the
// punctuation before the member: "{" or ",").
func appendKey(b []byte, l layout, sep, name string) []byte {
	b = append(append(b, sep...), l.member()...)
	b = append(append(append(b, '"'), name...), '"')
	return append(b, l.colon()...)
}

// appendField appends the member name, its value the string v, in
// layout l after sep.
func appendField(b []byte, l layout, sep, name, v string) []byte {
	return appendJSONString(appendKey(b, l, sep, name), v)
}

// appendList appends list as encoding/json writes a slice, in layout l:
// null when it is nil, else its elements, each appended by elem, in
// brackets.
func appendList[T any](b []byte, l layout, list []T, elem func([]byte, T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(append(b, l.elem()...), e)
	}
	if len(list) > 0 {
		b = append(b, l.close()...)
	}
	return append(b, ']')
}

// flatMessage returns a message of the transcript on one line: msg itself
// when it is on one line, as redact leaves it; compacted when it spans
// lines (a transcript read back from a file that an earlier version
// indented whole), so that the record stays one line.
func flatMessage(msg json.RawMessage) json.RawMessage {
	if bytes.IndexByte(msg, '\n') < 0 && bytes.IndexByte(msg, '\r') < 0 {
		return msg
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, msg); err != nil {
		q, _ := json.Marshal(string(msg))
		return q
	}
	return buf.Bytes()
}

// appendJSONString appends s as encoding/json writes a string: a string
// of printable ASCII without a quote, a backslash or an HTML special
// character as it is, any other through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// document returns a transcript record as the match's file holds it: one
// member of the transcript per line, and each element of its lists
// (players, lifecycle, messages) on a line of its own — a document people
// read and diff, which tools read as any JSON. A record that is not an
// object is written as it is.
func document(record []byte) []byte {
	out := make([]byte, 0, len(record)+len(record)/8+64)
	out = append(out, '{')
	first := true
	err := jsonscan.Members(record, func(key []byte, _ bool, value []byte) error {
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, "\n  \""...)
		out = append(out, key...)
		out = append(out, "\": "...)
		if len(value) < 2 || value[0] != '[' {
			out = append(out, value...)
			return nil
		}
		out = append(out, '[')
		n := 0
		err := jsonscan.Elements(value, func(elem []byte) error {
			if n > 0 {
				out = append(out, ',')
			}
			n++
			out = append(out, "\n    "...)
			out = append(out, elem...)
			return nil
		})
		if n == 0 {
			out = append(out, ']')
			return err
		}
		out = append(out, "\n  ]"...)
		return err
	})
	if err != nil {
		return append(append(make([]byte, 0, len(record)+1), record...), '\n')
	}
	if first {
		return append(out, "}\n"...)
	}
	return append(out, "\n}\n"...)
}
