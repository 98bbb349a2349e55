package leaguesdk_test

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

func parityResponse() *leaguesdk.ChooseParityResponse {
	return &leaguesdk.ChooseParityResponse{
		Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", testToken, "conv-r1m1-001", fixedNow),
		MatchID:      "R1M1",
		PlayerID:     "P01",
		ParityChoice: leaguesdk.Even,
	}
}

func playerRegistration() *leaguesdk.LeagueRegisterRequest {
	return &leaguesdk.LeagueRegisterRequest{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgLeagueRegisterRequest, "player:agent_alpha", "", "conv-player-alpha-reg-001", fixedNow),
		PlayerMeta: leaguesdk.PlayerMeta{
			DisplayName:     "Agent Alpha",
			Version:         "1.0.0",
			GameTypes:       []string{leaguesdk.GameEvenOdd},
			ContactEndpoint: "http://localhost:8101/mcp",
			ProtocolVersion: leaguesdk.ProtocolVersion,
		},
	}
}

func refereeRegistration() *leaguesdk.RefereeRegisterRequest {
	return &leaguesdk.RefereeRegisterRequest{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRefereeRegisterRequest, "referee:referee_alpha", "", "conv-ref-alpha-reg-001", fixedNow),
		RefereeMeta: leaguesdk.RefereeMeta{
			DisplayName:          "Referee Alpha",
			Version:              "1.0.0",
			GameTypes:            []string{leaguesdk.GameEvenOdd},
			ContactEndpoint:      "http://localhost:8001/mcp",
			MaxConcurrentMatches: 2,
		},
	}
}

func resultReport() *leaguesdk.MatchResultReport {
	return &leaguesdk.MatchResultReport{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgMatchResultReport, "referee:REF01", testToken, "conv-r1m1-report", fixedNow),
		LeagueID: "league_2025_even_odd",
		RoundID:  1,
		MatchID:  "R1M1",
		GameType: leaguesdk.GameEvenOdd,
		Result: leaguesdk.MatchResult{
			Winner: "P01",
			Score:  map[string]int{"P01": 3, "P02": 0},
			Status: leaguesdk.ResultWin,
		},
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name  string
		msg   func() leaguesdk.Message
		code  leaguesdk.Code // "" means valid
		field string
	}{
		{"valid parity response", func() leaguesdk.Message { return parityResponse() }, "", ""},
		{"valid odd", func() leaguesdk.Message { m := parityResponse(); m.ParityChoice = leaguesdk.Odd; return m }, "", ""},
		{"valid call", func() leaguesdk.Message { return chooseParityCall() }, "", ""},
		{"valid player registration", func() leaguesdk.Message { return playerRegistration() }, "", ""},
		{"valid referee registration", func() leaguesdk.Message { return refereeRegistration() }, "", ""},
		{"valid report", func() leaguesdk.Message { return resultReport() }, "", ""},
	}
	for _, choice := range []string{"EVEN", "Even", "ODD", "Odd", "0", "1", "e", "o", " even", "odd ", "evens", "null"} {
		cases = append(cases, struct {
			name  string
			msg   func() leaguesdk.Message
			code  leaguesdk.Code
			field string
		}{"parity " + choice, func() leaguesdk.Message {
			m := parityResponse()
			m.ParityChoice = leaguesdk.Parity(choice)
			return m
		}, leaguesdk.CodeInvalidParityChoice, "parity_choice"})
	}
	badTimes := []string{
		"2025-01-15T10:15:05",        // no zone
		"2025-01-15T10:15:05.123",    // no zone, fractional
		"2025-01-15T12:15:05+02:00",  // non-zero offset
		"2025-01-15T05:15:05-05:00",  // non-zero offset
		"2025-01-15 10:15:05Z",       // not RFC 3339
		"15/01/2025 10:15:05",        // not RFC 3339
		"1736936105",                 // epoch seconds
		"2025-01-15",                 // date only
		"2025-13-15T10:15:05Z",       // month 13
		"2025-01-15T10:15:05+00:00x", // trailing junk
	}
	for _, ts := range badTimes {
		cases = append(cases, struct {
			name  string
			msg   func() leaguesdk.Message
			code  leaguesdk.Code
			field string
		}{"timestamp " + ts, func() leaguesdk.Message {
			m := parityResponse()
			m.Timestamp = ts
			return m
		}, leaguesdk.CodeInvalidTimestamp, "timestamp"})
	}
	for _, ts := range []string{"2025-01-15T10:15:05Z", "2025-01-15T10:15:05+00:00", "2025-01-15T10:15:05.5Z",
		"2025-01-15T10:15:05.123456+00:00", "2025-01-15T10:15:05.123456789Z"} {
		cases = append(cases, struct {
			name  string
			msg   func() leaguesdk.Message
			code  leaguesdk.Code
			field string
		}{"timestamp accepted " + ts, func() leaguesdk.Message {
			m := parityResponse()
			m.Timestamp = ts
			return m
		}, "", ""})
	}
	more := []struct {
		name  string
		msg   func() leaguesdk.Message
		code  leaguesdk.Code
		field string
	}{
		{"missing parity", func() leaguesdk.Message { m := parityResponse(); m.ParityChoice = ""; return m },
			leaguesdk.CodeMissingRequiredField, "parity_choice"},
		{"missing match_id", func() leaguesdk.Message { m := parityResponse(); m.MatchID = ""; return m },
			leaguesdk.CodeMissingRequiredField, "match_id"},
		{"missing protocol", func() leaguesdk.Message { m := parityResponse(); m.Protocol = ""; return m },
			leaguesdk.CodeMissingRequiredField, "protocol"},
		{"missing message_type", func() leaguesdk.Message { m := parityResponse(); m.MessageType = ""; return m },
			leaguesdk.CodeMissingRequiredField, "message_type"},
		{"missing sender", func() leaguesdk.Message { m := parityResponse(); m.Sender = ""; return m },
			leaguesdk.CodeMissingRequiredField, "sender"},
		{"missing timestamp", func() leaguesdk.Message { m := parityResponse(); m.Timestamp = ""; return m },
			leaguesdk.CodeMissingRequiredField, "timestamp"},
		{"missing conversation_id", func() leaguesdk.Message { m := parityResponse(); m.ConversationID = ""; return m },
			leaguesdk.CodeMissingRequiredField, "conversation_id"},
		{"sender with a space", func() leaguesdk.Message { m := parityResponse(); m.Sender = "player: P01"; return m },
			leaguesdk.CodeMissingRequiredField, "sender"},
		{"sender too long", func() leaguesdk.Message {
			m := parityResponse()
			m.Sender = "player:" + strings.Repeat("p", 130)
			return m
		},
			leaguesdk.CodeMissingRequiredField, "sender"},
		{"sender without colon accepted", func() leaguesdk.Message { m := parityResponse(); m.Sender = "player_P01"; return m }, "", ""},
		{"protocol league.v1", func() leaguesdk.Message { m := parityResponse(); m.Protocol = "league.v1"; return m },
			leaguesdk.CodeProtocolVersionMismatch, "protocol"},
		{"protocol in upper case", func() leaguesdk.Message { m := parityResponse(); m.Protocol = "LEAGUE.V2"; return m },
			leaguesdk.CodeProtocolVersionMismatch, "protocol"},
		{"protocol_version 1.9.9", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.ProtocolVersion = "1.9.9"; return m },
			leaguesdk.CodeProtocolVersionMismatch, "player_meta.protocol_version"},
		{"protocol_version garbage", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.ProtocolVersion = "two"; return m },
			leaguesdk.CodeProtocolVersionMismatch, "player_meta.protocol_version"},
		{"protocol_version 2.0.0", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.ProtocolVersion = "2.0.0"; return m }, "", ""},
		{"protocol_version 2", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.ProtocolVersion = "2"; return m }, "", ""},
		{"protocol_version absent", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.ProtocolVersion = ""; return m }, "", ""},
		{"referee protocol_version 1.0", func() leaguesdk.Message { m := refereeRegistration(); m.RefereeMeta.ProtocolVersion = "1.0"; return m },
			leaguesdk.CodeProtocolVersionMismatch, "referee_meta.protocol_version"},
		{"player without game types", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.GameTypes = nil; return m },
			leaguesdk.CodeMissingRequiredField, "player_meta.game_types"},
		{"player with empty game type", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.GameTypes = []string{""}; return m },
			leaguesdk.CodeMissingRequiredField, "player_meta.game_types[0]"},
		{"player without endpoint", func() leaguesdk.Message { m := playerRegistration(); m.PlayerMeta.ContactEndpoint = ""; return m },
			leaguesdk.CodeMissingRequiredField, "player_meta.contact_endpoint"},
		{"player with relative endpoint", func() leaguesdk.Message {
			m := playerRegistration()
			m.PlayerMeta.ContactEndpoint = "localhost:8101/mcp"
			return m
		},
			leaguesdk.CodeMissingRequiredField, "player_meta.contact_endpoint"},
		{"referee without capacity", func() leaguesdk.Message { m := refereeRegistration(); m.RefereeMeta.MaxConcurrentMatches = 0; return m },
			leaguesdk.CodeMissingRequiredField, "referee_meta.max_concurrent_matches"},
		{"call deadline without zone", func() leaguesdk.Message { m := chooseParityCall(); m.Deadline = "2025-01-15T10:15:35"; return m },
			leaguesdk.CodeInvalidTimestamp, "deadline"},
		{"join ack arrival at +02:00", func() leaguesdk.Message {
			return &leaguesdk.GameJoinAck{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameJoinAck, "player:P01", testToken, "c", fixedNow),
				MatchID: "R1M1", ArrivalTimestamp: "2025-01-15T12:15:01+02:00", Accept: true}
		}, leaguesdk.CodeInvalidTimestamp, "arrival_timestamp"},
		{"report without score", func() leaguesdk.Message { m := resultReport(); m.Result.Score = nil; return m },
			leaguesdk.CodeMissingRequiredField, "result.score"},
		{"report without round", func() leaguesdk.Message { m := resultReport(); m.RoundID = 0; return m },
			leaguesdk.CodeMissingRequiredField, "round_id"},
		{"game over with unknown status", func() leaguesdk.Message {
			return &leaguesdk.GameOver{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgGameOver, "referee:REF01", testToken, "c", fixedNow),
				MatchID: "R1M1", GameResult: leaguesdk.GameResult{Status: "LOSS"}}
		}, leaguesdk.CodeMissingRequiredField, "game_result.status"},
		{"round announcement match without players", func() leaguesdk.Message {
			return &leaguesdk.RoundAnnouncement{Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgRoundAnnouncement, leaguesdk.LeagueManagerSender, testToken, "c", fixedNow),
				LeagueID: "league_2025_even_odd", RoundID: 1, Matches: []leaguesdk.ScheduledMatch{{MatchID: "R1M1", GameType: leaguesdk.GameEvenOdd, PlayerAID: "P01"}}}
		}, leaguesdk.CodeMissingRequiredField, "matches[0].player_B_id"},
	}
	cases = append(cases, more...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := leaguesdk.Validate(tc.msg())
			if tc.code == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var e *leaguesdk.Error
			if !errors.As(err, &e) {
				t.Fatalf("want *Error %s, got %T %v", tc.code, err, err)
			}
			if e.Code != tc.code || e.Field != tc.field {
				t.Fatalf("want %s on %q, got %s on %q (%v)", tc.code, tc.field, e.Code, e.Field, err)
			}
			if leaguesdk.CodeOf(err) != tc.code || !strings.Contains(err.Error(), string(tc.code)) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("error text %q does not name code and field", err)
			}
		})
	}
}

func TestValidateConcurrent(t *testing.T) {
	// The shared validator instance is used from many goroutines at once.
	done := make(chan error)
	for i := 0; i < 8; i++ {
		go func(i int) {
			var err error
			for j := 0; j < 50 && err == nil; j++ {
				m := parityResponse()
				if i%2 == 1 {
					m.ParityChoice = "EVEN"
					if leaguesdk.CodeOf(leaguesdk.Validate(m)) != leaguesdk.CodeInvalidParityChoice {
						err = errors.New("EVEN accepted")
					}
				} else {
					err = leaguesdk.Validate(m)
				}
			}
			done <- err
		}(i)
	}
	for i := 0; i < 8; i++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}

func TestValidateNonMessage(t *testing.T) {
	if err := leaguesdk.Validate(42); leaguesdk.CodeOf(err) != leaguesdk.CodeMissingRequiredField {
		t.Fatalf("Validate(42) = %v", err)
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2025, 1, 15, 10, 15, 5, 0, time.UTC)
	for _, s := range []string{"2025-01-15T10:15:05Z", "2025-01-15T10:15:05+00:00", "2025-01-15T10:15:05-00:00"} {
		got, err := leaguesdk.ParseTime(s)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v", s, got, err)
		}
	}
	got, err := leaguesdk.ParseTime("2025-01-15T10:15:05.250Z")
	if err != nil || !got.Equal(want.Add(250*time.Millisecond)) {
		t.Errorf("fractional: %v, %v", got, err)
	}
	for _, s := range []string{"", "2025-01-15T10:15:05", "2025-01-15T12:15:05+02:00", "2025-01-15T10:15:05+00:30"} {
		if _, err := leaguesdk.ParseTime(s); leaguesdk.CodeOf(err) != leaguesdk.CodeInvalidTimestamp {
			t.Errorf("ParseTime(%q) error %v, want E021", s, err)
		}
	}
}

func TestFormatTime(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	in := time.Date(2025, 1, 15, 11, 30, 0, 987654321, berlin)
	if got := leaguesdk.FormatTime(in); got != "2025-01-15T10:30:00Z" {
		t.Fatalf("FormatTime = %q", got)
	}
	env := leaguesdk.NewEnvelope(leaguesdk.MsgAck, "player:P01", testToken, "", in)
	if env.Timestamp != "2025-01-15T10:30:00Z" || env.Protocol != leaguesdk.Protocol || !strings.HasPrefix(env.ConversationID, "conv-") {
		t.Fatalf("envelope: %+v", env)
	}
	if other := leaguesdk.NewEnvelope(leaguesdk.MsgAck, "p", "", "", in); other.ConversationID == env.ConversationID {
		t.Fatal("two fresh conversation ids are equal")
	}
	if env := leaguesdk.NewEnvelope(leaguesdk.MsgAck, "p", "", "conv-1", in); env.ConversationID != "conv-1" {
		t.Fatalf("conversation id not kept: %q", env.ConversationID)
	}
}

func TestParity(t *testing.T) {
	for _, s := range []string{"even", "odd"} {
		p, err := leaguesdk.ParseParity(s)
		if err != nil || string(p) != s || !p.Valid() {
			t.Errorf("ParseParity(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"EVEN", "Even", "ODD", "Odd", "0", "1", "e", "o", ""} {
		_, err := leaguesdk.ParseParity(s)
		var e *leaguesdk.Error
		if !errors.As(err, &e) || e.Code != leaguesdk.CodeInvalidParityChoice || e.Field != "parity_choice" {
			t.Errorf("ParseParity(%q) = %v, want E004 on parity_choice", s, err)
		}
	}
	if leaguesdk.Even.Other() != leaguesdk.Odd || leaguesdk.Odd.Other() != leaguesdk.Even {
		t.Error("Other")
	}
	for n, want := range map[int]leaguesdk.Parity{1: leaguesdk.Odd, 2: leaguesdk.Even, 7: leaguesdk.Odd, 10: leaguesdk.Even, 0: leaguesdk.Even} {
		if got := leaguesdk.ParityOf(n); got != want {
			t.Errorf("ParityOf(%d) = %s", n, got)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"2.0.0", "2.0.0", 0}, {"2.1.0", "2.0.0", 1}, {"1.9.9", "2.0.0", -1}, {"2", "2.0.0", 0},
		{"v2.0.1", "2.0.0", 1}, {"10.0.0", "9.9.9", 1}, {"2.0.0-beta", "2.0.0", 0}, {"x", "2.0.0", -1},
		{"2.0.0", "x", 1}, {"x", "y", 0}, {"1.2.3.4", "1.0.0", -1},
		{" 2.1 ", "2.0.0", 1}, {"2.0", "2.0.0", 0}, {"2.0.0-rc.1", "2.0.0", 0}, {"2.0.1-rc.1", "2.0.0", 1},
		{"2.0.0+build.7", "2.0.0", 0}, {"18446744073709551616.0.0", "2.0.0", 1}, {"2.0.0", "2.0.10", -1},
		{"", "2.0.0", -1}, {"2.-1.0", "2.0.0", -1}, {"02.0.0", "2.0.0", -1}, // leading zeros are not semver
	}
	for _, c := range cases {
		if got := leaguesdk.CompareVersions(c.a, c.b); got != c.want {
			t.Errorf("CompareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

func TestSenders(t *testing.T) {
	if leaguesdk.PlayerSender("P01") != "player:P01" || leaguesdk.RefereeSender("REF01") != "referee:REF01" {
		t.Fatal("sender constructors")
	}
	for in, want := range map[string]string{"Agent Alpha": "player:agent_alpha", "  Big   Blue  ": "player:big_blue", "": "player:unregistered"} {
		if got := leaguesdk.NameSender("player", in); got != want {
			t.Errorf("NameSender(%q) = %q, want %q", in, got, want)
		}
	}
	cases := []struct{ in, kind, id string }{
		{"player:P01", "player", "P01"}, {"referee:REF01", "referee", "REF01"}, {"league_manager", "league_manager", ""},
		{"player_P01", "player", "P01"}, {"referee_alpha", "referee", "alpha"}, {"P01", "", "P01"}, {"player", "player", ""},
	}
	for _, c := range cases {
		if k, id := leaguesdk.SplitSender(c.in); k != c.kind || id != c.id {
			t.Errorf("SplitSender(%q) = %q, %q; want %q, %q", c.in, k, id, c.kind, c.id)
		}
	}
}

func TestRoundIDDecoding(t *testing.T) {
	cases := map[string]int{`1`: 1, `"2"`: 2, `"ROUND_3"`: 3, `"R4"`: 4, `null`: 0, `5.0`: 5}
	for in, want := range cases {
		var r leaguesdk.RoundID
		if err := json.Unmarshal([]byte(in), &r); err != nil || int(r) != want {
			t.Errorf("RoundID(%s) = %d, %v; want %d", in, r, err, want)
		}
	}
	for _, in := range []string{`2.5`, `"ROUND"`, `"x"`, `true`} {
		var r leaguesdk.RoundID
		if err := json.Unmarshal([]byte(in), &r); err == nil {
			t.Errorf("RoundID(%s) decoded to %d", in, r)
		}
	}
	b, _ := json.Marshal(struct {
		R leaguesdk.RoundID `json:"round_id"`
	}{3})
	if string(b) != `{"round_id":3}` {
		t.Errorf("RoundID encodes as %s", b)
	}
}

func TestOptionalString(t *testing.T) {
	b, _ := json.Marshal(leaguesdk.MatchResult{Score: map[string]int{"P01": 1, "P02": 1}})
	if !strings.Contains(string(b), `"winner":null`) {
		t.Fatalf("empty winner: %s", b)
	}
	var m leaguesdk.MatchResult
	if err := json.Unmarshal([]byte(`{"winner":"P01","score":{"P01":3}}`), &m); err != nil || m.Winner != "P01" {
		t.Fatalf("decode: %+v %v", m, err)
	}
	if err := json.Unmarshal([]byte(`{"winner":null}`), &m); err != nil || m.Winner != "" {
		t.Fatalf("decode null: %+v %v", m, err)
	}
}

var tokenRE = regexp.MustCompile(`^tok_[0-9a-f]{32}$`)

func TestNewToken(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		tok := leaguesdk.NewToken()
		if !tokenRE.MatchString(tok) {
			t.Fatalf("token %q is not tok_ + 32 lowercase hex", tok)
		}
		if seen[tok] {
			t.Fatalf("token %q issued twice", tok)
		}
		seen[tok] = true
	}
	a := leaguesdk.NewToken()
	if !leaguesdk.TokensEqual(a, a) || leaguesdk.TokensEqual(a, a[:len(a)-1]) || leaguesdk.TokensEqual(a, leaguesdk.NewToken()) || leaguesdk.TokensEqual("", a) {
		t.Fatal("TokensEqual")
	}
}

func TestErrorCatalog(t *testing.T) {
	want := map[leaguesdk.Code]struct {
		name      string
		retryable bool
	}{
		"E001": {"TIMEOUT_ERROR", true}, "E002": {"INVALID_CHOICE", false}, "E003": {"MISSING_REQUIRED_FIELD", false},
		"E004": {"INVALID_PARITY_CHOICE", false}, "E005": {"PLAYER_NOT_REGISTERED", false}, "E006": {"MATCH_NOT_FOUND", false},
		"E007": {"OUT_OF_TURN", false}, "E008": {"DEADLINE_PASSED", false}, "E009": {"CONNECTION_ERROR", true},
		"E010": {"RATE_LIMITED", true}, "E011": {"AUTH_TOKEN_MISSING", false}, "E012": {"AUTH_TOKEN_INVALID", false},
		"E013": {"REFEREE_NOT_REGISTERED", false}, "E014": {"LEAGUE_NOT_FOUND", false},
		"E018": {"PROTOCOL_VERSION_MISMATCH", false}, "E021": {"INVALID_TIMESTAMP", false},
	}
	codes := leaguesdk.Codes()
	if len(codes) != len(want) {
		t.Fatalf("%d codes, want %d", len(codes), len(want))
	}
	for _, c := range codes {
		w, ok := want[c]
		if !ok || c.Name() != w.name || c.Retryable() != w.retryable {
			t.Errorf("%s: name %s retryable %v", c, c.Name(), c.Retryable())
		}
	}
	if leaguesdk.Code("E999").Name() != "UNKNOWN_ERROR" {
		t.Error("unknown code name")
	}
}

func TestErrorType(t *testing.T) {
	cause := errors.New("dial refused")
	e := &leaguesdk.Error{Code: leaguesdk.CodeConnectionError, Message: "cannot connect", Endpoint: "http://x/mcp",
		Method: "choose_parity", Attempt: 4, Err: cause}
	if got := e.Error(); got != "E009 CONNECTION_ERROR: cannot connect (choose_parity http://x/mcp, attempt 4)" {
		t.Fatalf("Error() = %q", got)
	}
	if !errors.Is(e, cause) || !e.Retryable() {
		t.Fatal("Unwrap / Retryable")
	}
	wrapped := errors.Join(errors.New("context"), e)
	if leaguesdk.CodeOf(wrapped) != leaguesdk.CodeConnectionError {
		t.Fatal("CodeOf through a join")
	}
	if leaguesdk.CodeOf(errors.New("plain")) != "" || leaguesdk.CodeOf(nil) != "" {
		t.Fatal("CodeOf of a plain error")
	}
	ne := leaguesdk.NewError(leaguesdk.CodeMatchNotFound, "match %s unknown", "R9M9")
	if ne.Error() != "E006 MATCH_NOT_FOUND: match R9M9 unknown" {
		t.Fatalf("NewError: %q", ne)
	}
	if (&leaguesdk.Error{Err: cause}).Error() != "dial refused" || (&leaguesdk.Error{}).Error() != "error" {
		t.Fatal("Error() without code")
	}
}
