package chaos_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// kinds of agents.
const (
	kindManager = "manager"
	kindReferee = "referee"
	kindPlayer  = "player"
)

// buildAgents builds the example programs into dir once per test binary
// run and returns their paths by kind.
func buildAgents(t *testing.T, dir string) map[string]string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{}
	for _, kind := range []string{kindManager, kindReferee, kindPlayer} {
		bin := filepath.Join(dir, kind)
		args := []string{"build", "-o", bin}
		if raceEnabled {
			args = append(args, "-race") // the agents too: a data race in one is reported in its log
		}
		cmd := exec.Command("go", append(args, "./examples/"+kind)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build ./examples/%s: %v\n%s", kind, err, out)
		}
		bins[kind] = bin
	}
	return bins
}

// proxies is toxiproxy's server, in process, with its HTTP API on a port
// of loopback and a client of that API.
type proxies struct {
	api    *httptest.Server
	client *toxiclient.Client

	mu    sync.Mutex
	ports map[int]bool // handed out to agents: no two agents get one port
}

func startProxies(t *testing.T) *proxies {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	api := httptest.NewServer(srv.Routes())
	p := &proxies{api: api, client: toxiclient.NewClient(api.URL), ports: map[int]bool{}}
	t.Cleanup(func() {
		if all, err := p.client.Proxies(); err == nil {
			for _, px := range all {
				_ = px.Delete()
			}
		}
		api.Close()
	})
	return p
}

// freePort returns a port of loopback that was free a moment ago: an
// agent keeps it across restarts, as a real one keeps its address. It is
// taken below the system's ephemeral range when it can be: a port of that
// range may meanwhile be the local end of some connection, and the agent
// started again could not listen on it.
func (px *proxies) freePort(t *testing.T) int {
	t.Helper()
	px.mu.Lock()
	defer px.mu.Unlock()
	for {
		if port := freePort(t); !px.ports[port] {
			px.ports[port] = true
			return port
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	for range 100 {
		if low <= 11000 {
			break
		}
		port := 10000 + rand.IntN(low-10000)
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			ln.Close()
			return port
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// agent is one agent process: its program, port, data root and the proxy
// in front of it. Other agents reach it only through the proxy.
type agent struct {
	kind, name string
	bin        string
	port       int
	data       string
	logPath    string
	// proxy is the proxy in front of the agent, listening on listen;
	// proxyMu serialises its use and its replacement (faults.removeToxic).
	proxy   *toxiclient.Proxy
	proxyMu sync.Mutex
	// toxicSlot holds the one toxic the proxy carries at a time (see
	// faults.runNet); made by newFaults.
	toxicSlot chan struct{}
	listen    string
	args      []string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	killed  bool // by the test: its exit is expected
	served  bool // the process answered /health
	starts  int
	crashes []string // exits the test did not cause
}

// url is the agent's endpoint as the others reach it: its proxy's.
func (a *agent) url() string { return "http://" + a.listen + "/mcp" }

// direct is the agent's own address, for the test's observations.
func (a *agent) direct() string { return "http://127.0.0.1:" + strconv.Itoa(a.port) }

func newAgent(t *testing.T, px *proxies, bins map[string]string, dir, kind, name string) *agent {
	t.Helper()
	a := &agent{kind: kind, name: name, bin: bins[kind], port: px.freePort(t)}
	a.data = filepath.Join(dir, strings.ReplaceAll(strings.ToLower(name), " ", "_"))
	a.logPath = a.data + ".log"
	if err := os.MkdirAll(a.data, 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	// The proxy's port, too, is taken below the ephemeral range: it listens
	// again on it when it is enabled after a timeout toxic (removeToxic).
	listen := "127.0.0.1:" + strconv.Itoa(px.freePort(t))
	a.listen = listen
	a.proxy, err = px.client.CreateProxy(filepath.Base(dir)+"_"+filepath.Base(a.data), listen, "127.0.0.1:"+strconv.Itoa(a.port))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// start starts the agent's process and waits until it answers /health.
func (a *agent) start(ctx context.Context) error {
	a.mu.Lock()
	logf, err := os.OpenFile(a.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		a.mu.Unlock()
		return err
	}
	cmd := exec.Command(a.bin, a.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	dieWithTest(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		a.mu.Unlock()
		return err
	}
	done := make(chan struct{})
	a.cmd, a.done, a.killed, a.served = cmd, done, false, false
	a.starts++
	a.mu.Unlock()
	go func() {
		err := cmd.Wait()
		logf.Close()
		a.mu.Lock()
		if !a.killed && a.cmd == cmd && a.served {
			a.crashes = append(a.crashes, fmt.Sprint(err))
		}
		a.mu.Unlock()
		close(done)
	}()
	if err := a.awaitHealthy(ctx, done); err != nil {
		return err
	}
	a.mu.Lock()
	if a.cmd == cmd {
		a.served = true
	}
	a.mu.Unlock()
	return nil
}

// awaitHealthy polls the agent's /health until it answers 200, its process
// exits or ctx ends.
func (a *agent) awaitHealthy(ctx context.Context, done <-chan struct{}) error {
	c := &http.Client{Timeout: time.Second}
	for {
		resp, err := c.Get(a.direct() + "/health")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-done:
			return fmt.Errorf("%s exited before it served", a.name)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// running reports whether the agent's process runs.
func (a *agent) running() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done == nil {
		return false
	}
	select {
	case <-a.done:
		return false
	default:
		return true
	}
}

// up reports whether the agent's process runs and has served: it is
// neither down nor starting.
func (a *agent) up() bool {
	if !a.running() {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.served
}

// signal sends sig to the agent's process and waits until it exits.
func (a *agent) signal(sig syscall.Signal, wait time.Duration) {
	a.mu.Lock()
	cmd, done := a.cmd, a.done
	a.killed = true
	a.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(wait):
		_ = cmd.Process.Kill()
		<-done
	}
}

func (a *agent) kill() { a.signal(syscall.SIGKILL, 10*time.Second) }
func (a *agent) stop() { a.signal(syscall.SIGTERM, 15*time.Second) }

// lastLine returns the last line of the agent's log.
func (a *agent) lastLine() string {
	b, err := os.ReadFile(a.logPath)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// pid returns the process id of the agent, 0 when it is not running.
func (a *agent) pid() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cmd == nil || a.cmd.Process == nil {
		return 0
	}
	return a.cmd.Process.Pid
}

// usage is an agent's use of resources at one moment.
type usage struct {
	goroutines, fds int
	rss             float64 // bytes
}

// sample reads the agent's goroutines and resident size from its
// /metrics, and its open files from /proc/<pid>/fd.
func (a *agent) sample() (usage, error) {
	var u usage
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(a.direct() + "/metrics")
	if err != nil {
		return u, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "go_goroutines "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			u.goroutines = int(f)
		}
		if v, ok := strings.CutPrefix(line, "process_resident_memory_bytes "); ok {
			u.rss, _ = strconv.ParseFloat(v, 64)
		}
	}
	if pid := a.pid(); pid != 0 {
		if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
			u.fds = len(fds)
		}
	}
	return u, sc.Err()
}

// getJSON decodes the JSON answer of a GET into v.
func getJSON(url string, v any) error {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func TestMain(m *testing.M) {
	// toxiproxy's toxics log through zerolog's global logger.
	zerolog.SetGlobalLevel(zerolog.Disabled)
	os.Exit(m.Run())
}

// gauge reads one gauge of the agent's /metrics (a line "name value");
// ok is false when the agent does not answer or has no such gauge.
func (a *agent) gauge(name string) (float64, bool) {
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Get(a.direct() + "/metrics")
	if err != nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}
