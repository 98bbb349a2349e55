package headless

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Find returns the path of the Chromium executable: $CHROMIUM when set,
// else the first of chromium, chromium-browser, google-chrome found on PATH.
func Find() (string, error) {
	candidates := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	if p := os.Getenv("CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found on PATH (tried " + strings.Join(candidates, ", ") + "; set CHROMIUM to choose one)")
}

// Browser is a running headless Chromium.
type Browser struct {
	profile string // the temporary user data directory
	cmd     *exec.Cmd
	toB     *os.File // we write commands here (the browser's fd 3)
	fromB   *os.File // we read replies and events here (the browser's fd 4)
	stderr  *tailBuffer
	exited  chan struct{}
	writeMu sync.Mutex

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	events  map[string]*[]Event // by session id
	readErr error
}

// Event is a DevTools event the browser sent for a page.
type Event struct {
	Method string
	Params json.RawMessage
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type wireMessage struct {
	ID        int64           `json:"id"`
	SessionID string          `json:"sessionId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	reply
}

// Start launches Chromium at path (see [Find]) with a fresh profile in a
// temporary directory, removed by Close. The browser runs until Close.
func Start(path string) (*Browser, error) {
	userDataDir, err := os.MkdirTemp("", "league-chromium-")
	if err != nil {
		return nil, err
	}
	b, err := start(path, userDataDir)
	if err != nil {
		os.RemoveAll(userDataDir)
	}
	return b, err
}

func start(path, userDataDir string) (*Browser, error) {
	toBR, toBW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromBR, fromBW, err := os.Pipe()
	if err != nil {
		toBR.Close()
		toBW.Close()
		return nil, err
	}
	cmd := exec.Command(path,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--disable-dev-shm-usage", "--mute-audio", "--no-default-browser-check",
		"--user-data-dir="+userDataDir, "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toBR, fromBW} // fd 3 and fd 4 in the browser
	stderr := &tailBuffer{max: 16 << 10}
	cmd.Stdout = io.Discard
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{toBR, toBW, fromBR, fromBW} {
			f.Close()
		}
		return nil, err
	}
	// The browser holds its ends now.
	toBR.Close()
	fromBW.Close()
	b := &Browser{
		profile: userDataDir, cmd: cmd, toB: toBW, fromB: fromBR, stderr: stderr, exited: make(chan struct{}),
		pending: map[int64]chan reply{}, events: map[string]*[]Event{},
	}
	go func() {
		_ = cmd.Wait()
		close(b.exited)
	}()
	go b.readLoop()
	return b, nil
}

// readLoop dispatches the browser's NUL-separated JSON messages: replies to
// their waiting callers, events to their page's list.
func (b *Browser) readLoop() {
	r := bufio.NewReader(b.fromB)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("browser pipe closed: %w; browser said: %s", err, b.stderr.String())
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m wireMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.pending[m.ID]; ok {
				ch <- m.reply
				delete(b.pending, m.ID)
			}
		} else if evs, ok := b.events[m.SessionID]; ok && m.Method != "" {
			*evs = append(*evs, Event{Method: m.Method, Params: m.Params})
		}
		b.mu.Unlock()
	}
}

// call sends one DevTools command and decodes its result into out.
func (b *Browser) call(ctx context.Context, sessionID, method string, params, out any) error {
	ch := make(chan reply, 1)
	b.mu.Lock()
	if b.readErr != nil {
		b.mu.Unlock()
		return b.readErr
	}
	b.nextID++
	id := b.nextID
	b.pending[id] = ch
	b.mu.Unlock()

	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if sessionID != "" {
		msg["sessionId"] = sessionID
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	b.writeMu.Lock()
	_, err = b.toB.Write(append(data, 0))
	b.writeMu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case rep, ok := <-ch:
		if !ok {
			b.mu.Lock()
			defer b.mu.Unlock()
			return fmt.Errorf("%s: %w", method, b.readErr)
		}
		if rep.Error != nil {
			return fmt.Errorf("%s: devtools error %d: %s", method, rep.Error.Code, rep.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(rep.Result, out)
		}
		return nil
	}
}

// Page is one browser tab.
type Page struct {
	b         *Browser
	sessionID string
}

// Open opens a new tab on url and waits until its document has loaded
// (scripts with defer have run by then).
func (b *Browser) Open(ctx context.Context, url string) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.events[att.SessionID] = &[]Event{}
	b.mu.Unlock()
	p := &Page{b: b, sessionID: att.SessionID}
	for _, domain := range []string{"Runtime.enable", "Log.enable", "Page.enable"} {
		if err := b.call(ctx, p.sessionID, domain, nil, nil); err != nil {
			return nil, err
		}
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call(ctx, p.sessionID, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
	}
	if err := p.WaitFor(ctx, `location.href !== "about:blank" && document.readyState === "complete"`); err != nil {
		return nil, fmt.Errorf("load %s: %w", url, err)
	}
	return p, nil
}

// Eval evaluates a JavaScript expression in the page, awaiting it when it is
// a promise, and decodes its JSON value into out (which may be nil). A
// thrown exception is returned as an error.
func (p *Page) Eval(ctx context.Context, expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.b.call(ctx, p.sessionID, "Runtime.evaluate",
		map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if err != nil {
		return err
	}
	if ex := res.ExceptionDetails; ex != nil {
		return fmt.Errorf("javascript: %s %s", ex.Text, ex.Exception.Description)
	}
	if out != nil && len(res.Result.Value) > 0 {
		return json.Unmarshal(res.Result.Value, out)
	}
	return nil
}

// WaitFor evaluates expr every 50 ms until it is truthy or ctx ends. Errors
// in between (a script exception, a page still loading) only mean "not
// yet"; a browser that has died ends the wait at once. On timeout the error
// says what the page's body text was, to make a failing test readable.
func (p *Page) WaitFor(ctx context.Context, expr string) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var ok bool
		err := p.Eval(ctx, "!!("+expr+")", &ok)
		if err == nil && ok {
			return nil
		}
		if dead := p.b.died(); dead != nil {
			return dead
		}
		select {
		case <-ctx.Done():
			var text string
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = p.Eval(sctx, "document.body ? document.body.innerText : ''", &text)
			cancel()
			return fmt.Errorf("waiting for %s: %w (last error: %v); the page showed:\n%s", expr, ctx.Err(), err, text)
		case <-tick.C:
		}
	}
}

// Expect is [Page.WaitFor] for tests: it fails t at once when expr does not
// become truthy before ctx ends.
func (p *Page) Expect(ctx context.Context, t testing.TB, expr string) {
	t.Helper()
	if err := p.WaitFor(ctx, expr); err != nil {
		t.Fatal(err)
	}
}

// died returns why the browser can no longer be driven, or nil.
func (b *Browser) died() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.readErr
}

// Problems lists the script exceptions, console errors and browser log
// errors (failed requests, content security policy violations) the page
// has produced so far.
func (p *Page) Problems() []string {
	p.b.mu.Lock()
	evs := append([]Event(nil), *p.b.events[p.sessionID]...)
	p.b.mu.Unlock()
	var out []string
	for _, ev := range evs {
		switch ev.Method {
		case "Runtime.exceptionThrown":
			var e struct {
				ExceptionDetails struct {
					Text      string `json:"text"`
					Exception struct {
						Description string `json:"description"`
					} `json:"exception"`
				} `json:"exceptionDetails"`
			}
			_ = json.Unmarshal(ev.Params, &e)
			out = append(out, "exception: "+e.ExceptionDetails.Text+" "+e.ExceptionDetails.Exception.Description)
		case "Runtime.consoleAPICalled":
			var e struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			_ = json.Unmarshal(ev.Params, &e)
			if e.Type == "error" || e.Type == "assert" {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, fmt.Sprint(a.Value, a.Description))
				}
				out = append(out, "console."+e.Type+": "+strings.Join(parts, " "))
			}
		case "Log.entryAdded":
			var e struct {
				Entry struct {
					Level  string `json:"level"`
					Source string `json:"source"`
					Text   string `json:"text"`
					URL    string `json:"url"`
				} `json:"entry"`
			}
			_ = json.Unmarshal(ev.Params, &e)
			if e.Entry.Level == "error" {
				out = append(out, "log ("+e.Entry.Source+"): "+e.Entry.Text+" "+e.Entry.URL)
			}
		}
	}
	return out
}

// Close shuts the browser down, killing it if it has not exited within
// five seconds, and removes its profile directory.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_ = b.call(ctx, "", "Browser.close", nil, nil)
	cancel()
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.exited
	}
	b.toB.Close()
	b.fromB.Close()
	// Helper processes may still be writing to the profile for a moment.
	var err error
	for range 20 {
		if err = os.RemoveAll(b.profile); err == nil {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

// ForTest starts a browser for t and closes it when t ends. When no
// Chromium is installed it skips t, saying how to install one — except
// under CI (the CI environment variable set), where the browser tests must
// run and a missing browser fails t.
func ForTest(t testing.TB) *Browser {
	t.Helper()
	path, err := Find()
	if err != nil && os.Getenv("CI") != "" {
		t.Fatalf("the browser test must run in CI: %v (.ci/install-browser installs it)", err)
	}
	if err != nil {
		t.Skipf("skipping the browser test: %v. Install it with `apt-get install -y chromium` (CI does, through .ci/install-browser).", err)
	}
	b, err := Start(path)
	if err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// tailBuffer keeps the last max bytes written to it: the browser's stderr,
// quoted when the browser dies.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
