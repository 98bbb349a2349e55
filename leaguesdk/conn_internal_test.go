package leaguesdk

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// tcpPair returns both ends of a loopback TCP connection.
func tcpPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// partsConn.ReadFrom sends a partsBody that net/http's limit covers from
// its parts, whole, and spends the limit; a partsBody longer than the
// limit, and any other reader, are copied as far as the limit goes, as by
// a plain connection.
func TestPartsConnReadFrom(t *testing.T) {
	parts := net.Buffers{[]byte(`{"head":`), bytes.Repeat([]byte("x"), 100<<10), []byte(`,"tail":1}`)}
	whole := bytes.Join(parts, nil)
	newParts := func() io.Reader { return &partsBody{append(net.Buffers(nil), parts...)} }
	tests := []struct {
		name  string
		r     func() io.Reader
		limit int64
	}{
		{"parts within the limit", newParts, int64(len(whole))},
		{"parts within a larger limit", newParts, int64(len(whole)) + 10},
		{"parts beyond the limit", newParts, 1000},
		{"another reader", func() io.Reader { return bytes.NewReader(whole) }, int64(len(whole))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client, server := tcpPair(t)
			got := make(chan []byte, 1)
			go func() {
				b, _ := io.ReadAll(server)
				got <- b
			}()
			lr := &io.LimitedReader{R: tc.r(), N: tc.limit}
			n, err := partsConn{client}.ReadFrom(lr)
			client.Close()
			want := whole[:min(tc.limit, int64(len(whole)))]
			if err != nil || n != int64(len(want)) || lr.N != tc.limit-n {
				t.Errorf("ReadFrom: %d bytes, %v, limit left %d; want %d bytes, limit left %d", n, err, lr.N, len(want), tc.limit-int64(len(want)))
			}
			if b := <-got; !bytes.Equal(b, want) {
				t.Errorf("received %d bytes, want the first %d of the body", len(b), len(want))
			}
		})
	}
}

// A broadcast's body, sent from its parts by the Client's own transport,
// arrives as the request encoded whole, call after call on one kept
// connection and on a new one after the server closed it.
func TestLargeBodiesArriveWhole(t *testing.T) {
	shared, err := EncodeShared(&LeagueStandingsUpdate{LeagueID: "l", RoundID: 1, Standings: standingsTable(1000)})
	if err != nil {
		t.Fatal(err)
	}
	env := NewEnvelope(MsgLeagueStandingsUpdate, LeagueManagerSender, "tok_a", "conv", time.Now())
	params, _, err := encodeParams(shared.To(env))
	if err != nil {
		t.Fatal(err)
	}
	want := params.join()
	bodies := make(chan []byte, 10)
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil || int64(len(b)) != r.ContentLength {
			t.Errorf("body: %d bytes of %d, %v", len(b), r.ContentLength, err)
		}
		bodies <- b
		if calls.Add(1) == 2 {
			w.Header().Set("Connection", "close") // the third call dials again
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
	}))
	defer srv.Close()
	c := NewClient(ClientConfig{})
	defer c.Close()
	for i := range 3 {
		if err := c.Call(context.Background(), srv.URL+"/mcp", MethodUpdateStandings, shared.To(env), nil); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		var req struct {
			Params json.RawMessage `json:"params"`
		}
		if b := <-bodies; json.Unmarshal(b, &req) != nil || !bytes.Equal(req.Params, want) {
			t.Fatalf("call %d: the body's params (%d bytes) are not the message (%d bytes)", i+1, len(req.Params), len(want))
		}
	}
}
