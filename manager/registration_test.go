package manager_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

var tokenShape = regexp.MustCompile(`^tok_[0-9a-f]{32}$`)

func TestRegistration(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MaxPlayers = 3
	m := startManager(t, cfg)

	r1 := registerReferee(t, m.MCP, "Referee Alpha", "http://127.0.0.1:9/ref1", 2, nil)
	r2 := registerReferee(t, m.MCP, "Referee Beta", "http://127.0.0.1:9/ref2", 1, nil)
	if r1.Status != leaguesdk.StatusAccepted || r1.RefereeID != "REF01" || r2.RefereeID != "REF02" {
		t.Fatalf("referees: %+v, %+v; want ACCEPTED REF01, REF02", r1, r2)
	}
	var tokens []string
	for i := 1; i <= 3; i++ {
		p := registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i), fmt.Sprintf("http://127.0.0.1:9/p%d", i), nil)
		if want := fmt.Sprintf("P%02d", i); p.Status != leaguesdk.StatusAccepted || p.PlayerID != want || p.LeagueID != cfg.LeagueID ||
			p.Reason != "" || p.Sender != leaguesdk.LeagueManagerSender {
			t.Fatalf("player %d: %+v, want ACCEPTED %s", i, p, want)
		}
		tokens = append(tokens, p.AuthToken)
	}
	tokens = append(tokens, r1.AuthToken, r2.AuthToken)
	seen := map[string]bool{}
	for _, tok := range tokens {
		if !tokenShape.MatchString(tok) || seen[tok] {
			t.Fatalf("token %q is not a fresh tok_ + 32 hex token", tok)
		}
		seen[tok] = true
	}

	rejections := []struct {
		name, endpoint string
		mutate         func(*leaguesdk.LeagueRegisterRequest)
		reason         []string
	}{
		{"old protocol", "http://127.0.0.1:9/old", func(r *leaguesdk.LeagueRegisterRequest) { r.PlayerMeta.ProtocolVersion = "1.0.0" },
			[]string{"E018", "1.0.0", "2.0.0"}},
		{"other game", "http://127.0.0.1:9/ttt", func(r *leaguesdk.LeagueRegisterRequest) { r.PlayerMeta.GameTypes = []string{"tic_tac_toe"} },
			[]string{"even_odd", "tic_tac_toe"}},
		{"duplicate endpoint", "http://127.0.0.1:9/p2", nil, []string{"P02", "http://127.0.0.1:9/p2"}},
		{"league full", "http://127.0.0.1:9/p4", nil, []string{"full", "3 players"}},
	}
	for _, rj := range rejections {
		resp := registerPlayer(t, m.MCP, rj.name, rj.endpoint, rj.mutate)
		if resp.Status != leaguesdk.StatusRejected || resp.PlayerID != "" || resp.AuthToken != "" {
			t.Errorf("%s: %+v, want REJECTED without id or token", rj.name, resp)
		}
		for _, w := range rj.reason {
			if !strings.Contains(string(resp.Reason), w) {
				t.Errorf("%s: reason %q does not mention %q", rj.name, resp.Reason, w)
			}
		}
	}
	if old := registerReferee(t, m.MCP, "Old Referee", "http://127.0.0.1:9/oldref", 1, func(r *leaguesdk.RefereeRegisterRequest) {
		r.RefereeMeta.ProtocolVersion = "1.9.9"
	}); old.Status != leaguesdk.StatusRejected || !strings.Contains(string(old.Reason), "E018") {
		t.Errorf("old referee: %+v, want REJECTED with E018", old)
	}

	// An agent presenting its own token again keeps its id and token.
	again := registerPlayer(t, m.MCP, "Agent 2", "http://127.0.0.1:9/p2", func(r *leaguesdk.LeagueRegisterRequest) { r.AuthToken = tokens[1] })
	if again.Status != leaguesdk.StatusAccepted || again.PlayerID != "P02" || again.AuthToken != tokens[1] {
		t.Errorf("registering again with the own token: %+v, want P02 with the same token", again)
	}
	// A missing field is a protocol error, not a rejection.
	if r := call(t, m.MCP, leaguesdk.MethodRegisterPlayer, &leaguesdk.LeagueRegisterRequest{
		Envelope:   env(leaguesdk.MsgLeagueRegisterRequest, "player:x", ""),
		PlayerMeta: leaguesdk.PlayerMeta{Version: "1", GameTypes: []string{"even_odd"}, ContactEndpoint: "http://127.0.0.1:9/x"},
	}); r.code() != leaguesdk.CodeMissingRequiredField {
		t.Errorf("registration without display_name: %+v, want E003", r.Error)
	}

	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	late := registerPlayer(t, m.MCP, "Latecomer", "http://127.0.0.1:9/late", nil)
	if late.Status != leaguesdk.StatusRejected || !strings.Contains(string(late.Reason), "closed") {
		t.Errorf("registration after the start: %+v, want REJECTED, registration closed", late)
	}
	if ref := registerReferee(t, m.MCP, "Referee Gamma", "http://127.0.0.1:9/ref3", 1, nil); ref.RefereeID != "REF03" {
		t.Errorf("a referee joining a running league: %+v, want REF03", ref)
	}
	if n := m.Events.count(manager.EventRegistrationRejected); n != 6 {
		t.Errorf("%d registration_rejected events, want 6", n)
	}
	m.Stop()
	info, err := os.Stat(filepath.Join(dir, "data", "leagues", cfg.LeagueID, "state.json"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("state.json: %v, mode %v; want mode 0600", err, info.Mode())
	}
}

func TestPlayerIDsGrowPastNinetyNine(t *testing.T) {
	cfg := fastConfig(t, t.TempDir())
	m := startManager(t, cfg)
	var last leaguesdk.LeagueRegisterResponse
	for i := 1; i <= 100; i++ {
		last = registerPlayer(t, m.MCP, fmt.Sprintf("Agent %d", i), fmt.Sprintf("http://127.0.0.1:9/p%d", i), nil)
	}
	if last.PlayerID != "P100" {
		t.Fatalf("100th player is %q, want P100", last.PlayerID)
	}
	rows := m.Standings()
	if rows[8].PlayerID != "P09" || rows[98].PlayerID != "P99" || rows[99].PlayerID != "P100" {
		t.Errorf("standings order of P09, P99, P100: %s %s %s", rows[8].PlayerID, rows[98].PlayerID, rows[99].PlayerID)
	}
}

func TestStartTriggers(t *testing.T) {
	// When the league starts on its own (MinPlayers, the registration
	// window) is checked on a fake clock by TestStartTriggersOnTheClock.
	t.Run("start_league", func(t *testing.T) {
		cfg := fastConfig(t, t.TempDir())
		cfg.AdminToken = "admin-secret"
		m := startManager(t, cfg)
		start := func(token string) *rpcReply {
			return call(t, m.MCP, leaguesdk.MethodStartLeague, &leaguesdk.StartLeague{
				Envelope: env(leaguesdk.MsgStartLeague, "admin", token), LeagueID: cfg.LeagueID})
		}
		registerReferee(t, m.MCP, "Ref", newPeer(t).URL, 1, nil)
		registerPlayer(t, m.MCP, "A", "http://127.0.0.1:9/a", nil)
		if r := start("admin-secret"); r.code() != leaguesdk.CodePlayerNotRegistered {
			t.Errorf("start_league with one player: %+v, want E005", r.Error)
		}
		registerPlayer(t, m.MCP, "B", "http://127.0.0.1:9/b", nil)
		if r := start(""); r.code() != leaguesdk.CodeAuthTokenMissing {
			t.Errorf("start_league without a token: %+v, want E011", r.Error)
		}
		if r := start("wrong"); r.code() != leaguesdk.CodeAuthTokenInvalid {
			t.Errorf("start_league with a wrong token: %+v, want E012", r.Error)
		}
		if s := m.Status(); s != manager.StatusRegistering {
			t.Fatalf("status %s after refused starts", s)
		}
		var resp leaguesdk.StartLeagueResponse
		start("admin-secret").decode(t, &resp)
		if resp.Status != leaguesdk.StartLeagueStarted || resp.Players != 2 || resp.TotalRounds != 1 || m.Status() != manager.StatusRunning {
			t.Errorf("start_league: %+v, status %s", resp, m.Status())
		}
		start("admin-secret").decode(t, &resp)
		if resp.Status != leaguesdk.StartLeagueAlreadyStarted {
			t.Errorf("second start_league: %+v, want ALREADY_STARTED", resp)
		}
	})
	t.Run("start_league disabled without an admin token", func(t *testing.T) {
		m := startManager(t, fastConfig(t, t.TempDir()))
		r := call(t, m.MCP, leaguesdk.MethodStartLeague, &leaguesdk.StartLeague{Envelope: env(leaguesdk.MsgStartLeague, "admin", "anything")})
		if r.code() != leaguesdk.CodeAuthTokenInvalid || !strings.Contains(string(r.Error.Data), "disabled") {
			t.Errorf("start_league: %+v, want E012, disabled", r.Error)
		}
	})
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []manager.Config{
		{LeagueID: "../escape"},
		{MinPlayers: 1},
		{MaxPlayers: 1},
		{MinPlayers: 5, MaxPlayers: 4},
		{Tiebreakers: []manager.Tiebreaker{"luck"}},
		{Endpoint: "not a url"},
		{ReportTimeout: -time.Second},
	} {
		cfg.DataRoot = t.TempDir()
		if _, err := manager.New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded, want an error", cfg)
		}
	}
}
