package dashboard

import (
	"embed"
	"encoding/json"
	"html"
	"io"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
)

//go:embed static
var files embed.FS

// contentSecurityPolicy keeps the page to its own origin: no script, style,
// font or request may go anywhere but the server that served it.
const contentSecurityPolicy = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the dashboard's files: index.html at "/", app.js and
// style.css beside it. It answers GET and HEAD only, with a strict content
// security policy and no caching, so that a reload after an upgrade of the
// manager always gets the matching page.
func Handler() http.Handler {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	fileServer := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		fileServer.ServeHTTP(w, r)
	})
}

// OfflineDataID is the id of the script element of an offline page that
// holds its league's data (see [WriteOffline]).
const OfflineDataID = "league-data"

// WriteOffline writes the viewer's page (view.html) as one self-contained
// HTML file: its style sheets and scripts inline, and data, the answers
// the page would read from api/view/… keyed by their paths, as a JSON
// script element the page reads instead of the network. The file opens
// from disk with no server and no network.
func WriteOffline(w io.Writer, title string, data any) error {
	read := func(name string) string {
		b, err := files.ReadFile("static/" + name)
		if err != nil {
			panic(err) // the embedded tree is fixed at build time
		}
		return string(b)
	}
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n")
	b.WriteString("<title>" + html.EscapeString(title) + "</title>\n")
	for _, css := range []string{"vendor/uplot/uPlot.min.css", "style.css", "view.css"} {
		b.WriteString("<style>\n" + read(css) + "\n</style>\n")
	}
	b.WriteString("</head>\n")
	page := read("view.html")
	body := page[strings.Index(page, "<body"):strings.LastIndex(page, "</body>")]
	body = scriptTag.ReplaceAllString(body, "")
	b.WriteString(body)
	// encoding/json escapes <, > and & in strings: the data cannot end
	// its script element.
	data1, err := json.Marshal(data)
	if err != nil {
		return err
	}
	b.WriteString("<script type=\"application/json\" id=\"" + OfflineDataID + "\">")
	b.Write(data1)
	b.WriteString("</script>\n")
	for _, js := range []string{"vendor/uplot/uPlot.iife.min.js", "view.js"} {
		b.WriteString("<script>\n" + strings.ReplaceAll(read(js), "</script", "<\\/script") + "\n</script>\n")
	}
	b.WriteString("</body>\n</html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// scriptTag matches view.html's script elements that load files.
var scriptTag = regexp.MustCompile(`<script src="[^"]*"[^>]*></script>\n?`)
