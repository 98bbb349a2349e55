package leaguesdk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// bareEcho is the baseline of BenchmarkRoundTrip: a plain net/http handler
// that decodes the request into a map and answers its params as the
// JSON-RPC result.
func bareEcho(w http.ResponseWriter, r *http.Request) {
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": req["params"]})
}

// benchParityServer is a player's server with one choose_parity tool.
func benchParityServer() *leaguesdk.Server {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return "player:P01" }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			return &leaguesdk.ChooseParityResponse{
				Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", exTokP01, in.ConversationID, time.Now()),
				MatchID:      in.MatchID,
				PlayerID:     "P01",
				ParityChoice: leaguesdk.Even,
			}, nil
		})
	return srv
}

type benchHandler struct {
	name    string
	handler http.Handler
}

// benchHandlers are the two servers compared: the baseline first.
func benchHandlers() []benchHandler {
	return []benchHandler{{"bare-echo", http.HandlerFunc(bareEcho)}, {"leaguesdk", benchParityServer()}}
}

// BenchmarkRoundTrip measures one CHOOSE_PARITY_CALL request and its reply
// over loopback HTTP, sequentially, with one keep-alive client: against a
// bare net/http JSON echo and against a leaguesdk Server. The two
// sub-benchmarks send the same bytes in the same run; docs/PERFORMANCE.md
// records the ratio of their ns/op.
func BenchmarkRoundTrip(b *testing.B) {
	params, err := json.Marshal(chooseParityCall())
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"jsonrpc":"2.0","id":1101,"method":"choose_parity","params":` + string(params) + `}`)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	for _, bc := range benchHandlers() {
		b.Run(bc.name, func(b *testing.B) {
			ts := httptest.NewServer(bc.handler)
			defer ts.Close()
			url := ts.URL + "/mcp"
			roundTrip := func() {
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK || n == 0 {
					b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
				}
			}
			roundTrip() // open the connection before timing
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				roundTrip()
			}
		})
	}
}

// BenchmarkServeHTTP measures the server alone, without the network: one
// CHOOSE_PARITY_CALL through ServeHTTP with a recorder.
func BenchmarkServeHTTP(b *testing.B) {
	params, _ := json.Marshal(chooseParityCall())
	body := []byte(`{"jsonrpc":"2.0","id":1101,"method":"choose_parity","params":` + string(params) + `}`)
	for _, bc := range benchHandlers() {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				bc.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", bytes.NewReader(body)))
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// BenchmarkClientCall measures one CHOOSE_PARITY_CALL through the Client
// against a leaguesdk Server over loopback: Client.Call with the method
// named, and the typed Call with the method from the message type, in the
// same run; Client.Call from 4 goroutines per CPU at once, as a manager or
// referee calls many agents (its ns/op is the time per call of the whole
// run, so 1/ns/op is the calls per second); and one LEAGUE_STANDINGS_UPDATE of a 200-row and of a
// 1000-row table encoded once (a json.RawMessage, sent as it is), the body
// of a broadcast, to a bare handler, whose B/op is mostly what sending it
// costs.
func BenchmarkClientCall(b *testing.B) {
	ts := httptest.NewServer(benchParityServer())
	defer ts.Close()
	c := leaguesdk.NewClient(leaguesdk.ClientConfig{})
	defer c.Close()
	url := ts.URL + "/mcp"
	call := chooseParityCall()
	call.Timestamp = leaguesdk.FormatTime(time.Now())
	call.Deadline = leaguesdk.FormatTime(time.Now().Add(time.Hour))
	ctx := context.Background()
	b.Run("Client.Call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var resp leaguesdk.ChooseParityResponse
			if err := c.Call(ctx, url, leaguesdk.MethodChooseParity, call, &resp); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Client.Call-parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				var resp leaguesdk.ChooseParityResponse
				if err := c.Call(ctx, url, leaguesdk.MethodChooseParity, call, &resp); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("Call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := leaguesdk.Call[leaguesdk.ChooseParityResponse](ctx, c, url, call); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("broadcast-%d", n), func(b *testing.B) {
			discard := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			}))
			defer discard.Close()
			rows := make([]leaguesdk.StandingRow, n)
			for i := range rows {
				rows[i] = leaguesdk.StandingRow{Rank: i + 1, PlayerID: fmt.Sprintf("P%03d", i+1), DisplayName: fmt.Sprintf("Player %d", i+1),
					Played: 100, Wins: 50, Draws: 20, Losses: 30, Points: 170}
			}
			env := leaguesdk.NewEnvelope(leaguesdk.MsgLeagueStandingsUpdate, leaguesdk.LeagueManagerSender, exTokP01, "conv-standings-100", time.Now())
			msg, err := json.Marshal(&leaguesdk.LeagueStandingsUpdate{Envelope: env, LeagueID: "league_2025_even_odd", RoundID: 100, Standings: rows})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Call(ctx, discard.URL+"/mcp", leaguesdk.MethodUpdateStandings, json.RawMessage(msg), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(msg)), "message-B")
		})
	}
}
