package referee

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

func sampleTranscripts() []*Transcript {
	full := &Transcript{
		SchemaVersion: "1.0", LastUpdated: "2025-01-15T10:30:00.123Z", MatchID: "R1M1", LeagueID: "league_2025_even_odd",
		RoundID: 1, GameType: "even_odd", RefereeID: "REF01", ConversationID: "conv-1",
		Players: []TranscriptPlayer{{PlayerID: "P01", Role: leaguesdk.PlayerA, Endpoint: "http://127.0.0.1:8101/mcp"},
			{PlayerID: "P02", Role: leaguesdk.PlayerB, Endpoint: "http://[::1]:8102/mcp?a=1&b=<2>"}},
		State: StateFinished,
		Lifecycle: []LifecycleEntry{{State: "WAITING_FOR_PLAYERS", At: "2025-01-15T10:30:00Z"},
			{State: StateFinished, At: "2025-01-15T10:30:01Z", Note: "a \"quoted\" note, a tab\t, é and \u2028"}},
		Transcript: []TranscriptMessage{
			{At: "2025-01-15T10:30:00Z", Direction: Sent, Peer: "P01", Method: "handle_game_invitation",
				Message: json.RawMessage(`{"message_type":"GAME_INVITATION","auth_token":"[REDACTED]","n":[1,2.5,{"x":null}]}`)},
			{At: "2025-01-15T10:30:00Z", Direction: Received, Peer: "P02", Method: "choose_parity", Error: "timeout after 30s: \x01"},
		},
		Result: &Result{Status: leaguesdk.ResultWin, Winner: "P01", Score: map[string]int{"P02": 0, "P01": 3},
			DrawnNumber: 8, NumberParity: leaguesdk.Even, Choices: map[string]string{"P01": "even", "P02": "odd"}, Reason: "P01 chose even"},
		Reported: true,
	}
	empty := &Transcript{}
	lists := &Transcript{MatchID: "R2M1", Players: []TranscriptPlayer{}, Lifecycle: []LifecycleEntry{}, Transcript: []TranscriptMessage{}}
	return []*Transcript{full, empty, lists}
}

// The journal's record of a transcript is what encoding/json writes for it.
func TestTranscriptRecordIsWhatMarshalWrites(t *testing.T) {
	for _, tr := range sampleTranscripts() {
		got, err := tr.record()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("record\n%s\nwant\n%s", got, want)
		}
	}
}

// A message that spans lines (read back from a file an earlier version
// indented) is compacted: the record stays one line.
func TestTranscriptRecordStaysOneLine(t *testing.T) {
	tr := sampleTranscripts()[0]
	tr.Transcript[0].Message = json.RawMessage("{\n  \"message_type\": \"GAME_INVITATION\",\r\n  \"n\": [1, 2]\n}")
	got, err := tr.record()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(got, "\r\n") {
		t.Fatalf("record spans lines: %s", got)
	}
	var back Transcript
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	if string(back.Transcript[0].Message) != `{"message_type":"GAME_INVITATION","n":[1,2]}` {
		t.Errorf("message %s", back.Transcript[0].Message)
	}
}

// A match's file is its record laid out a member a line and a list
// element a line, and reads back as the same transcript.
func TestTranscriptDocumentReadsAsTheRecord(t *testing.T) {
	for _, tr := range sampleTranscripts() {
		record, err := tr.record()
		if err != nil {
			t.Fatal(err)
		}
		doc := document(record)
		var fromDoc, fromRecord Transcript
		if err := json.Unmarshal(doc, &fromDoc); err != nil {
			t.Fatalf("%v:\n%s", err, doc)
		}
		if err := json.Unmarshal(record, &fromRecord); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromDoc, fromRecord) {
			t.Errorf("document reads as %+v, record as %+v", fromDoc, fromRecord)
		}
		lines := strings.Split(strings.TrimSuffix(string(doc), "\n"), "\n")
		if !strings.HasSuffix(string(doc), "}\n") || lines[0] != "{" {
			t.Errorf("document:\n%s", doc)
		}
		if tr.MatchID == "R1M1" {
			// 2 braces, 14 members, 2 players, 2 lifecycle entries, 2
			// messages, and the three lists' closing brackets.
			if len(lines) != 2+14+2+2+2+3 {
				t.Errorf("%d lines:\n%s", len(lines), doc)
			}
			if !strings.Contains(string(doc), "\n    {\"at\":\"2025-01-15T10:30:00Z\",\"direction\":\"sent\"") {
				t.Errorf("a message is not a line of its own:\n%s", doc)
			}
		}
		if tr.MatchID == "R2M1" && !strings.Contains(string(doc), `"players": [],`) {
			t.Errorf("an empty list:\n%s", doc)
		}
	}
	if got := document([]byte(`[1]`)); string(got) != "[1]\n" {
		t.Errorf("document of a non-object = %q", got)
	}
}

// A match's file laid out from its transcript (its messages put on one
// line first, as a recorder does) is what document makes of the
// transcript's record, byte for byte, in a buffer of its own or appended
// to one in use.
func TestTranscriptAppendDocumentIsDocumentOfRecord(t *testing.T) {
	multiline := sampleTranscripts()[0]
	multiline.Transcript[0].Message = json.RawMessage("{\n  \"message_type\": \"GAME_INVITATION\",\r\n  \"n\": [1, 2]\n}")
	one := sampleTranscripts()[0]
	one.Players, one.Lifecycle, one.Transcript = one.Players[:1], one.Lifecycle[:1], one.Transcript[1:]
	for _, tr := range append(sampleTranscripts(), multiline, one) {
		record, err := tr.record()
		if err != nil {
			t.Fatal(err)
		}
		want := document(record)
		result, err := tr.resultJSON()
		if err != nil {
			t.Fatal(err)
		}
		tr.flatten(0)
		if got := tr.appendTo(nil, laidOut, result); !bytes.Equal(got, want) {
			t.Errorf("laid out\n%s\nwant\n%s", got, want)
		}
		if got := tr.appendTo([]byte("x"), laidOut, result); string(got) != "x"+string(want) {
			t.Errorf("laid out after x\n%s\nwant\n%s", got, want)
		}
	}
	if got := document([]byte(`[1]`)); string(got) != "[1]\n" {
		t.Errorf("document of a non-object = %q", got)
	}
}

// record returns t as one line of JSON, the record the journal keeps: the
// document encoding/json writes for t, built without reflection, and with
// the messages as they are (redact made them valid JSON, flatten put them
// on one line) rather than checked and compacted again.
func (t *Transcript) record() ([]byte, error) {
	result, err := t.resultJSON()
	if err != nil {
		return nil, err
	}
	flat := t.flatCopy()
	return flat.appendTo(nil, oneLine, result), nil
}

// flatCopy returns a copy of t whose messages are each on one line (see
// flatten); t is left as it is.
func (t *Transcript) flatCopy() Transcript {
	c := *t
	c.Transcript = slices.Clone(t.Transcript)
	c.flatten(0)
	return c
}
