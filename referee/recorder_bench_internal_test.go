package referee

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// BenchmarkRecorder records what a normal even/odd match records, with
// messages of the sizes the referee sends and receives, and writes it as a
// match does: to the journal when the match finishes, then to the journal
// and the match's file once the report is answered. The store is under the
// benchmark's temporary directory (TMPDIR=/dev/shm keeps the disk's
// flushes out of the time per match).
func BenchmarkRecorder(b *testing.B) {
	s := newTranscripts(b.TempDir())
	b.Cleanup(func() {
		if err := s.close(); err != nil {
			b.Error(err)
		}
	})
	now := time.Now()
	token := leaguesdk.NewToken()
	env := func(t leaguesdk.MessageType) leaguesdk.Envelope {
		return leaguesdk.NewEnvelope(t, "referee:REF01", token, "conv-0123456789abcdef", now)
	}
	reply := func(t leaguesdk.MessageType, player, rest string) json.RawMessage {
		e := leaguesdk.NewEnvelope(t, "player:"+player, leaguesdk.NewToken(), "conv-0123456789abcdef", now)
		head, _ := json.Marshal(e)
		return json.RawMessage(string(head[:len(head)-1]) + "," + rest + "}")
	}
	res := &Result{Status: leaguesdk.ResultWin, Winner: "P001", Score: map[string]int{"P001": 3, "P002": 0},
		DrawnNumber: 8, NumberParity: leaguesdk.Even, Choices: map[string]string{"P001": "even", "P002": "odd"},
		Reason: "P001 chose even, number was 8 (even)"}
	ack := reply(leaguesdk.MsgAck, "P001", `"status":"OK"`)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		id := "R1M" + strconv.Itoa(n)
		r := &recorder{store: s, now: time.Now, t: Transcript{SchemaVersion: SchemaVersion, MatchID: id,
			LeagueID: "league_bench", RoundID: 1, ConversationID: "conv-0123456789abcdef", GameType: leaguesdk.GameEvenOdd,
			RefereeID: "REF01", Players: []TranscriptPlayer{{PlayerID: "P001", Role: leaguesdk.PlayerA, Endpoint: "http://127.0.0.1:9001/mcp"},
				{PlayerID: "P002", Role: leaguesdk.PlayerB, Endpoint: "http://127.0.0.1:9002/mcp"}},
			Lifecycle: []LifecycleEntry{}, Transcript: []TranscriptMessage{}}}
		_ = r.state(StateWaitingForPlayers, "")
		for i, p := range []string{"P001", "P002"} {
			r.message(Sent, p, leaguesdk.MethodHandleGameInvitation, &leaguesdk.GameInvitation{Envelope: env(leaguesdk.MsgGameInvitation),
				LeagueID: "league_bench", RoundID: 1, MatchID: id, GameType: leaguesdk.GameEvenOdd, RoleInMatch: leaguesdk.PlayerA,
				OpponentID: "P00" + strconv.Itoa(2-i), PlayerID: p}, nil)
		}
		for _, p := range []string{"P001", "P002"} {
			r.message(Received, p, leaguesdk.MethodHandleGameInvitation, reply(leaguesdk.MsgGameJoinAck, p,
				`"match_id":"`+id+`","player_id":"`+p+`","arrival_timestamp":"2025-01-15T10:30:00Z","accept":true`), nil)
		}
		_ = r.state(StateCollectingChoices, "")
		for _, p := range []string{"P001", "P002"} {
			r.message(Sent, p, leaguesdk.MethodChooseParity, &leaguesdk.ChooseParityCall{Envelope: env(leaguesdk.MsgChooseParityCall),
				MatchID: id, PlayerID: p, GameType: leaguesdk.GameEvenOdd,
				Context:  leaguesdk.ParityContext{OpponentID: "P003", RoundID: 1, YourStandings: leaguesdk.PlayerRecord{Wins: 2, Losses: 1}},
				Deadline: "2025-01-15T10:30:30Z"}, nil)
		}
		for _, p := range []string{"P001", "P002"} {
			r.message(Received, p, leaguesdk.MethodChooseParity, reply(leaguesdk.MsgChooseParityResponse, p,
				`"match_id":"`+id+`","player_id":"`+p+`","parity_choice":"even"`), nil)
		}
		_ = r.state(StateDrawingNumber, "drawn number 8")
		r.set(func(t *Transcript) { t.Result = res })
		if err := r.state(StateFinished, res.Reason); err != nil {
			b.Fatal(err)
		}
		for _, p := range []string{"P001", "P002"} {
			r.message(Sent, p, leaguesdk.MethodNotifyMatchResult, &leaguesdk.GameOver{Envelope: env(leaguesdk.MsgGameOver),
				MatchID: id, GameType: leaguesdk.GameEvenOdd, GameResult: leaguesdk.GameResult{Status: res.Status,
					WinnerPlayerID: res.Winner, DrawnNumber: 8, NumberParity: leaguesdk.Even, Choices: parities(res.Choices),
					Reason: res.Reason}}, nil)
		}
		for _, p := range []string{"P001", "P002"} {
			r.message(Received, p, leaguesdk.MethodNotifyMatchResult, ack, nil)
		}
		r.message(Sent, leaguesdk.LeagueManagerSender, leaguesdk.MethodReportMatchResult, &leaguesdk.MatchResultReport{
			Envelope: env(leaguesdk.MsgMatchResultReport), LeagueID: "league_bench", RoundID: 1, MatchID: id, GameType: leaguesdk.GameEvenOdd,
			Result: leaguesdk.MatchResult{Winner: res.Winner, Score: res.Score, Status: res.Status,
				Details: leaguesdk.MatchDetails{DrawnNumber: 8, Choices: parities(res.Choices), Reason: res.Reason}}}, nil)
		r.message(Received, leaguesdk.LeagueManagerSender, leaguesdk.MethodReportMatchResult, ack, nil)
		if err := r.settle(func(t *Transcript) { t.Reported = true }); err != nil {
			b.Fatal(err)
		}
	}
}
