package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The viewport of every test, in CSS pixels: the first screen of a
// laptop.
const (
	viewportWidth  = 1280
	viewportHeight = 1000
)

// expectTimeout bounds each wait for the page to show something.
const expectTimeout = 30 * time.Second

// findChromium returns the path of the browser: $CHROMIUM when set, else
// the first of the usual names found on PATH.
func findChromium() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return exec.LookPath(p)
	}
	candidates := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found on PATH (tried " + strings.Join(candidates, ", ") + "; set CHROMIUM to choose one)")
}

// page is one tab of a headless Chromium of its own, started for one test
// and stopped, with its profile removed, when the test ends. It keeps the
// problems the page reports: script exceptions, console errors and the
// browser's log errors (failed requests, content security policy
// violations).
type page struct {
	t   *testing.T
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

// needBrowser returns the browser's path. Without a browser it skips t,
// saying how to install one — except under CI (the CI environment variable
// set), where the browser tests must run.
func needBrowser(t *testing.T) string {
	t.Helper()
	path, err := findChromium()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the browser test must run in CI: %v (.ci/install-browser installs it)", err)
		}
		t.Skipf("skipping the browser test: %v. Install it with `apt-get install -y chromium` (CI does, through .ci/install-browser).", err)
	}
	return path
}

// openPage starts the browser (see [needBrowser]) and loads url.
func openPage(t *testing.T, url string) *page {
	t.Helper()
	return openPageWith(t, url)
}

// openPageWith is openPage that runs the actions before loading url.
func openPageWith(t *testing.T, url string, before ...chromedp.Action[chromedp.Void]) *page {
	t.Helper()
	path := needBrowser(t)
	// The browser keeps files of its own under TMPDIR (its singleton
	// socket): in a folder the test removes once the browser has stopped,
	// with a short path (a socket's path has at most 107 bytes).
	tmp, err := os.MkdirTemp("", "chromium-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(context.Background(), chromedp.WithAllocatorOptions(
		chromedp.ExecPath(path),
		chromedp.Env("TMPDIR="+tmp),
		chromedp.NoSandbox, // the tests may run as root, in a container
		chromedp.Flag("disable-quic", true),
	))
	read := make(chan struct{})
	t.Cleanup(func() {
		cancel() // stops the browser and waits until it has
		<-read
		if err := os.RemoveAll(tmp); err != nil {
			t.Errorf("remove the browser's temporary files: %v", err)
		}
	})
	p := &page{t: t, ctx: ctx}
	messages := chromedp.Console(ctx) // starts the browser
	go func() {
		defer close(read)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				p.mu.Lock()
				p.problems = append(p.problems, fmt.Sprintf("%s %s", m, m.URL))
				p.mu.Unlock()
			}
		}
	}()
	steps := append([]chromedp.Action[chromedp.Void]{chromedp.EmulateViewport(viewportWidth, viewportHeight)}, before...)
	if err := chromedp.Do(ctx, append(steps, chromedp.Navigate(url))...); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	return p
}

// expect waits until the JavaScript expression is truthy, failing the test
// with the page's text when it does not become so in time. An exception
// (an element not drawn yet) only means "not yet".
func (p *page) expect(expr string) {
	p.t.Helper()
	_, err := chromedp.Run(p.ctx, chromedp.Poll[bool]("(() => { try { return !!("+expr+"); } catch { return false; } })()",
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(expectTimeout)))
	if err != nil {
		p.t.Fatalf("waiting for %s: %v; the page showed:\n%s", expr, err, p.text())
	}
}

// eval evaluates the JavaScript expression and decodes its value into T.
func eval[T any](p *page, expr string) T {
	p.t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// text is the page's visible text, for the messages of failing tests.
func (p *page) text() string {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return s
}

// checkProblems fails the test if the page reported any problem.
func (p *page) checkProblems() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.problems) > 0 {
		p.t.Errorf("the page reported problems:\n%s", strings.Join(p.problems, "\n"))
	}
}
