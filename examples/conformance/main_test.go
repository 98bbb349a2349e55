package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/playertest"
)

// startPlayer serves this module's player, unregistered, through wrap,
// and returns its endpoint.
func startPlayer(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(wrap(examplePlayer(t)))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// examplePlayer is the handler of this module's player, unregistered.
func examplePlayer(t *testing.T) http.Handler {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	league := "http://" + ln.Addr().String() + "/mcp" // a manager that is down
	ln.Close()
	a, err := player.New(player.Config{Name: "Conformance Example", League: league, DataRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return a.Handler()
}

func asIs(h http.Handler) http.Handler { return h }

// upperCaseParity turns the player into one that answers "EVEN" and "ODD".
func upperCaseParity(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		for _, p := range []string{"even", "odd"} {
			body = bytes.ReplaceAll(body, []byte(`"parity_choice":"`+p+`"`), []byte(`"parity_choice":"`+strings.ToUpper(p)+`"`))
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(body)
	})
}

func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

var fast = []string{"-timeout", "1s", "-choice-deadline", "2s"}

func TestConformingPlayerExitsZero(t *testing.T) {
	ep := startPlayer(t, asIs)
	code, out, errOut := runMain(t, append(fast, "-player", ep)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	ids := playertest.CheckIDs()
	if len(lines) != len(ids)+1 {
		t.Fatalf("%d lines for %d checks:\n%s", len(lines), len(ids), out)
	}
	for i, id := range ids {
		if !strings.HasPrefix(lines[i], "PASS  "+id+"  ") || !strings.Contains(lines[i], "[PROFILE §") {
			t.Errorf("line %d: %s", i, lines[i])
		}
	}
	if !strings.HasPrefix(lines[0], "PASS  health  GET /health → 200 {") {
		t.Errorf("health line: %s", lines[0])
	}
	if want := ep + ": " + itoa(len(ids)) + " passed, 0 warned, 0 failed, 0 skipped in "; !strings.HasPrefix(lines[len(ids)], want) {
		t.Errorf("summary %q, want prefix %q", lines[len(ids)], want)
	}
}

func TestFailingPlayerExitsOneAndSaysWhy(t *testing.T) {
	ep := startPlayer(t, upperCaseParity)
	code, out, _ := runMain(t, append(fast, "-player", ep)...)
	if code != exitFail {
		t.Fatalf("exit %d, want %d\n%s", code, exitFail, out)
	}
	for _, want := range []string{"FAIL  choice.parity  choose_parity R", "→ 200 {", "    sent:     {", "    why:      E004", ": " + itoa(len(playertest.CheckIDs())-1) + " passed, 0 warned, 1 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, `"parity_choice":"EVEN"`) && !strings.Contains(out, `"parity_choice":"ODD"`) {
		t.Errorf("output does not show the choice that came back:\n%s", out)
	}
}

func TestJSONReport(t *testing.T) {
	ep := startPlayer(t, upperCaseParity)
	code, out, _ := runMain(t, append(fast, "-json", "-skip", "robust,notify.notify_round", "-player", ep)...)
	if code != exitFail {
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	var rep playertest.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("-json output does not decode: %v\n%s", err, out)
	}
	if rep.Endpoint != ep || rep.Failed != 1 || rep.Skipped != 2 || len(rep.Checks) != len(playertest.CheckIDs()) {
		t.Errorf("report: endpoint %s, failed %d, skipped %d, %d checks", rep.Endpoint, rep.Failed, rep.Skipped, len(rep.Checks))
	}
	c, ok := rep.Find("choice.parity")
	if !ok || c.Status != playertest.Fail || c.Rule == "" || c.Sent == "" || c.Received == "" || c.Detail == "" {
		t.Errorf("choice.parity: %+v", c)
	}
	for _, id := range []string{"robust.malformed", "notify.notify_round"} {
		if c, _ := rep.Find(id); c.Status != playertest.Skip {
			t.Errorf("%s: %s, want skip", id, c.Status)
		}
	}
	var raw map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"endpoint", "checks", "passed", "warned", "failed", "skipped"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-json"},
		{"-player", "127.0.0.1:8101/mcp"},
		{"-player", "http://127.0.0.1:8101/mcp", "extra"},
		{"-no-such-flag"},
	} {
		if code, out, errOut := runMain(t, args...); code != exitUsage || errOut == "" || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

func TestInterrupted(t *testing.T) {
	ep := startPlayer(t, asIs)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var out, errOut bytes.Buffer
	if code := run(ctx, []string{"-player", ep}, &out, &errOut); code != exitFail || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
