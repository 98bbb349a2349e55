package manager_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/referee"
)

// getView reads GET <base>/api/view/<path> into v, and returns the status.
func getView(t *testing.T, base, path string, v any) int {
	t.Helper()
	resp, err := http.Get(base + "/api/view/" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return resp.StatusCode
}

type viewMatch struct {
	MatchID      string `json:"match_id"`
	PlayerA      string `json:"player_A_id"`
	PlayerB      string `json:"player_B_id"`
	ChoiceA      string `json:"choice_A"`
	ChoiceB      string `json:"choice_B"`
	DrawnNumber  int    `json:"drawn_number"`
	NumberParity string `json:"number_parity"`
	Result       string `json:"result"`
	Winner       string `json:"winner"`
	Rule         string `json:"rule"`
	Cause        string `json:"cause"`
	PointsA      int    `json:"points_A"`
	PointsB      int    `json:"points_B"`
	Transcript   *struct {
		Messages []struct {
			Direction   string   `json:"direction"`
			Peer        string   `json:"peer"`
			MessageType string   `json:"message_type"`
			LatencyMs   *float64 `json:"latency_ms"`
			BudgetMs    *float64 `json:"budget_ms"`
			Error       string   `json:"error"`
			Message     json.RawMessage
		} `json:"messages"`
	} `json:"transcript"`
}

type viewPlayer struct {
	Matches []struct {
		MatchID string `json:"match_id"`
		RoundID int    `json:"round_id"`
		Status  string `json:"status"`
	} `json:"matches"`
	Compared        int     `json:"compared"`
	Differed        int     `json:"differed"`
	DifferRate      float64 `json:"differ_rate"`
	TechnicalLosses []struct {
		MatchID string `json:"match_id"`
		Cause   string `json:"cause"`
	} `json:"technical_losses"`
	Course struct {
		Rounds []int `json:"rounds"`
		Series []struct {
			PlayerID string `json:"player_id"`
			Points   []int  `json:"points"`
		} `json:"series"`
		Median []float64 `json:"median"`
	} `json:"course"`
	Latency struct {
		Answers int     `json:"answers"`
		P50Ms   float64 `json:"p50_ms"`
		P99Ms   float64 `json:"p99_ms"`
	} `json:"latency"`
}

// TestViewOfALeague: a league whose referee shares the manager's data
// root, one of whose players answers nothing (every call fails): the
// manager's api/view/ tells each match as the referee's transcript and
// the manager's records have it, each player's matches, points by round
// and answer times, the standings after any round, and the same once
// the manager has stopped, read from the data root by a Viewer.
func TestViewOfALeague(t *testing.T) {
	dir := t.TempDir()
	cfg := fastConfig(t, dir)
	cfg.MinPlayers = 4
	m := startManager(t, cfg)
	startReferee(t, m.MCP, "Referee", refereeOptions{dataRoot: dir})
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "down", http.StatusInternalServerError)
	}))
	t.Cleanup(broken.Close)
	startPlayer(t, m.MCP, "Even", always(leaguesdk.Even))
	startPlayer(t, m.MCP, "Odd", always(leaguesdk.Odd))
	startPlayer(t, m.MCP, "Even 2", always(leaguesdk.Even))
	registerPlayer(t, m.MCP, "Silent", broken.URL+"/mcp", nil) // P04
	// The pages are read while the league is played, as a reader's
	// browser does.
	reads := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-m.Done():
				reads <- n
				return
			default:
			}
			for _, path := range []string{"league", "standings?round=1", "course?top=2&players=P04", "round/1", "player/P01", "match/R1M1"} {
				resp, err := http.Get(m.URL + "/api/view/" + path)
				if err != nil {
					t.Errorf("%s while the league runs: %v", path, err)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s while the league runs: status %d", path, resp.StatusCode)
				}
				n++
			}
		}
	}()
	m.waitDone(t, 60*time.Second)
	if n := <-reads; n == 0 {
		t.Error("no page was read while the league ran")
	}
	records, err := manager.LoadResults(dir, cfg.LeagueID)
	if err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, base string) {
		for _, rec := range records {
			var got viewMatch
			if code := getView(t, base, "match/"+rec.MatchID, &got); code != http.StatusOK {
				t.Fatalf("match %s: status %d", rec.MatchID, code)
			}
			d := rec.Result.Details
			if got.ChoiceA != string(d.Choices[rec.PlayerA]) || got.ChoiceB != string(d.Choices[rec.PlayerB]) ||
				got.DrawnNumber != d.DrawnNumber || got.Winner != string(rec.Result.Winner) || got.Rule == "" {
				t.Errorf("match %s shown as %+v; recorded %+v", rec.MatchID, got, rec.Result)
			}
			if d.DrawnNumber > 0 && got.NumberParity != string(leaguesdk.ParityOf(d.DrawnNumber)) {
				t.Errorf("match %s: parity %q of %d", rec.MatchID, got.NumberParity, d.DrawnNumber)
			}
			tr, err := referee.ReadTranscript(dir, cfg.LeagueID, rec.MatchID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Transcript == nil || len(got.Transcript.Messages) != len(tr.Transcript) {
				t.Fatalf("match %s: transcript %+v, the referee's has %d messages", rec.MatchID, got.Transcript, len(tr.Transcript))
			}
			answered := 0
			for i, msg := range got.Transcript.Messages {
				if msg.Direction != tr.Transcript[i].Direction || msg.Peer != tr.Transcript[i].Peer {
					t.Errorf("match %s message %d: %+v, the transcript's %+v", rec.MatchID, i, msg, tr.Transcript[i])
				}
				if msg.MessageType == string(leaguesdk.MsgChooseParityResponse) {
					answered++
					if msg.LatencyMs == nil || msg.BudgetMs == nil || *msg.LatencyMs < 0 || *msg.LatencyMs > *msg.BudgetMs {
						t.Errorf("match %s: an answer's latency %v against %v", rec.MatchID, msg.LatencyMs, msg.BudgetMs)
					}
				}
			}
			if rec.Result.Status == leaguesdk.ResultTechnicalLoss {
				if got.Cause == "" {
					t.Errorf("technical loss %s shown without a cause", rec.MatchID)
				}
			} else if answered != 2 {
				t.Errorf("match %s: %d answers with their latency, want 2", rec.MatchID, answered)
			}
		}

		var silent viewPlayer
		getView(t, base, "player/P04", &silent)
		if len(silent.Matches) != 3 || len(silent.TechnicalLosses) != 3 || silent.Compared != 0 {
			t.Errorf("the silent player: %d matches, %d technical losses, %d compared; want 3, 3, 0",
				len(silent.Matches), len(silent.TechnicalLosses), silent.Compared)
		}
		for _, tl := range silent.TechnicalLosses {
			if tl.Cause == "" {
				t.Errorf("technical loss %s without a cause", tl.MatchID)
			}
		}
		var even viewPlayer
		getView(t, base, "player/P01", &even)
		if len(even.Course.Rounds) != 3 || len(even.Course.Median) != 3 || even.Latency.Answers == 0 || even.Latency.P99Ms < even.Latency.P50Ms {
			t.Errorf("P01: course %+v, latency %+v", even.Course, even.Latency)
		}
		// P01 (even) met P02 (odd), P03 (even) and the silent player.
		if even.Compared != 2 || even.Differed != 1 || even.DifferRate != 0.5 {
			t.Errorf("P01 differed %d of %d (%v), want 1 of 2", even.Differed, even.Compared, even.DifferRate)
		}

		entrants := []manager.Entrant{}
		for _, p := range m.Snapshot().Players {
			entrants = append(entrants, manager.Entrant{PlayerID: p.PlayerID, DisplayName: p.DisplayName})
		}
		for k := 0; k <= 3; k++ {
			var got struct {
				Round     int                     `json:"round"`
				Standings []leaguesdk.StandingRow `json:"standings"`
			}
			getView(t, base, fmt.Sprintf("standings?round=%d", k), &got)
			var upTo []manager.MatchRecord
			for _, rec := range records {
				if rec.RoundID <= k {
					upTo = append(upTo, rec)
				}
			}
			want := manager.ComputeStandings(entrants, upTo, nil)
			if got.Round != k || fmt.Sprint(got.Standings) != fmt.Sprint(want) {
				t.Errorf("standings after round %d:\n%v\nwant\n%v", k, got.Standings, want)
			}
		}
		if code := getView(t, base, "match/R9M9", &viewMatch{}); code != http.StatusNotFound {
			t.Errorf("an unknown match: status %d", code)
		}
	}
	t.Run("live", func(t *testing.T) { check(t, m.URL) })
	m.Stop()
	t.Run("data root", func(t *testing.T) {
		v, err := manager.NewViewer(manager.ViewerConfig{DataRoot: dir})
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(v.Handler())
		t.Cleanup(srv.Close)
		check(t, srv.URL+"/league/"+cfg.LeagueID)
	})
}

func TestNewViewerSaysWhatIsWrong(t *testing.T) {
	var cfgErr *leaguesdk.ConfigError
	if _, err := manager.NewViewer(manager.ViewerConfig{}); !errors.As(err, &cfgErr) {
		t.Errorf("no data root: %v, want a *leaguesdk.ConfigError", err)
	}
	if _, err := manager.NewViewer(manager.ViewerConfig{DataRoot: t.TempDir()}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an empty data root: %v, want fs.ErrNotExist", err)
	}
}
