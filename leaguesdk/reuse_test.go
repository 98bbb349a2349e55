package leaguesdk_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentleague/league/leaguesdk"
)

type reuseIn struct {
	leaguesdk.Envelope
	Text string `json:"text"`
}

// reuseServer serves the tool "hold", whose handler records what it was
// given and, for a text that starts with "wait", waits for release before checking that
// its request's bytes and its decoded message are still as they came.
func reuseServer(t *testing.T, reuse bool, release <-chan struct{}, waiting chan<- struct{}) *leaguesdk.Server {
	srv := leaguesdk.NewServer(leaguesdk.ServerConfig{ReuseBuffers: reuse})
	leaguesdk.Handle(srv, leaguesdk.Tool{Name: "hold", Public: true, NoValidate: true,
		MessageTypes: []leaguesdk.MessageType{"TEST_HOLD"}},
		func(ctx context.Context, _ *leaguesdk.Request, in *reuseIn) (*leaguesdk.Ack, error) {
			req := leaguesdk.RequestFrom(ctx)
			message := bytes.Clone(req.Message)
			if strings.HasPrefix(in.Text, "wait") {
				waiting <- struct{}{}
				<-release
			}
			if !bytes.Equal(req.Message, message) || !strings.Contains(string(message), in.Text) {
				t.Errorf("while its handler ran, the request's message changed from %.60q to %.60q", message, req.Message)
			}
			return &leaguesdk.Ack{Status: leaguesdk.AckOK}, nil
		})
	return srv
}

func holdBody(id int, text string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"hold","params":{"message_type":"TEST_HOLD","text":%q}}`, id, text)
}

// With ReuseBuffers, a request's bytes stay its own until its handler
// returns, however many requests are served meanwhile.
func TestReuseBuffersKeepsARequestWhileItIsServed(t *testing.T) {
	release, waiting := make(chan struct{}), make(chan struct{})
	ts := httptest.NewServer(reuseServer(t, true, release, waiting))
	defer ts.Close()
	post := func(body string) {
		resp, err := http.Post(ts.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		resp.Body.Close()
	}
	var wg sync.WaitGroup
	wg.Go(func() { post(holdBody(1, "wait"+strings.Repeat(".", 1000))) })
	<-waiting
	for i := range 50 {
		post(holdBody(2+i, strings.Repeat(fmt.Sprint(i%10), 100))) // shorter: its buffer would do
	}
	close(release)
	wg.Wait()
}

// With ReuseBuffers, serving a request allocates no buffer for its body.
func TestReuseBuffersReusesBodies(t *testing.T) {
	if raceDetector {
		t.Skip("sync.Pool keeps nothing for sure under the race detector")
	}
	body := holdBody(1, strings.Repeat("x", 16<<10))
	allocs := func(reuse bool) float64 {
		srv := reuseServer(t, reuse, nil, nil)
		return testing.AllocsPerRun(100, func() {
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body)))
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"result"`) {
				t.Fatalf("answered %d %s", rec.Code, rec.Body)
			}
		})
	}
	without, with := allocs(false), allocs(true)
	if with > without-0.5 {
		t.Fatalf("%.1f allocations a request with ReuseBuffers, %.1f without: the body's buffer is not reused", with, without)
	}
}
