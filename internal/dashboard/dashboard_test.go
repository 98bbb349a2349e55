package dashboard_test

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentleague/league/internal/dashboard"
)

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func TestHandlerServesThePageAndItsAssets(t *testing.T) {
	srv := httptest.NewServer(dashboard.Handler())
	t.Cleanup(srv.Close)

	tests := []struct {
		path, contentType, contains string
	}{
		{"/", "text/html; charset=utf-8", `<table id="standings">`},
		{"/app.js", "text/javascript; charset=utf-8", `"api/state"`},
		{"/style.css", "text/css; charset=utf-8", "#champion"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := get(t, srv.URL+tt.path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := resp.Header.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tt.contentType)
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
				t.Errorf("Content-Security-Policy = %q, want the page kept to its own origin", csp)
			}
			if !strings.Contains(body, tt.contains) {
				t.Errorf("body does not contain %q", tt.contains)
			}
		})
	}
}

func TestHandlerRefusesOtherMethodsAndUnknownFiles(t *testing.T) {
	srv := httptest.NewServer(dashboard.Handler())
	t.Cleanup(srv.Close)

	resp, err := http.Post(srv.URL+"/", "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST / = %d (Allow %q), want 405 with Allow: GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}
	if resp, _ := get(t, srv.URL+"/nothing-here.js"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /nothing-here.js = %d, want 404", resp.StatusCode)
	}
}

// The page must work offline and wherever it is mounted: it loads nothing
// from another origin and uses relative URLs only.
func TestPageIsSelfContainedWithRelativeURLs(t *testing.T) {
	absolute := regexp.MustCompile(`(?i)(src|href)\s*=\s*["'](/|[a-z]+:)|url\(|@import|fetch\(\s*["']/|https?://`)
	err := fs.WalkDir(os.DirFS("static"), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Name() == "LICENSE" || d.Name() == "NOTICE" {
			return nil // a vendored library's terms, which no page loads
		}
		data, err := os.ReadFile("static/" + path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(path, "vendor/") && i == 0 && strings.HasPrefix(line, "/*!") && strings.HasSuffix(line, "*/") {
				continue // a vendored file's banner: its project's address
			}
			if m := absolute.FindString(line); m != "" && !strings.Contains(line, `href="data:,"`) {
				t.Errorf("static/%s:%d refers to %q: %s", path, i+1, m, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func ExampleHandler() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/state", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"REGISTERING","players":[],"referees":[],"matches":[],"standings":[]}`)
	})
	mux.Handle("GET /", dashboard.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	// Output: 200 text/html; charset=utf-8
}
