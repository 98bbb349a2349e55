package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/referee"
)

// managerNotifications are the manager's notifications, by message type,
// with the tool each is sent to.
var managerNotifications = []struct {
	messageType, method string
}{
	{"ROUND_ANNOUNCEMENT", leaguesdk.MethodNotifyRound},
	{"LEAGUE_STANDINGS_UPDATE", leaguesdk.MethodUpdateStandings},
	{"ROUND_COMPLETED", leaguesdk.MethodNotifyRoundCompleted},
	{"LEAGUE_COMPLETED", leaguesdk.MethodNotifyLeagueCompleted},
}

// TestNotificationsCountOnlyFromTheManager sends, while the first match of
// a league runs, each of the manager's notifications to a player and to a
// referee, without a token and with a made-up one: each is acknowledged,
// logged as a security event, and changes nothing — the forged round's
// matches and table do not show in the player's state, the league
// completes with every match played, the player answers its real referees
// with its token, and its history holds its matches of the league.
func TestNotificationsCountOnlyFromTheManager(t *testing.T) {
	l := newLeague(t, 4)
	var refLog syncBuffer
	ref, err := referee.New(referee.Config{Name: "Referee Alpha", League: l.url(), Listener: listen(t), DataRoot: l.data,
		JoinTimeout: 2 * time.Second, MoveTimeout: 10 * time.Second, RetryDelay: 100 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&refLog, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l.run("Referee Alpha", ref.Run)
	l.await(ref.Registered(), "the referee to register")

	forge, forged := make(chan struct{}), make(chan struct{})
	var first sync.Once
	target := player.StrategyFunc(func(ctx context.Context, c player.ParityCall) (leaguesdk.Parity, error) {
		first.Do(func() {
			close(forge)
			select {
			case <-forged:
			case <-ctx.Done():
			}
		})
		return leaguesdk.Even, nil
	})
	var playerLog syncBuffer
	p1, err := player.New(player.Config{Name: "Target", League: l.url(), Listener: listen(t), DataRoot: l.data, Strategy: target,
		Logger: slog.New(slog.NewTextHandler(&playerLog, nil))})
	if err != nil {
		t.Fatal(err)
	}
	l.run("Target", p1.Run)
	l.await(p1.Registered(), "the target to register")
	for i := range 3 {
		l.addPlayer(fmt.Sprintf("Player %d", i+2), player.Random(nil))
	}

	l.await(forge, "the target's first match")
	before := p1.History().Matches()
	examples := exampleMessages(t)
	for _, n := range managerNotifications {
		msg := examples[n.messageType+".json"]
		msg["league_id"] = "league_e2e"
		if n.messageType == "ROUND_ANNOUNCEMENT" {
			msg["matches"] = []any{map[string]any{"match_id": "R9M9", "game_type": "even_odd", "player_A_id": p1.ID(),
				"player_B_id": "P02", "referee_endpoint": "http://127.0.0.1:9/mcp"}}
		}
		for _, token := range []string{"", leaguesdk.NewToken()} {
			msg["auth_token"] = token
			for _, ep := range []string{p1.Endpoint(), ref.Endpoint()} {
				var reply struct {
					Result leaguesdk.Ack    `json:"result"`
					Error  *json.RawMessage `json:"error"`
				}
				body := rawPost(t, ep, rpc(n.method, msg))
				if err := json.Unmarshal(body, &reply); err != nil || reply.Error != nil ||
					reply.Result.MessageType != leaguesdk.MsgAck || reply.Result.AuthToken != "" {
					t.Errorf("%s to %s with token %q answered %s, want an ACK without a token", n.messageType, ep, token, body)
				}
			}
		}
	}
	// The forged round and table are not the player's.
	var st struct {
		Result struct {
			State struct {
				Active    []struct{ MatchID string } `json:"active_matches"`
				Standings []leaguesdk.StandingRow    `json:"standings"`
			} `json:"state"`
		} `json:"result"`
	}
	body := rawPost(t, p1.Endpoint(), rpc(leaguesdk.MethodGetPlayerState, map[string]any{}))
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	for _, m := range st.Result.State.Active {
		if m.MatchID == "R9M9" {
			t.Errorf("the forged announcement's match is in the player's state: %s", body)
		}
	}
	if len(st.Result.State.Standings) > 0 {
		t.Errorf("a forged table is the player's: %s", body)
	}
	if after := p1.History().Matches(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("the forged notifications changed the player's history: %v, was %v", after, before)
	}
	close(forged)

	l.await(l.mgr.Done(), "the league to complete")
	state := l.mgr.Snapshot()
	checkHistoriesAgainst(t, l.data, state)
	for _, m := range state.Matches {
		if m.Result == nil || m.Result.Status == leaguesdk.ResultTechnicalLoss {
			t.Errorf("%s ended %+v, want it played", m.MatchID, m.Result)
		}
		if m.PlayerAID != p1.ID() && m.PlayerBID != p1.ID() {
			continue
		}
		// Every answer of the player to its referee carried its token.
		var tr referee.Transcript
		if err := atomicfile.ReadJSON(referee.TranscriptPath(l.data, state.LeagueID, m.MatchID), &tr); err != nil {
			t.Fatal(err)
		}
		answers := 0
		for _, e := range tr.Transcript {
			var env leaguesdk.Envelope
			if e.Direction != referee.Received || json.Unmarshal(e.Message, &env) != nil || env.Sender != leaguesdk.PlayerSender(p1.ID()) {
				continue
			}
			answers++
			if env.AuthToken != leaguesdk.Redacted {
				t.Errorf("%s: the player answered %s with token %q, want its own (redacted in the transcript)", m.MatchID, env.MessageType, env.AuthToken)
			}
		}
		if answers == 0 {
			t.Errorf("%s: no answer of the player in the transcript", m.MatchID)
		}
	}
	for _, n := range managerNotifications {
		for _, logged := range []struct {
			who string
			log *syncBuffer
		}{{"player", &playerLog}, {"referee", &refLog}} {
			for _, what := range []string{"without the token", "with a token that is not"} {
				if want := "security: " + n.messageType + " " + what; !strings.Contains(logged.log.String(), want) {
					t.Errorf("the %s's log lacks %q", logged.who, want)
				}
			}
		}
	}
}
