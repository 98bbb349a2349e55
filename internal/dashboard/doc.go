// Package dashboard is the league manager's live web page: an HTML page, a
// script and a style sheet embedded in the binary, with nothing fetched from
// anywhere else. The page polls the manager's JSON state every second,
// relative to where it is served (api/state next to the page), and shows
// the registered agents, the schedule with each match's status, the live
// standings and, at the end, the champion. Beside it, view.html shows what
// happened (a league's course, a player, a match) from api/view/…, with
// charts drawn by the vendored uPlot; [WriteOffline] writes it as one
// self-contained file.
//
// Quick start — mount it beside a state endpoint:
//
//	mux := http.NewServeMux()
//	mux.HandleFunc("GET /api/state", serveState) // the manager's JSON state
//	mux.Handle("GET /", dashboard.Handler())
//	http.ListenAndServe("127.0.0.1:8000", mux)
//
// The manager does exactly this; users of the manager package get the page
// at the manager's root URL without doing anything.
//
// Used by the manager; it stays at the root so that internal/browsertest, a
// module of its own, can load the page without a manager.
package dashboard
