package leaguesdk_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/leaguesdk"
)

// A peer's redirect is followed only within its origin: a 307 to another
// path of the same scheme, host and port is followed with the same
// request, as a framework's /mcp → /mcp/ is.
func TestClientFollowsARedirectWithinTheOrigin(t *testing.T) {
	p := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		if r.URL.Path == "/mcp" {
			http.Redirect(w, r, "/mcp/", http.StatusTemporaryRedirect)
			return
		}
		writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"message_type": "CHOOSE_PARITY_RESPONSE", "parity_choice": "odd"}))
	})
	c := fastClient(t, leaguesdk.ClientConfig{})
	resp, err := choose(context.Background(), c, p.url)
	if err != nil {
		t.Fatalf("call through a redirect within the origin: %v", err)
	}
	if resp.ParityChoice != leaguesdk.Odd {
		t.Errorf("choice %q, want odd", resp.ParityChoice)
	}
	if got := p.seenMethods(); len(got) != 2 || got[0] != got[1] {
		t.Errorf("requests %v, want the same request twice (before and after the redirect)", got)
	}
}

// A redirect to another origin — another port, or another host name for
// the same address — fails the call with an error naming the status, and
// nothing is sent there: the message carries the caller's token. Neither
// is a 302 followed, which would turn the POST into a GET. The failure is
// not retried.
func TestClientRefusesARedirectElsewhere(t *testing.T) {
	elsewhere := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"message_type": "CHOOSE_PARITY_RESPONSE", "parity_choice": "odd"}))
	})
	u, _ := url.Parse(elsewhere.url)
	for _, c := range []struct {
		name   string
		status int
		to     func(self string) string
	}{
		{"another port", http.StatusTemporaryRedirect, func(string) string { return elsewhere.url }},
		{"another host", http.StatusPermanentRedirect, func(self string) string {
			su, _ := url.Parse(self)
			return "http://localhost:" + su.Port() + "/mcp/"
		}},
		{"another scheme", http.StatusTemporaryRedirect, func(self string) string { return strings.Replace(self, "http://", "https://", 1) }},
		{"a 302 to the same origin", http.StatusFound, func(self string) string { return self + "/" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			var self string
			p := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
				if r.URL.Path == "/mcp" {
					w.Header().Set("Location", c.to(self))
					w.WriteHeader(c.status)
					return
				}
				writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"message_type": "CHOOSE_PARITY_RESPONSE", "parity_choice": "odd"}))
			})
			self = p.url
			before := elsewhere.count()
			cl := fastClient(t, leaguesdk.ClientConfig{})
			_, err := choose(context.Background(), cl, p.url)
			if err == nil {
				t.Fatal("call redirected elsewhere succeeded")
			}
			var e *leaguesdk.Error
			if !errors.As(err, &e) || e.Code.Retryable() {
				t.Fatalf("error %v (%T), want an *Error that is not retried", err, err)
			}
			if !strings.Contains(err.Error(), http.StatusText(c.status)) && !strings.Contains(err.Error(), strconv.Itoa(c.status)) {
				t.Errorf("error %q does not name the status %d", err, c.status)
			}
			if n := elsewhere.count() - before; n != 0 {
				t.Errorf("%d requests reached the other origin %s", n, u.Host)
			}
			if n := p.count(); n != 1 {
				t.Errorf("the redirecting peer got %d requests, want 1 (no retry)", n)
			}
		})
	}
}

// Params given in pieces (a broadcast's shared fields after each
// recipient's envelope, internal/json.Parts) arrive as one message, with
// its length declared, and arrive whole again after a redirect within the
// origin.
func TestClientSendsParamsInPiecesWhole(t *testing.T) {
	var bodies []map[string]any
	var lengths []int64
	var mu sync.Mutex
	p := newCountingPeer(t, func(w http.ResponseWriter, r *http.Request, req map[string]any, n int) {
		mu.Lock()
		bodies, lengths = append(bodies, req), append(lengths, r.ContentLength)
		mu.Unlock()
		if r.URL.Path == "/mcp" {
			http.Redirect(w, r, "/mcp/", http.StatusTemporaryRedirect)
			return
		}
		writeRaw(w, http.StatusOK, resultBody(req, map[string]any{"message_type": "ACK", "status": "OK"}))
	})
	c := fastClient(t, leaguesdk.ClientConfig{})
	params := wirejson.Parts{[]byte(`{"message_type":"ROUND_COMPLETED",`), []byte(`"league_id":"L1","round_id":3`), []byte(`}`)}
	if err := c.Call(context.Background(), p.url, leaguesdk.MethodNotifyRoundCompleted, params, nil); err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2 (before and after the redirect)", len(bodies))
	}
	for i, b := range bodies {
		got, _ := b["params"].(map[string]any)
		if got["message_type"] != "ROUND_COMPLETED" || got["league_id"] != "L1" || got["round_id"] != 3.0 ||
			b["method"] != leaguesdk.MethodNotifyRoundCompleted || lengths[i] <= 0 {
			t.Errorf("request %d: %v (Content-Length %d)", i+1, b, lengths[i])
		}
	}
}
