package leaguesdk_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

func TestGameJoinAckDecodesEveryShape(t *testing.T) {
	cases := []struct {
		name         string
		in           string
		accept, ok   bool
		code         leaguesdk.Code
		decodeFails  bool
		wantPlayerID string
	}{
		{name: "bool true", in: `{"message_type":"GAME_JOIN_ACK","accept":true}`, accept: true, ok: true},
		{name: "bool false", in: `{"message_type":"GAME_JOIN_ACK","accept":false}`, ok: true},
		{name: "string true", in: `{"accept":"true"}`, accept: true, ok: true},
		{name: "string FALSE", in: `{"accept":"FALSE"}`, ok: true},
		{name: "string True", in: `{"accept":"True"}`, accept: true, ok: true},
		{name: "alias accepted", in: `{"accepted":true}`, accept: true, ok: true},
		{name: "alias as string", in: `{"accepted":"false"}`, ok: true},
		{name: "accept wins over alias", in: `{"accept":false,"accepted":true}`, ok: true},
		{name: "null accept is absent, alias not read", in: `{"accept":null,"accepted":false}`},
		{name: "invalid string", in: `{"accept":"yes"}`, ok: true, code: leaguesdk.CodeMissingRequiredField},
		{name: "invalid number", in: `{"accept":1}`, ok: true, code: leaguesdk.CodeMissingRequiredField},
		{name: "join ack without accept", in: `{"message_type":"GAME_JOIN_ACK","player_id":"P01"}`, accept: true, ok: true, wantPlayerID: "P01"},
		{name: "join ack type in another case", in: `{"message_type":"game_join_ack"}`, accept: true, ok: true},
		{name: "bare ack object", in: `{"status":"ok"}`},
		{name: "MCP-native ACK", in: `{"status":"ACK"}`, accept: true, ok: true},
		{name: "MCP-native ack in lower case", in: `{"status":"ack","sender":"player:P02"}`, accept: true, ok: true},
		{name: "ACK as a status of another message", in: `{"message_type":"ACK","status":"ACK"}`},
		{name: "ACK and a refusal", in: `{"status":"ACK","accept":false}`, ok: true},
		{name: "bare ack string", in: `"ok"`},
		{name: "null", in: `null`},
		{name: "field of another type", in: `{"match_id":5,"player_id":"P02","accept":"true"}`, accept: true, ok: true,
			decodeFails: true, wantPlayerID: "P02"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var a leaguesdk.GameJoinAck
			if err := json.Unmarshal([]byte(tc.in), &a); (err != nil) != tc.decodeFails {
				t.Fatalf("decode error %v, want failure %v", err, tc.decodeFails)
			}
			// The agents read answers with the drop-in: the same message.
			var viaWire leaguesdk.GameJoinAck
			if err := wirejson.Unmarshal([]byte(tc.in), &viaWire); (err != nil) != tc.decodeFails {
				t.Fatalf("drop-in decode error %v, want failure %v", err, tc.decodeFails)
			}
			if !reflect.DeepEqual(viaWire, a) {
				t.Fatalf("the drop-in read %+v, encoding/json %+v", viaWire, a)
			}
			accept, ok, err := a.Answer()
			if accept != tc.accept || ok != tc.ok || leaguesdk.CodeOf(err) != tc.code || (tc.code == "") != (err == nil) {
				t.Fatalf("Answer() = %v, %v, %v; want %v, %v, code %q", accept, ok, err, tc.accept, tc.ok, tc.code)
			}
			if a.PlayerID != tc.wantPlayerID {
				t.Fatalf("PlayerID = %q, want %q", a.PlayerID, tc.wantPlayerID)
			}
		})
	}
}

func TestChooseParityResponseDecodesEveryShape(t *testing.T) {
	cases := []struct {
		name        string
		in          string
		choice      string
		ok          bool
		code        leaguesdk.Code
		decodeFails bool
	}{
		{name: "parity_choice", in: `{"message_type":"CHOOSE_PARITY_RESPONSE","parity_choice":"even"}`, choice: "even", ok: true},
		{name: "alias choice", in: `{"choice":"odd"}`, choice: "odd", ok: true},
		{name: "parity_choice wins over alias", in: `{"parity_choice":"odd","choice":"even"}`, choice: "odd", ok: true},
		{name: "null parity_choice is absent, alias not read", in: `{"parity_choice":null,"choice":"even"}`},
		{name: "move_data", in: `{"message_type":"GAME_MOVE_RESPONSE","move_data":{"move_type":"parity","choice":"odd"}}`, choice: "odd", ok: true},
		{name: "move_data wins", in: `{"parity_choice":"even","move_data":{"choice":"odd"}}`, choice: "odd", ok: true},
		{name: "move_data in another case wins", in: `{"parity_choice":"even","MOVE_DATA":{"choice":"odd"}}`, choice: "odd", ok: true},
		{name: "escaped key", in: `{"parity_choice":"even","move\u005fdata":{"choice":"odd"}}`, choice: "odd", ok: true},
		{name: "null move_data choice", in: `{"parity_choice":"even","move_data":{"choice":null}}`, choice: "even", ok: true},
		{name: "kept as received", in: `{"parity_choice":"EVEN"}`, choice: "EVEN", ok: true},
		{name: "empty string", in: `{"parity_choice":""}`, choice: "", ok: true},
		{name: "not a string", in: `{"parity_choice": 7 }`, choice: "7", ok: true},
		{name: "object", in: `{"parity_choice":{"a":1}}`, choice: `{"a":1}`, ok: true},
		{name: "response without choice", in: `{"message_type":"CHOOSE_PARITY_RESPONSE"}`, ok: true, code: leaguesdk.CodeMissingRequiredField},
		{name: "move response without choice", in: `{"message_type":"game_move_response","move_data":{}}`, ok: true, code: leaguesdk.CodeMissingRequiredField},
		{name: "bare ack object", in: `{"status":"ok"}`},
		{name: "bare ack string", in: `"ok"`},
		{name: "null", in: `null`},
		{name: "field of another type", in: `{"match_id":5,"parity_choice":"even"}`, choice: "even", ok: true, decodeFails: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r leaguesdk.ChooseParityResponse
			if err := json.Unmarshal([]byte(tc.in), &r); (err != nil) != tc.decodeFails {
				t.Fatalf("decode error %v, want failure %v", err, tc.decodeFails)
			}
			var viaWire leaguesdk.ChooseParityResponse
			if err := wirejson.Unmarshal([]byte(tc.in), &viaWire); (err != nil) != tc.decodeFails {
				t.Fatalf("drop-in decode error %v, want failure %v", err, tc.decodeFails)
			}
			if !reflect.DeepEqual(viaWire, r) {
				t.Fatalf("the drop-in read %+v, encoding/json %+v", viaWire, r)
			}
			choice, ok, err := r.Choice()
			if choice != tc.choice || ok != tc.ok || leaguesdk.CodeOf(err) != tc.code || (tc.code == "") != (err == nil) {
				t.Fatalf("Choice() = %q, %v, %v; want %q, %v, code %q", choice, ok, err, tc.choice, tc.ok, tc.code)
			}
			if string(r.ParityChoice) != tc.choice {
				t.Fatalf("ParityChoice = %q, want %q", r.ParityChoice, tc.choice)
			}
		})
	}
}

// The answers are sent strictly: encoding is the profile's shape, and
// decoding what was encoded gives the message back.
func TestAnswersRoundTrip(t *testing.T) {
	env := func(mt leaguesdk.MessageType) leaguesdk.Envelope {
		return leaguesdk.NewEnvelope(mt, "player:P01", testToken, "conv-1", fixedNow)
	}
	for _, accept := range []bool{true, false} {
		in := &leaguesdk.GameJoinAck{Envelope: env(leaguesdk.MsgGameJoinAck), MatchID: "R1M1", PlayerID: "P01",
			ArrivalTimestamp: leaguesdk.FormatTime(fixedNow), Accept: accept}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil || fields["accept"] != accept || fields["accepted"] != nil {
			t.Fatalf("encoded %s", b)
		}
		var out leaguesdk.GameJoinAck
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&out, in) {
			t.Fatalf("round trip of %s gave %+v", b, out)
		}
		if got, ok, err := out.Answer(); got != accept || !ok || err != nil {
			t.Fatalf("Answer() = %v, %v, %v", got, ok, err)
		}
	}
	for _, p := range []leaguesdk.Parity{leaguesdk.Even, leaguesdk.Odd} {
		in := &leaguesdk.ChooseParityResponse{Envelope: env(leaguesdk.MsgChooseParityResponse), MatchID: "R1M1", PlayerID: "P01", ParityChoice: p}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var fields map[string]any
		if err := json.Unmarshal(b, &fields); err != nil || fields["parity_choice"] != string(p) || fields["choice"] != nil {
			t.Fatalf("encoded %s", b)
		}
		var out leaguesdk.ChooseParityResponse
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(&out, in) {
			t.Fatalf("round trip of %s gave %+v", b, out)
		}
		if err := leaguesdk.Validate(&out); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := out.Choice(); got != string(p) || !ok || err != nil {
			t.Fatalf("Choice() = %q, %v, %v", got, ok, err)
		}
	}
}

// A GAME_MOVE_RESPONSE, a choice under its alias and a bare acknowledgement
// all decode into a ChooseParityResponse; Choice tells what was answered.
func ExampleChooseParityResponse_Choice() {
	for _, reply := range []string{
		`{"message_type":"CHOOSE_PARITY_RESPONSE","match_id":"R1M1","parity_choice":"even"}`,
		`{"message_type":"GAME_MOVE_RESPONSE","match_id":"R1M1","move_data":{"choice":"odd"}}`,
		`{"match_id":"R1M1","choice":"odd"}`,
		`"ok"`,
	} {
		var r leaguesdk.ChooseParityResponse
		if err := json.Unmarshal([]byte(reply), &r); err != nil {
			fmt.Println(err)
			continue
		}
		choice, ok, err := r.Choice()
		fmt.Printf("%q %v %v\n", choice, ok, err)
	}
	// Output:
	// "even" true <nil>
	// "odd" true <nil>
	// "odd" true <nil>
	// "" false <nil>
}

func TestStartMatchResponseAccepted(t *testing.T) {
	for in, want := range map[string]bool{
		`{"message_type":"START_MATCH_RESPONSE","match_id":"R1M1","status":"ACCEPTED"}`: true,
		`{"status":"REGISTERED"}`:               true,
		`{"status":"STARTED"}`:                  true,
		`{"status":"REJECTED","reason":"busy"}`: false,
		`{"status":"ACK"}`:                      false,
		`{}`:                                    false,
	} {
		var r leaguesdk.StartMatchResponse
		if err := json.Unmarshal([]byte(in), &r); err != nil {
			t.Fatal(err)
		}
		if r.Accepted() != want {
			t.Errorf("%s: Accepted() = %v, want %v", in, r.Accepted(), want)
		}
	}
}
