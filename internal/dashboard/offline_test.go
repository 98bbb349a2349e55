package dashboard_test

import (
	"strings"
	"testing"

	"github.com/agentleague/league/internal/dashboard"
)

// The offline page carries its scripts, styles and data inline, loads
// nothing, and a value of the data cannot end its script element.
func TestWriteOfflineIsOneFile(t *testing.T) {
	var b strings.Builder
	data := map[string]any{"league": map[string]any{"league_id": "L", "players": []any{
		map[string]any{"player_id": "P01", "display_name": "</script><script>alert(1)</script>"}}}}
	if err := dashboard.WriteOffline(&b, "League <L>", data); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<title>League &lt;L&gt;</title>", `id="` + dashboard.OfflineDataID + `"`, "var uPlot=", `id="match-view"`,
		`\u003c/script\u003e\u003cscript\u003ealert(1)`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{`src="`, `<link rel="stylesheet"`, "</script><script>alert"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if n := strings.Count(page, "<script"); n != 3 {
		t.Errorf("%d script elements, want 3 (the data, uPlot, view.js)", n)
	}
}
