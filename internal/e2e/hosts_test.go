package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentleague/league/internal/tlstest"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/manager"
)

// fetchEnv, when set, makes TestLeagueAcrossHosts a client only: the test
// binary, started again inside a host's namespace, fetches the URL named
// there over mutual TLS and prints the body. The root namespace has no
// route to the hosts' network, so the test reads the manager this way.
const fetchEnv = "LEAGUE_E2E_FETCH"

// hostNet is a network of hosts made of network namespaces: one namespace
// holds a bridge, each host a namespace of its own with one veth on it.
type hostNet struct {
	t      *testing.T
	id     string // unique per run, part of every name
	prefix string // "10.x.y.", the /24 that exists only in these namespaces
	all    []string
}

func (n *hostNet) ip(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newHostNet makes the bridge's namespace, or skips the test saying why
// this machine cannot.
func newHostNet(t *testing.T) *hostNet {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the ip command (iproute2) is not installed")
	}
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	n := &hostNet{t: t, id: "lg" + hex.EncodeToString(b[:3]), prefix: fmt.Sprintf("10.%d.%d.", 200+int(b[3])%50, b[0])}
	bridge := n.id + "br"
	if out, err := exec.Command("ip", "netns", "add", bridge).CombinedOutput(); err != nil {
		t.Skipf("cannot create a network namespace here: %v: %s", err, strings.TrimSpace(string(out)))
	}
	n.all = append(n.all, bridge)
	t.Cleanup(func() {
		// Deleting a namespace removes the veths and the bridge in it.
		for _, ns := range n.all {
			if out, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
				t.Errorf("ip netns del %s: %v: %s", ns, err, out)
			}
		}
	})
	n.ip("-n", bridge, "link", "add", "br0", "type", "bridge")
	n.ip("-n", bridge, "link", "set", "br0", "up")
	return n
}

// host makes the namespace of a host whose address is prefix+octet, wired
// to the bridge, and returns its name.
func (n *hostNet) host(name string, octet int) string {
	n.t.Helper()
	ns, bridge, veth := n.id+name, n.id+"br", n.id+name+"v"
	n.ip("netns", "add", ns)
	n.all = append(n.all, ns)
	n.ip("-n", bridge, "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
	n.ip("-n", bridge, "link", "set", veth, "master", "br0", "up")
	n.ip("-n", ns, "addr", "add", fmt.Sprintf("%s%d/24", n.prefix, octet), "dev", "eth0")
	n.ip("-n", ns, "link", "set", "eth0", "up")
	n.ip("-n", ns, "link", "set", "lo", "up")
	return ns
}

// program is a standalone program running in a host's namespace.
type program struct {
	name string
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
}

// start runs bin with args in namespace ns; the test's cleanup stops it
// (SIGTERM, then SIGKILL) and waits for it.
func start(t *testing.T, ns, name, bin string, args ...string) *program {
	t.Helper()
	return startCommand(t, name, exec.Command("ip", append([]string{"netns", "exec", ns, bin}, args...)...))
}

// startCommand runs cmd, its output collected; the test's cleanup stops
// it (SIGTERM, then SIGKILL) and waits for it.
func startCommand(t *testing.T, name string, cmd *exec.Cmd) *program {
	t.Helper()
	p := &program{name: name, cmd: cmd, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s printed:\n%s", name, p.out.String())
		}
	})
	return p
}

// buildExamples builds the programs of examples/ named by progs into a
// temporary folder, and returns it.
func buildExamples(t *testing.T, progs ...string) string {
	t.Helper()
	bin := t.TempDir()
	root := moduleRoot(t)
	for _, prog := range progs {
		build := exec.Command("go", "build", "-o", filepath.Join(bin, prog), "./examples/"+prog)
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./examples/%s: %v\n%s", prog, err, out)
		}
	}
	return bin
}

// fetchInHost prints the body of url; it runs inside a host's namespace.
func fetchInHost(t *testing.T, url string) {
	files := leaguesdk.TLSFiles{CertFile: os.Getenv(fetchEnv + "_CERT"), KeyFile: os.Getenv(fetchEnv + "_KEY"), CAFile: os.Getenv(fetchEnv + "_CA")}
	_, clientTLS, err := files.Configs()
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: clientTLS}}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v", url, resp.Status, err)
	}
	fmt.Printf("%s%s\n", fetchMark, body)
}

const fetchMark = "FETCHED "

// TestLeagueAcrossHosts plays a league with the manager, the referees and
// the players on three hosts — network namespaces on one bridge, each with
// its own address on a /24 that exists only inside them — running the
// standalone programs over mutual TLS, and reads the final standings from
// the manager. It needs root and iproute2, and skips otherwise.
func TestLeagueAcrossHosts(t *testing.T) {
	if url := os.Getenv(fetchEnv); url != "" {
		fetchInHost(t, url)
		return
	}
	if testing.Short() {
		t.Skip("builds the programs and plays a whole league")
	}
	n := newHostNet(t)
	mgrNS, refNS, plyNS := n.host("m", 1), n.host("r", 2), n.host("p", 3)

	bin := buildExamples(t, "manager", "referee", "player")

	// One CA; each host's certificate names its address. Every program
	// serves HTTPS only, requires client certificates of the CA, and
	// presents its own certificate when it calls.
	ca := tlstest.NewCA(t, "Cross-host League CA")
	certs := t.TempDir()
	tlsArgs := func(name string, octet int) []string {
		dir := filepath.Join(certs, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		caFile, cert, key := ca.Files(t, dir, name, ca.Issue(t, name, fmt.Sprintf("%s%d", n.prefix, octet)))
		return []string{"-tls-cert", cert, "-tls-key", key, "-ca", caFile, "-client-ca", caFile}
	}
	data := t.TempDir()
	// The ports are fixed, as an operator's would be: each host's namespace
	// is new and private, so nothing else can hold them.
	endpoint := func(octet, port int) string { return fmt.Sprintf("https://%s%d:%d/mcp", n.prefix, octet, port) }
	league := endpoint(1, 8000)
	mgr := start(t, mgrNS, "manager", filepath.Join(bin, "manager"), append([]string{"-host", "0.0.0.0", "-port", "8000",
		"-endpoint", league, "-data", filepath.Join(data, "manager"), "-min-players", "4", "-registration-window", "-1s",
		"-retry-delay", "100ms"}, tlsArgs("manager", 1)...)...)
	refTLS := tlsArgs("referees", 2)
	for i := range 2 {
		port := 8001 + i
		start(t, refNS, fmt.Sprintf("referee %d", i+1), filepath.Join(bin, "referee"), append([]string{"-host", "0.0.0.0",
			"-port", fmt.Sprint(port), "-endpoint", endpoint(2, port), "-league", league, "-name", fmt.Sprintf("Referee %d", i+1),
			"-data", filepath.Join(data, "referees"), "-move-timeout", "5s", "-retry-delay", "100ms"}, refTLS...)...)
	}
	plyTLS := tlsArgs("players", 3)
	for i := range 4 {
		port := 8101 + i
		start(t, plyNS, fmt.Sprintf("player %d", i+1), filepath.Join(bin, "player"), append([]string{"-host", n.prefix + "3",
			"-port", fmt.Sprint(port), "-endpoint", endpoint(3, port), "-league", league, "-name", fmt.Sprintf("Player %d", i+1),
			"-data", filepath.Join(data, "players")}, plyTLS...)...)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	for !strings.Contains(mgr.out.String(), " completed after ") {
		select {
		case <-ctx.Done():
			t.Fatalf("the league did not complete; the manager printed:\n%s", mgr.out.String())
		case <-mgr.done:
			t.Fatalf("the manager exited; it printed:\n%s", mgr.out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}

	// Read the final state from the manager, from the players' host.
	fetch := exec.CommandContext(ctx, "ip", "netns", "exec", plyNS, os.Args[0], "-test.run=^TestLeagueAcrossHosts$")
	fetch.Env = append(os.Environ(), fetchEnv+"="+strings.TrimSuffix(league, "/mcp")+"/api/state",
		fetchEnv+"_CERT="+plyTLS[1], fetchEnv+"_KEY="+plyTLS[3], fetchEnv+"_CA="+plyTLS[5])
	out, err := fetch.CombinedOutput()
	if err != nil {
		t.Fatalf("reading the manager's state from the players' host: %v\n%s", err, out)
	}
	var state manager.Snapshot
	for _, line := range strings.Split(string(out), "\n") {
		if body, ok := strings.CutPrefix(line, fetchMark); ok {
			if err := json.Unmarshal([]byte(body), &state); err != nil {
				t.Fatalf("the manager's state: %v\n%s", err, body)
			}
		}
	}
	if state.Status != "COMPLETED" || state.Champion == nil || len(state.Standings) != 4 {
		t.Fatalf("the manager's final state: status %q, champion %v, %d standings rows; want COMPLETED, a champion, 4 rows\n%s",
			state.Status, state.Champion, len(state.Standings), out)
	}
	var points int
	for _, row := range state.Standings {
		if row.Played != 3 {
			t.Errorf("%s played %d matches, want 3", row.PlayerID, row.Played)
		}
		points += row.Points
	}
	if points < 12 || points > 18 { // 6 matches: 3 points a win, 1 each a draw
		t.Errorf("the standings hold %d points in all, want 12 to 18", points)
	}
	for _, r := range state.Referees {
		if !strings.HasPrefix(r.Endpoint, "https://"+n.prefix+"2:") {
			t.Errorf("referee %s at %s, want the referees' host", r.RefereeID, r.Endpoint)
		}
	}
	for _, p := range state.Players {
		if !strings.HasPrefix(p.Endpoint, "https://"+n.prefix+"3:") {
			t.Errorf("player %s at %s, want the players' host", p.PlayerID, p.Endpoint)
		}
	}
}
