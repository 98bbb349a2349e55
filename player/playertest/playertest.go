package playertest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// Options configures a conformance run. The zero value is usable; every
// field documents its default. [Run] and [Check] take at most one [Options].
type Options struct {
	// Timeout is the deadline of the join acknowledgement (the check
	// timing.join_ack) and of every reply other than the parity choice.
	// Default [leaguesdk.DefaultJoinTimeout] (5 s). A reply that comes late
	// is still awaited for as long again, so that a slow player fails the
	// timing check and nothing else.
	Timeout time.Duration
	// ChoiceDeadline is the time a player has to answer choose_parity; the
	// call's deadline field says the same. Default
	// [leaguesdk.DefaultChoiceTimeout] (30 s).
	ChoiceDeadline time.Duration
	// PlayerID is the player id the messages address. A player learns its
	// id when it registers, so the kit cannot know it; players that check
	// the player_id of what they receive need it set. Default "P01".
	PlayerID string
	// PlayerToken is the token the player was given at registration. When
	// set, manager broadcasts carry it (a player may refuse broadcasts
	// without it), the kit announces its spec-form match with it, and the
	// replies about that match must carry it too. Default: none, and a
	// fresh token is sent instead.
	PlayerToken string
	// AuthToken is the referee token the kit's referee messages carry.
	// Default: a fresh token from [leaguesdk.NewToken].
	AuthToken string
	// HTTPClient sends the requests. Default: a client of the run's own,
	// closed when the run ends.
	HTTPClient *http.Client
	// Skip lists the checks not to run: a check id ("robust.malformed"),
	// or a prefix of ids ending at a dot boundary ("notify" skips every
	// notify.* check). Skipped checks are reported with status skip.
	Skip []string
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = leaguesdk.DefaultJoinTimeout
	}
	if o.ChoiceDeadline <= 0 {
		o.ChoiceDeadline = leaguesdk.DefaultChoiceTimeout
	}
	if o.PlayerID == "" {
		o.PlayerID = "P01"
	}
	if o.AuthToken == "" {
		o.AuthToken = leaguesdk.NewToken()
	}
	return o
}

// skipped reports whether the check id is listed in Skip.
func (o Options) skipped(id string) bool {
	for _, s := range o.Skip {
		s = strings.TrimSuffix(s, ".")
		if s != "" && (id == s || strings.HasPrefix(id, s+".")) {
			return true
		}
	}
	return false
}

// Status is the outcome of one check.
type Status string

// The outcomes of a check. Only [Fail] makes a run fail: [Warn] marks a
// deviation from the strict profile that tolerant peers accept, and [Skip]
// a check that was not run (listed in [Options.Skip], or without anything to
// look at because an earlier exchange failed; its Detail says which).
const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is the outcome of one check.
type Result struct {
	// ID names the check; it is stable across versions
	// ("tool.choose_parity.spec").
	ID string `json:"id"`
	// Title says what the check verifies.
	Title string `json:"title"`
	// Rule cites the section of the protocol profile the check enforces.
	Rule string `json:"rule"`
	// Status is the outcome.
	Status Status `json:"status"`
	// Sent is the request the check looked at, as sent (tokens masked,
	// truncated).
	Sent string `json:"sent,omitempty"`
	// Received is what came back: the HTTP status and body (tokens masked,
	// truncated), or why nothing came back.
	Received string `json:"received,omitempty"`
	// Detail says what deviates and why, or what was verified.
	Detail string `json:"detail,omitempty"`
}

// String formats the result as one line: status, id, what was sent and
// what came back in short, and the rule:
//
//	PASS  health  GET /health → 200 {"agent":"player:P01","status":"healthy"}  [PROFILE §Transport]
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s  %s", strings.ToUpper(string(r.Status)), r.ID)
	if r.Sent != "" || r.Received != "" {
		got := rpcFraming.ReplaceAllString(strings.TrimPrefix(r.Received, "HTTP "), "$1{")
		fmt.Fprintf(&b, "  %s → %s", summary(r.Sent), clip(got, 100))
	}
	fmt.Fprintf(&b, "  [%s]", r.Rule)
	return b.String()
}

var (
	methodPattern = regexp.MustCompile(`"method":"([^"]*)"`)
	namePattern   = regexp.MustCompile(`"name":"([^"]*)"`)
	matchPattern  = regexp.MustCompile(`"match_id":"([^"]*)"`)
	// rpcFraming matches the JSON-RPC framing that opens a reply body,
	// which the one-line form leaves out.
	rpcFraming = regexp.MustCompile(`^(\d+ (?:\(SSE\) )?)\{"jsonrpc":"2\.0","id":[^,]*,`)
)

// summary shortens a request as Result.Sent gives it: the HTTP method and
// path of a GET, the JSON-RPC method (and tool and match) of a call.
func summary(sent string) string {
	if rest, ok := strings.CutPrefix(sent, "GET "); ok {
		if u, err := url.Parse(rest); err == nil {
			return "GET " + u.Path
		}
		return sent
	}
	m := methodPattern.FindStringSubmatch(sent)
	if m == nil {
		return clip(sent, 40)
	}
	out := m[1]
	if n := namePattern.FindStringSubmatch(sent); n != nil && out == "tools/call" {
		out += " " + n[1]
	}
	if id := matchPattern.FindStringSubmatch(sent); id != nil {
		out += " " + id[1]
	}
	return out
}

// Report is the outcome of a conformance run.
type Report struct {
	// Endpoint is the player endpoint that was checked.
	Endpoint string `json:"endpoint"`
	// Checks holds one result per check, in the order they ran.
	Checks []Result `json:"checks"`
	// Passed, Warned, Failed and Skipped count the results by status.
	Passed  int `json:"passed"`
	Warned  int `json:"warned"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Elapsed is how long the run took.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// OK reports whether no check failed.
func (r *Report) OK() bool { return r.Failed == 0 }

// Find returns the result of the check with the given id.
func (r *Report) Find(id string) (Result, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return Result{}, false
}

// ErrOptions is the cause of the error [Check] returns when it is given more
// than one [Options] (test with [errors.Is]).
var ErrOptions = errors.New("playertest: at most one Options may be given")

// Check runs the conformance suite against the player serving JSON-RPC at
// endpoint ("http://127.0.0.1:8101/mcp") and returns one result per check.
// Checks run one after the other, the robustness check last but for the
// league-completed notification, since a player may not survive it.
// A player that fails checks is not an error: the error is non-nil only for
// an unusable endpoint or options, or when ctx ends before the run does
// (the report then holds the checks made so far).
func Check(ctx context.Context, endpoint string, opts ...Options) (*Report, error) {
	if len(opts) > 1 {
		return nil, ErrOptions
	}
	var o Options
	if len(opts) == 1 {
		o = opts[0]
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("playertest: endpoint %q is not an absolute http(s) URL", endpoint)
	}
	s := newSuite(endpoint, u, o.withDefaults())
	defer s.close()
	start := time.Now()
	s.run(ctx)
	rep := &Report{Endpoint: endpoint, Checks: s.results, Elapsed: time.Since(start)}
	for _, c := range rep.Checks {
		switch c.Status {
		case Pass:
			rep.Passed++
		case Warn:
			rep.Warned++
		case Fail:
			rep.Failed++
		case Skip:
			rep.Skipped++
		}
	}
	return rep, ctx.Err()
}

// Run runs the conformance suite against the player at endpoint within
// a test, each check as a subtest named by its id: a failed check fails
// its subtest with what was sent, what came back and why; a warning is
// logged; a skipped check is skipped. When t cannot run subtests, the
// results are reported on t itself. Run returns the report.
func Run(t testing.TB, endpoint string, opts ...Options) *Report {
	t.Helper()
	rep, err := Check(t.Context(), endpoint, opts...)
	if err != nil {
		t.Fatalf("playertest: %v", err)
		return rep
	}
	for _, res := range rep.Checks {
		switch tt := t.(type) {
		case *testing.T:
			tt.Run(res.ID, func(t *testing.T) { report(t, res) })
		case *testing.B:
			tt.Run(res.ID, func(b *testing.B) { report(b, res) })
		default:
			report(t, res)
		}
	}
	return rep
}

// report reports one result on t.
func report(t testing.TB, res Result) {
	t.Helper()
	switch res.Status {
	case Fail:
		t.Errorf("%s\n%s", res, res.Details())
	case Warn:
		t.Logf("%s\n%s", res, res.Details())
	case Skip:
		t.Skipf("%s: %s", res.ID, res.Detail)
	default:
		t.Log(res.String())
	}
}

// Details returns the result's request, reply and explanation as indented
// lines, for printing under [Result.String]'s line.
func (r Result) Details() string {
	var b strings.Builder
	if r.Sent != "" {
		fmt.Fprintf(&b, "    sent:     %s\n", r.Sent)
	}
	if r.Received != "" {
		fmt.Fprintf(&b, "    received: %s\n", r.Received)
	}
	if r.Detail != "" {
		fmt.Fprintf(&b, "    why:      %s\n", r.Detail)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
