package manager

import (
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"strconv"

	wirejson "github.com/agentleague/league/internal/json"
)

// A big league's state is as large as the league: at 1000 players its
// standings, players and a round's matches take some 300 kB, which a
// page reading it every second cannot afford. GET /api/state?limit=N
// sends a page of each list instead — N rows from standings_offset,
// players_offset and matches_offset (0 when absent; matches_limit rows of
// the matches when given) — with the lists' lengths in page, so that the dashboard shows the rows in view and
// pages through the rest. The answer carries an ETag: a page asking again
// with If-None-Match gets 304 Not Modified, no body, until the state
// changes.

// MaxStatePage is the largest limit GET /api/state accepts.
const MaxStatePage = 500

// StatePage is the part of the lists a paged [Snapshot] carries
// (GET /api/state?limit=N).
type StatePage struct {
	// Limit is the largest number of rows of the standings and of the
	// players; MatchesLimit of the matches (Limit unless asked otherwise:
	// matches_limit).
	Limit        int `json:"limit"`
	MatchesLimit int `json:"matches_limit"`
	// StandingsOffset, PlayersOffset and MatchesOffset are the index of
	// the first row sent of each list.
	StandingsOffset int `json:"standings_offset"`
	PlayersOffset   int `json:"players_offset"`
	MatchesOffset   int `json:"matches_offset"`
	// Standings, Players and Matches are the lists' whole lengths.
	Standings int `json:"standings"`
	Players   int `json:"players"`
	Matches   int `json:"matches"`
}

// statePage reads the paging parameters of GET /api/state: nil when
// limit is absent.
func statePage(q url.Values) (*StatePage, error) {
	if q.Get("limit") == "" {
		return nil, nil
	}
	num := func(name string, lo, hi int) (int, error) {
		s := q.Get(name)
		if s == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("%s must be a number from %d to %d, not %q", name, lo, hi, s)
		}
		return n, nil
	}
	var p StatePage
	var err error
	if p.Limit, err = num("limit", 1, MaxStatePage); err != nil {
		return nil, err
	}
	if p.MatchesLimit, err = num("matches_limit", 1, MaxStatePage); err != nil {
		return nil, err
	}
	if p.MatchesLimit == 0 {
		p.MatchesLimit = p.Limit
	}
	const most = 1 << 30
	if p.StandingsOffset, err = num("standings_offset", 0, most); err != nil {
		return nil, err
	}
	if p.PlayersOffset, err = num("players_offset", 0, most); err != nil {
		return nil, err
	}
	if p.MatchesOffset, err = num("matches_offset", 0, most); err != nil {
		return nil, err
	}
	return &p, nil
}

// page keeps of s's standings, players and matches the rows p asks for,
// and records the lists' lengths in p and s.Page.
func (s *Snapshot) page(p *StatePage) {
	p.Standings, p.Players, p.Matches = len(s.Standings), len(s.Players), len(s.Matches)
	s.Standings = window(s.Standings, &p.StandingsOffset, p.Limit)
	s.Players = window(s.Players, &p.PlayersOffset, p.Limit)
	s.Matches = window(s.Matches, &p.MatchesOffset, p.MatchesLimit)
	s.Page = p
}

// window returns at most limit items of list from *offset, which is
// brought back to the last page when it is past the end.
func window[T any](list []T, offset *int, limit int) []T {
	if *offset >= len(list) {
		*offset = max(0, (len(list)-1)/limit*limit)
	}
	return list[*offset:min(*offset+limit, len(list))]
}

// writeState writes the state as JSON with its ETag, or 304 Not Modified
// when the request's If-None-Match names it.
func writeState(w http.ResponseWriter, r *http.Request, s Snapshot) {
	b, err := wirejson.Marshal(s)
	if err != nil {
		http.Error(w, "state does not encode", http.StatusInternalServerError)
		return
	}
	h := fnv.New64a()
	h.Write(b)
	tag := `"` + hex.EncodeToString(h.Sum(nil)) + `"`
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", tag)
	if r.Header.Get("If-None-Match") == tag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
