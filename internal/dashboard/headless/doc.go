// Package headless drives a headless Chromium over the DevTools protocol so
// that tests can load the dashboard in a real browser, let its script run,
// and read the page. The browser talks over a pair of pipes
// (--remote-debugging-pipe), so no port is opened and no WebSocket library
// is needed.
//
// Quick start, in a test:
//
//	b := headless.ForTest(t) // skips the test when Chromium is not installed
//	page, err := b.Open(ctx, srv.URL+"/")
//	if err != nil {
//		t.Fatal(err)
//	}
//	err = page.WaitFor(ctx, `document.querySelectorAll("#players tbody tr").length == 4`)
package headless
