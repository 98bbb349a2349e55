package manager

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/internal/dashboard"
	"github.com/agentleague/league/leaguesdk"
)

// ViewerConfig configures a [Viewer].
type ViewerConfig struct {
	// DataRoot is the data root whose leagues the viewer shows: the
	// manager's files of each league (data/leagues/<id>/), and the
	// referees' transcripts (data/matches/<id>/) when they are there too.
	DataRoot string
}

// Viewer shows the leagues of a data root read-only, with the pages of
// the manager's dashboard that tell what happened: a league's course and
// its standings after any round, a player's matches and points, a match's
// choices, number, rule and messages. It reads only the files: no manager
// need run, and the league may have ended long ago. A league still being
// played by a manager of the same data root is read again when its files
// change.
type Viewer struct {
	root string

	mu      sync.Mutex
	leagues map[string]*loadedLeague
}

// loadedLeague is a league read from its files, with what it was read from.
type loadedLeague struct {
	stamp string
	view  *leagueView
}

// NewViewer returns a viewer of the leagues under cfg.DataRoot. A
// missing DataRoot is a *[leaguesdk.ConfigError]; a data root with no
// manager's data an error wrapping the [fs.ErrNotExist] of its
// data/leagues directory.
func NewViewer(cfg ViewerConfig) (*Viewer, error) {
	if cfg.DataRoot == "" {
		return nil, &leaguesdk.ConfigError{Agent: "viewer", Problems: []string{"ViewerConfig.DataRoot is empty: the data root to show"}}
	}
	if _, err := os.Stat(filepath.Join(cfg.DataRoot, "data", "leagues")); err != nil {
		return nil, fmt.Errorf("manager: viewer: %s holds no league: %w", cfg.DataRoot, err)
	}
	return &Viewer{root: cfg.DataRoot, leagues: map[string]*loadedLeague{}}, nil
}

// Handler serves the viewer: GET / lists the leagues of the data root,
// GET /league/<id>/ shows one (its pages, and their JSON under
// /league/<id>/api/view/). It answers GET and HEAD only and changes
// nothing.
func (v *Viewer) Handler() http.Handler {
	dash := dashboard.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == "/" {
			v.serveIndex(w)
			return
		}
		rest, ok := strings.CutPrefix(r.URL.Path, "/league/")
		if !ok {
			http.NotFound(w, r)
			return
		}
		id, sub, ok := strings.Cut(rest, "/")
		if !ok {
			http.Redirect(w, r, "/league/"+id+"/", http.StatusFound)
			return
		}
		if api, ok := strings.CutPrefix(sub, "api/view/"); ok {
			serveView(w, r, v.source(id), api)
			return
		}
		if sub == "" {
			sub = "view.html"
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + sub
		dash.ServeHTTP(w, r2)
	})
}

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Leagues</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/league/-/style.css"></head>
<body><header><h1>Leagues of this data root</h1></header><main><section class="panel wide">
{{if .}}<table id="leagues"><thead><tr><th>League</th><th>Status</th><th>Last saved</th></tr></thead><tbody>
{{range .}}<tr data-league-id="{{.ID}}"><td><a href="/league/{{.ID}}/">{{.ID}}</a></td><td>{{.Status}}</td><td>{{.Updated.UTC.Format "2006-01-02 15:04:05"}} UTC</td></tr>
{{end}}</tbody></table>{{else}}<p class="empty">No league here yet.</p>{{end}}
</section></main></body></html>
`))

func (v *Viewer) serveIndex(w http.ResponseWriter) {
	ls, err := Leagues(v.root)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_ = indexPage.Execute(w, ls)
}

// source returns the viewSource of league id.
func (v *Viewer) source(id string) viewSource {
	return func(f func(*leagueView)) error {
		lv, err := v.league(id)
		if err != nil {
			return err
		}
		f(lv)
		return nil
	}
}

// league returns league id, read again when its files changed since.
func (v *Viewer) league(id string) (*leagueView, error) {
	if id == "" || id != filepath.Base(id) || strings.HasPrefix(id, ".") {
		return nil, errNoLeague
	}
	s := store{root: v.root, league: id}
	stamp := fileStamp(s.statePath()) + "|" + fileStamp(s.resultsJournalPath())
	v.mu.Lock()
	defer v.mu.Unlock()
	if l := v.leagues[id]; l != nil && l.stamp == stamp {
		return l.view, nil
	}
	lv, err := loadView(v.root, id)
	if err != nil {
		return nil, err
	}
	if len(v.leagues) >= maxLoadedLeagues { // a big league holds tens of megabytes
		for other := range v.leagues {
			delete(v.leagues, other)
			break
		}
	}
	v.leagues[id] = &loadedLeague{stamp: stamp, view: lv}
	return lv, nil
}

// fileStamp says which version of a file is on disk.
func fileStamp(path string) string {
	info, err := os.Stat(path)
	if err != nil {
		return "-"
	}
	return strconv.FormatInt(info.Size(), 10) + "@" + strconv.FormatInt(info.ModTime().UnixNano(), 10)
}

// loadView reads league id from the manager's files under dataRoot: its
// state (players and schedule; the agents' tokens it also holds are not
// kept), its configuration (the tiebreakers) and its results.
func loadView(dataRoot, id string) (*leagueView, error) {
	s := store{root: dataRoot, league: id}
	st, err := s.loadState()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errNoLeague
	}
	v := &leagueView{id: id, gameType: st.GameType, status: st.Status, champion: st.Champion, dataRoot: dataRoot}
	var cfg leagueConfigFile
	if err := atomicfile.ReadJSON(s.leagueConfigPath(), &cfg); err == nil {
		v.tiebreakers = cfg.Scoring.Tiebreakers
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, p := range st.Players {
		v.players = append(v.players, Entrant{PlayerID: p.ID, DisplayName: p.DisplayName})
	}
	byID := map[string]*match{}
	v.rounds = make([][]*match, len(st.Rounds))
	for i, round := range st.Rounds {
		slab := make([]match, len(round))
		v.rounds[i] = make([]*match, len(round))
		for j, sm := range round {
			slab[j].scheduledMatch, slab[j].status = sm, leaguesdk.MatchPending
			v.rounds[i][j] = &slab[j]
			byID[sm.MatchID] = &slab[j]
		}
	}
	records, err := LoadResults(dataRoot, id)
	if err != nil {
		return nil, err
	}
	for i := range records {
		rec := &records[i]
		if mt := byID[rec.MatchID]; mt != nil && mt.PlayerA == rec.PlayerA && mt.PlayerB == rec.PlayerB && mt.record == nil {
			mt.record, mt.status = compactRecord(rec), leaguesdk.MatchFinished
			v.results++
		}
	}
	v.tables = &viewTables{}
	return v, nil
}

// maxLoadedLeagues bounds the leagues a Viewer keeps loaded; another
// one read drops one of them, which is read again when next asked for.
const maxLoadedLeagues = 4

// offlineBodies is the largest league, in matches, whose offline file
// keeps each message's body; a larger league's keeps each message's
// time, peer, type and latency only.
const offlineBodies = 500

// offlineStandingsRows bounds the standings rows an offline file holds:
// a league whose standings after every round would hold more keeps the
// standings after every few rounds instead (and after the last).
const offlineStandingsRows = 200_000

// WriteHTML writes league id as one self-contained HTML file: the
// viewer's pages with every answer they read (the league, its standings
// after each round, its course, each round, player and match) inside it,
// so that it opens from disk with the network off. The file grows with
// the league's matches: some tens of kilobytes per player at 20 players.
func (v *Viewer) WriteHTML(ctx context.Context, w io.Writer, id string) error {
	lv, err := v.league(id)
	if err != nil {
		return fmt.Errorf("manager: league %q under %s: %w", id, v.root, err)
	}
	data := map[string]any{}
	info := lv.info()
	data["league"] = info
	played := info.RoundsPlayed
	step := 1
	if n := len(lv.players) * (played + 1); n > offlineStandingsRows {
		step = (n + offlineStandingsRows - 1) / offlineStandingsRows
	}
	for k := 0; k <= played; k++ {
		if k%step == 0 || k == played {
			data["standings/"+strconv.Itoa(k)] = viewTable{Round: k, RoundsPlayed: played, Standings: lv.standingsAfter(k)}
		}
	}
	ids := make([]string, len(lv.players))
	for i, p := range lv.players {
		ids[i] = p.PlayerID
	}
	data["course"] = lv.course(len(ids), nil)
	for k := 1; k <= len(lv.rounds); k++ {
		r, _ := lv.round(k)
		data["round/"+strconv.Itoa(k)] = r
	}
	for _, pid := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, _ := lv.player(pid)
		lv.playerJob(pid)(&p)
		p.withLatency(lv.dataRoot, lv.id)
		data["player/"+pid] = p
	}
	bodies := info.Matches <= offlineBodies
	for mt := range lv.allMatches() {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := lv.matchPage(mt)
		p.withTranscript(transcriptOf(lv.dataRoot, lv.id, mt.MatchID))
		if p.Transcript != nil && !bodies {
			for i := range p.Transcript.Messages {
				p.Transcript.Messages[i].Message = nil
			}
		}
		data["match/"+mt.MatchID] = p
	}
	data["written_at"] = time.Now().UTC().Format(time.RFC3339)
	return dashboard.WriteOffline(w, "League "+id, data)
}
