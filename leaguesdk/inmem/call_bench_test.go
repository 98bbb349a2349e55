package inmem_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/leaguesdk/inmem"
)

// BenchmarkCall reports what one call costs through the SDK's client and
// server alone, on the in-memory network: a CHOOSE_PARITY_CALL encoded,
// routed, decoded and validated, its reply encoded, decoded and validated,
// from 4 goroutines per CPU at once. There is no league around it (no
// logs, transcripts, histories or journals), so it is the floor of what
// each of the calls of a league's match costs; BenchmarkLeague's
// cpu-µs/match divided by the calls of a match (about 14 at 50 players:
// start_match, two invitations, two choices, two GAME_OVERs, the report,
// and each match's share of the round's three broadcasts) set against its
// cpu-µs/call shows what the league's own work adds.
//
// Two more parts, in the same run, bound it from below. "bare" is the
// same exchange with no SDK and no JSON: an http.Client posting the same
// bytes over the same network to a handler that reads them and answers a
// fixed reply, what net/http's request and response types and the
// network's hand-offs cost. "libs" adds to it only what the project's
// libraries do with each message: the request encoded by encoding/json,
// read by internal/json and checked by validator/v10 (Validate), the reply
// the same way back. "sdk" less "libs" is what the SDK's own work adds
// (routing, tolerant forms, breaker, retry, deadlines).
func BenchmarkCall(b *testing.B) {
	var n inmem.Network
	token := "tok_3f9a2c7e5b1d4a6f8e0c2b4d6a8f1e3c"
	answer := func(in *leaguesdk.ChooseParityCall) *leaguesdk.ChooseParityResponse {
		return &leaguesdk.ChooseParityResponse{
			Envelope:     leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityResponse, "player:P01", token, in.ConversationID, time.Now()),
			MatchID:      in.MatchID,
			PlayerID:     "P01",
			ParityChoice: leaguesdk.Even,
		}
	}
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{Sender: func() string { return "player:P01" }})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: leaguesdk.MethodChooseParity},
		func(ctx context.Context, _ *leaguesdk.Request, in *leaguesdk.ChooseParityCall) (*leaguesdk.ChooseParityResponse, error) {
			return answer(in), nil
		})
	n.Handle("p01", srv)
	now := time.Now()
	call := &leaguesdk.ChooseParityCall{
		Envelope: leaguesdk.NewEnvelope(leaguesdk.MsgChooseParityCall, "referee:REF01", token, "conv-r1m1-001", now),
		MatchID:  "R1M1",
		PlayerID: "P01",
		GameType: leaguesdk.GameEvenOdd,
		Context:  leaguesdk.ParityContext{OpponentID: "P02", RoundID: 1},
		Deadline: leaguesdk.FormatTime(now.Add(time.Hour)),
	}
	// The request and its reply as "libs" encodes them; "bare" sends and
	// answers these bytes as they are.
	encodeRequest := func() ([]byte, error) {
		return json.Marshal(rpcRequest{"2.0", 1, leaguesdk.MethodChooseParity, call})
	}
	request, err := encodeRequest()
	if err != nil {
		b.Fatal(err)
	}
	reply, err := json.Marshal(rpcResult{"2.0", json.RawMessage("1"), answer(call)})
	if err != nil {
		b.Fatal(err)
	}
	n.Handle("bare", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(reply)
	}))
	n.Handle("libs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req struct {
			ID     json.RawMessage            `json:"id"`
			Params leaguesdk.ChooseParityCall `json:"params"`
		}
		if err := wirejson.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := leaguesdk.Validate(&req.Params); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(rpcResult{"2.0", req.ID, answer(&req.Params)})
	}))
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		c := leaguesdk.NewClient(leaguesdk.ClientConfig{HTTPClient: n.Client()})
		defer c.Close()
		parallelCalls(b, func() error {
			var resp leaguesdk.ChooseParityResponse
			if err := c.Call(ctx, "http://p01/mcp", leaguesdk.MethodChooseParity, call, &resp); err != nil {
				return err
			}
			if resp.ParityChoice != leaguesdk.Even {
				return fmt.Errorf("choice %q, want even", resp.ParityChoice)
			}
			return nil
		})
	})
	hc := n.Client()
	post := func(url string, body []byte) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d: %s", resp.StatusCode, got)
		}
		return got, err
	}
	b.Run("libs", func(b *testing.B) {
		parallelCalls(b, func() error {
			body, err := encodeRequest()
			if err != nil {
				return err
			}
			got, err := post("http://libs/mcp", body)
			if err != nil {
				return err
			}
			var resp struct {
				Result leaguesdk.ChooseParityResponse `json:"result"`
			}
			if err := wirejson.Unmarshal(got, &resp); err != nil {
				return err
			}
			if err := leaguesdk.Validate(&resp.Result); err != nil {
				return err
			}
			if resp.Result.ParityChoice != leaguesdk.Even {
				return fmt.Errorf("choice %q, want even", resp.Result.ParityChoice)
			}
			return nil
		})
	})
	b.Run("bare", func(b *testing.B) {
		parallelCalls(b, func() error {
			got, err := post("http://bare/mcp", request)
			if err == nil && len(got) != len(reply) {
				err = fmt.Errorf("reply of %d bytes, want %d", len(got), len(reply))
			}
			return err
		})
	})
}

// rpcRequest and rpcResult are the JSON-RPC request and reply of the
// benchmark's call, encoded by encoding/json.
type rpcRequest struct {
	JSONRPC string                      `json:"jsonrpc"`
	ID      int                         `json:"id"`
	Method  string                      `json:"method"`
	Params  *leaguesdk.ChooseParityCall `json:"params"`
}

type rpcResult struct {
	JSONRPC string                          `json:"jsonrpc"`
	ID      json.RawMessage                 `json:"id"`
	Result  *leaguesdk.ChooseParityResponse `json:"result"`
}

// parallelCalls runs call from 4 goroutines per CPU until b is done and
// reports calls/s and the process's CPU time per call.
func parallelCalls(b *testing.B, call func() error) {
	b.SetParallelism(4)
	b.ReportAllocs()
	start, cpu := time.Now(), cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := call(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	elapsed, cpu := time.Since(start), cpuTime()-cpu
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/call")
	}
}
