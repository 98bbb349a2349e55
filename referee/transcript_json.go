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
	b = append(b, `{"schema_version":`...)
	b = appendJSONString(b, t.SchemaVersion)
	b = append(b, `,"last_updated":`...)
	b = appendJSONString(b, t.LastUpdated)
	b = append(b, `,"match_id":`...)
	b = appendJSONString(b, t.MatchID)
	b = append(b, `,"league_id":`...)
	b = appendJSONString(b, t.LeagueID)
	b = append(b, `,"round_id":`...)
	b = strconv.AppendInt(b, int64(t.RoundID), 10)
	b = append(b, `,"game_type":`...)
	b = appendJSONString(b, t.GameType)
	if t.RefereeID != "" {
		b = append(b, `,"referee_id":`...)
		b = appendJSONString(b, t.RefereeID)
	}
	if t.ConversationID != "" {
		b = append(b, `,"conversation_id":`...)
		b = appendJSONString(b, t.ConversationID)
	}
	b = append(b, `,"players":`...)
	if t.Players == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, p := range t.Players {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"player_id":`...)
			b = appendJSONString(b, p.PlayerID)
			b = append(b, `,"role":`...)
			b = appendJSONString(b, string(p.Role))
			b = append(b, `,"endpoint":`...)
			b = appendJSONString(b, p.Endpoint)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"state":`...)
	b = appendJSONString(b, string(t.State))
	b = append(b, `,"lifecycle":`...)
	if t.Lifecycle == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, e := range t.Lifecycle {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"state":`...)
			b = appendJSONString(b, string(e.State))
			b = append(b, `,"at":`...)
			b = appendJSONString(b, e.At)
			if e.Note != "" {
				b = append(b, `,"note":`...)
				b = appendJSONString(b, e.Note)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"transcript":`...)
	if t.Transcript == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range t.Transcript {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"at":`...)
			b = appendJSONString(b, m.At)
			b = append(b, `,"direction":`...)
			b = appendJSONString(b, m.Direction)
			b = append(b, `,"peer":`...)
			b = appendJSONString(b, m.Peer)
			b = append(b, `,"method":`...)
			b = appendJSONString(b, m.Method)
			if len(m.Message) > 0 {
				b = append(b, `,"message":`...)
				b = appendMessage(b, m.Message)
			}
			if m.Error != "" {
				b = append(b, `,"error":`...)
				b = appendJSONString(b, m.Error)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
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
	b = append(b, `,"reported":`...)
	b = strconv.AppendBool(b, t.Reported)
	return append(b, '}'), nil
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
