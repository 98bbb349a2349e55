package referee

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/agentleague/league/internal/jsonscan"
)

// record returns t as one line of JSON, the record the journal keeps: the
// document encoding/json writes for t, built without reflection, and with
// the messages as they are (redact made them valid JSON) rather than
// checked and compacted again at every write of the transcript.
func (t *Transcript) record() ([]byte, error) {
	size := 512
	for _, m := range t.Transcript {
		size += 96 + len(m.Message) + len(m.Error)
	}
	b := make([]byte, 0, size)
	b = appendField(b, `{"schema_version":`, t.SchemaVersion)
	b = appendField(b, `,"last_updated":`, t.LastUpdated)
	b = appendField(b, `,"match_id":`, t.MatchID)
	b = appendField(b, `,"league_id":`, t.LeagueID)
	b = strconv.AppendInt(append(b, `,"round_id":`...), int64(t.RoundID), 10)
	b = appendField(b, `,"game_type":`, t.GameType)
	if t.RefereeID != "" {
		b = appendField(b, `,"referee_id":`, t.RefereeID)
	}
	if t.ConversationID != "" {
		b = appendField(b, `,"conversation_id":`, t.ConversationID)
	}
	b = appendList(append(b, `,"players":`...), t.Players, func(b []byte, p TranscriptPlayer) []byte {
		b = appendField(b, `{"player_id":`, p.PlayerID)
		b = appendField(b, `,"role":`, string(p.Role))
		b = appendField(b, `,"endpoint":`, p.Endpoint)
		return append(b, '}')
	})
	b = appendField(b, `,"state":`, string(t.State))
	b = appendList(append(b, `,"lifecycle":`...), t.Lifecycle, func(b []byte, e LifecycleEntry) []byte {
		b = appendField(b, `{"state":`, string(e.State))
		b = appendField(b, `,"at":`, e.At)
		if e.Note != "" {
			b = appendField(b, `,"note":`, e.Note)
		}
		return append(b, '}')
	})
	b = appendList(append(b, `,"transcript":`...), t.Transcript, func(b []byte, m TranscriptMessage) []byte {
		b = appendField(b, `{"at":`, m.At)
		b = appendField(b, `,"direction":`, m.Direction)
		b = appendField(b, `,"peer":`, m.Peer)
		b = appendField(b, `,"method":`, m.Method)
		if len(m.Message) > 0 {
			b = appendMessage(append(b, `,"message":`...), m.Message)
		}
		if m.Error != "" {
			b = appendField(b, `,"error":`, m.Error)
		}
		return append(b, '}')
	})
	b = append(b, `,"result":`...)
	if t.Result == nil {
		b = append(b, "null"...)
	} else {
		result, err := json.Marshal(t.Result)
		if err != nil {
			return nil, err
		}
		b = append(b, result...)
	}
	b = strconv.AppendBool(append(b, `,"reported":`...), t.Reported)
	return append(b, '}'), nil
}

// appendField appends key (the punctuation and quoted name before a
// member's value) and the string v.
func appendField(b []byte, key, v string) []byte {
	return appendJSONString(append(b, key...), v)
}

// appendList appends list as encoding/json writes a slice: null when it is
// nil, else its elements, each appended by elem, in brackets.
func appendList[T any](b []byte, list []T, elem func([]byte, T) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, e)
	}
	return append(b, ']')
}

// appendMessage appends a message of the transcript: as it is when it is
// on one line, as redact leaves it; compacted when it spans lines (a
// transcript read back from a file that an earlier version indented
// whole), so that the record stays one line.
func appendMessage(b []byte, msg json.RawMessage) []byte {
	if bytes.IndexByte(msg, '\n') < 0 && bytes.IndexByte(msg, '\r') < 0 {
		return append(b, msg...)
	}
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, msg); err != nil {
		q, _ := json.Marshal(string(msg))
		return append(b, q...)
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
