package manager

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentleague/league/internal/atomicfile"
	"github.com/agentleague/league/internal/journal"
	wirejson "github.com/agentleague/league/internal/json"
	"github.com/agentleague/league/internal/redact"
	"github.com/agentleague/league/leaguesdk"
)

// SchemaVersion is the schema_version of every file the manager writes.
const SchemaVersion = "1.0.0"

// LeagueStatus is the status of a league, as [Manager.Status], [Snapshot] and the
// league's files give it.
type LeagueStatus string

// League statuses.
const (
	StatusRegistering LeagueStatus = "REGISTERING"
	StatusRunning     LeagueStatus = "RUNNING"
	StatusCompleted   LeagueStatus = "COMPLETED"
)

// WriteObserver is implemented by a [Config.Observer] that also wants to be
// told about the manager's durable writes. It is [leaguesdk.WriteObserver],
// so that an observer (package metrics) need not import the manager.
type WriteObserver = leaguesdk.WriteObserver

// WriteEvent is one durable write: a group commit of a journal or an
// atomic file replacement ([leaguesdk.WriteEvent]).
type WriteEvent = leaguesdk.WriteEvent

// store knows where the league's files live under the data root. Every
// write goes through internal/atomicfile.
type store struct {
	root, league string
	// observe, when set, is told about each durable write.
	observe func(WriteEvent)
}

// timed runs a durable write of records, which returns the bytes it
// wrote, and tells observe how long it took.
func (s store) timed(file string, records int, write func() (int, error)) error {
	start := time.Now()
	n, err := write()
	if err == nil && s.observe != nil {
		s.observe(WriteEvent{File: file, Records: records, Bytes: n, Took: time.Since(start)})
	}
	return err
}

func (s store) systemPath() string { return filepath.Join(s.root, "config", "system.json") }
func (s store) leagueConfigPath() string {
	return filepath.Join(s.root, "config", "leagues", s.league+".json")
}
func (s store) leagueDir() string     { return filepath.Join(s.root, "data", "leagues", s.league) }
func (s store) statePath() string     { return filepath.Join(s.leagueDir(), "state.json") }
func (s store) standingsPath() string { return filepath.Join(s.leagueDir(), "standings.json") }
func (s store) roundsPath() string    { return filepath.Join(s.leagueDir(), "rounds.json") }
func (s store) resultsDir() string    { return filepath.Join(s.leagueDir(), "results") }
func (s store) resultsJournalPath() string {
	return filepath.Join(s.leagueDir(), "results.jsonl")
}
func (s store) leagueLogPath() string {
	return filepath.Join(s.root, "logs", "league", s.league, "league.log.jsonl")
}

// agentRecord is a registered agent as state.json keeps it.
type agentRecord struct {
	ID                   string    `json:"id"`
	DisplayName          string    `json:"display_name"`
	Version              string    `json:"version,omitempty"`
	Endpoint             string    `json:"contact_endpoint"`
	GameTypes            []string  `json:"game_types,omitempty"`
	ProtocolVersion      string    `json:"protocol_version,omitempty"`
	MaxConcurrentMatches int       `json:"max_concurrent_matches,omitempty"`
	AuthToken            string    `json:"auth_token"`
	RegisteredAt         time.Time `json:"registered_at"`
}

// scheduledMatch is a match of the schedule as state.json keeps it.
type scheduledMatch struct {
	MatchID   string `json:"match_id"`
	RoundID   int    `json:"round_id"`
	PlayerA   string `json:"player_A_id"`
	PlayerB   string `json:"player_B_id"`
	RefereeID string `json:"referee_id,omitempty"`
}

// leagueState is the manager's recoverable state, data/leagues/<id>/state.json
// (mode 0600: it holds the agents' tokens). Results are kept apart, one
// file per match, so recording a result never rewrites this file.
type leagueState struct {
	stateHead
	Rounds [][]scheduledMatch `json:"rounds"`
	stateTail
}

// roundTimes records when a round started and completed.
type roundTimes struct {
	StartedAt   *time.Time `json:"started_at,omitempty"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
}

func (s store) loadState() (*leagueState, error) {
	var st leagueState
	if err := atomicfile.ReadJSON(s.statePath(), &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	if st.LeagueID != s.league {
		return nil, fmt.Errorf("manager: %s belongs to league %q, not %q", s.statePath(), st.LeagueID, s.league)
	}
	return &st, nil
}

// saveState writes state.json: st, whose Rounds are left out, with the n
// rounds of the schedule that round returns, one at a time. The schedule
// is n²/2 matches (40 MB of JSON at 1000 players), so the file is streamed
// a round at a time rather than copied and encoded whole in memory. The
// document is what json.Marshal writes of the whole state, compact, on one
// line.
func (s store) saveState(st *leagueState, n int, round func(i int) []scheduledMatch, now time.Time) error {
	st.SchemaVersion = SchemaVersion
	st.LastUpdated = leaguesdk.FormatTime(now)
	return s.timed("state", 1, func() (int, error) {
		cw := &countingWriter{}
		err := atomicfile.Stream(s.statePath(), 0o600, true, func(w io.Writer) error {
			cw.w = w
			return writeStateFile(cw, st, n, round)
		})
		return cw.n, err
	})
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += n
	return n, err
}

// stateHead and stateTail are the members of leagueState before and after
// its rounds, so that writeStateFile can write the rounds between them.
type stateHead struct {
	SchemaVersion string        `json:"schema_version"`
	LastUpdated   string        `json:"last_updated"`
	LeagueID      string        `json:"league_id"`
	GameType      string        `json:"game_type"`
	Status        LeagueStatus  `json:"status"`
	OpenedAt      time.Time     `json:"registration_opened_at"`
	StartedAt     *time.Time    `json:"started_at,omitempty"`
	CompletedAt   *time.Time    `json:"completed_at,omitempty"`
	NextPlayer    int           `json:"next_player_number"`
	NextReferee   int           `json:"next_referee_number"`
	Referees      []agentRecord `json:"referees"`
	Players       []agentRecord `json:"players"`
}

type stateTail struct {
	RoundsCompleted int                 `json:"rounds_completed"`
	RoundTimes      []roundTimes        `json:"round_times,omitempty"`
	Champion        *leaguesdk.Champion `json:"champion,omitempty"`
}

// writeStateFile writes st with the n rounds that round returns as its
// rounds (st.Rounds is not read), followed by a newline.
func writeStateFile(w io.Writer, st *leagueState, n int, round func(i int) []scheduledMatch) error {
	head, err := wirejson.Marshal(st.stateHead)
	if err != nil {
		return err
	}
	tail, err := wirejson.Marshal(st.stateTail)
	if err != nil {
		return err
	}
	// head ends with '}' and tail starts with '{': the rounds go between.
	if _, err := w.Write(append(head[:len(head)-1], `,"rounds":[`...)); err != nil {
		return err
	}
	var rb []byte // each round encoded into the same buffer
	for i := range n {
		rb = rb[:0]
		if i > 0 {
			rb = append(rb, ',')
		}
		if rb, err = wirejson.Append(rb, round(i)); err != nil {
			return err
		}
		if _, err := w.Write(rb); err != nil {
			return err
		}
	}
	tail[0] = ','
	_, err = w.Write(append(append([]byte("]"), tail...), '\n'))
	return err
}

// resultFile is data/leagues/<id>/results/<match_id>.json.
type resultFile struct {
	SchemaVersion string `json:"schema_version"`
	LastUpdated   string `json:"last_updated"`
	LeagueID      string `json:"league_id"`
	MatchRecord
}

// openResults opens the results journal, results.jsonl: one line per
// recorded match, appended before the referee's report is acknowledged;
// results recorded at the same moment share one write and one fsync.
// roundsJournalPath is data/leagues/<id>/rounds.jsonl: one line each time
// a round starts or completes, durable before the round's announcement or
// its completion is sent, so that state.json (which holds the schedule)
// is not rewritten every round.
func (s store) roundsJournalPath() string { return filepath.Join(s.leagueDir(), "rounds.jsonl") }

// roundEvent is one line of rounds.jsonl.
type roundEvent struct {
	RoundID     int        `json:"round_id"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	CompletedAt *time.Time `json:"completed_at,omitempty"`
}

// openRounds opens the round journal and returns it with its records.
func (s store) openRounds() (*journal.Journal, []roundEvent, error) {
	var out []roundEvent
	j, err := journal.Open(s.roundsJournalPath(), s.journalConfig("rounds", func(rec []byte) error {
		var e roundEvent
		if json.Unmarshal(rec, &e) == nil && e.RoundID > 0 {
			out = append(out, e)
		}
		return nil
	}))
	if err != nil {
		return nil, nil, err
	}
	return j, out, nil
}

func (s store) openResults() (*journal.Journal, error) {
	return journal.Open(s.resultsJournalPath(), s.journalConfig("results", nil))
}

// journalConfig returns the configuration of the journal of file: replay
// gets its records, and each group commit is observed.
func (s store) journalConfig(file string, replay func([]byte) error) journal.Config {
	cfg := journal.Config{Replay: replay}
	if s.observe != nil {
		cfg.OnSync = func(records, bytes int, took time.Duration) {
			s.observe(WriteEvent{File: file, Records: records, Bytes: bytes, Took: took})
		}
	}
	return cfg
}

// LoadResults reads every match record of league leagueID under dataRoot,
// ordered by round and match id: the records the standings are computed
// from. A league that recorded nothing yet gives none. It only reads: a
// record whose line a crash cut short (never acknowledged) is passed over.
func LoadResults(dataRoot, leagueID string) ([]MatchRecord, error) {
	s := store{root: dataRoot, league: leagueID}
	byMatch := map[string]bool{}
	var out []MatchRecord
	add := func(rf resultFile) {
		if rf.MatchID != "" && !byMatch[rf.MatchID] {
			byMatch[rf.MatchID] = true
			out = append(out, rf.MatchRecord)
		}
	}
	raw, err := os.ReadFile(s.resultsJournalPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for len(raw) > 0 {
		line, rest, complete := bytes.Cut(raw, []byte("\n"))
		raw = rest
		var rf resultFile
		if !complete || json.Unmarshal(line, &rf) != nil {
			continue // the tail of a crash, or a blank line
		}
		add(rf)
	}
	// Leagues recorded before the journal kept one file per match.
	entries, err := os.ReadDir(s.resultsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue // temporary files of an interrupted write are skipped
		}
		var rf resultFile
		if err := atomicfile.ReadJSON(filepath.Join(s.resultsDir(), name), &rf); err != nil {
			return nil, err
		}
		add(rf)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].RoundID != out[j].RoundID {
			return out[i].RoundID < out[j].RoundID
		}
		return comparePlayerIDs(out[i].MatchID, out[j].MatchID) < 0
	})
	return out, nil
}

// standingsFile is data/leagues/<id>/standings.json.
type standingsFile struct {
	SchemaVersion   string                  `json:"schema_version"`
	LastUpdated     string                  `json:"last_updated"`
	LeagueID        string                  `json:"league_id"`
	Version         int                     `json:"version"`
	RoundsCompleted int                     `json:"rounds_completed"`
	MatchesRecorded int                     `json:"matches_recorded"`
	Standings       []leaguesdk.StandingRow `json:"standings"`
}

// roundsFile is data/leagues/<id>/rounds.json.
type roundsFile struct {
	SchemaVersion string        `json:"schema_version"`
	LastUpdated   string        `json:"last_updated"`
	LeagueID      string        `json:"league_id"`
	TotalRounds   int           `json:"total_rounds"`
	Rounds        []roundRecord `json:"rounds"`
}

// roundRecord is one round of rounds.json. Rounds that have not started
// list no matches; GET_SCHEDULE gives the whole schedule.
type roundRecord struct {
	RoundID     int                     `json:"round_id"`
	Status      string                  `json:"status"` // roundPending, roundRunning, roundCompleted
	StartedAt   *string                 `json:"started_at"`
	CompletedAt *string                 `json:"completed_at"`
	MatchCount  int                     `json:"match_count"`
	Matches     []roundMatch            `json:"matches,omitempty"`
	Summary     *leaguesdk.RoundSummary `json:"summary,omitempty"`
}

// Statuses of a round in rounds.json.
const (
	roundPending   = "PENDING"
	roundRunning   = "RUNNING"
	roundCompleted = "COMPLETED"
)

// roundMatch is a match of a round in rounds.json.
type roundMatch struct {
	MatchID   string                 `json:"match_id"`
	PlayerA   string                 `json:"player_A_id"`
	PlayerB   string                 `json:"player_B_id"`
	RefereeID string                 `json:"referee_id,omitempty"`
	Status    leaguesdk.MatchStatus  `json:"status"`
	Result    leaguesdk.ResultStatus `json:"result,omitempty"`
	Winner    string                 `json:"winner,omitempty"`
}

// leagueConfigFile is config/leagues/<id>.json.
type leagueConfigFile struct {
	SchemaVersion string       `json:"schema_version"`
	LastUpdated   string       `json:"last_updated"`
	LeagueID      string       `json:"league_id"`
	DisplayName   string       `json:"display_name"`
	GameType      string       `json:"game_type"`
	Status        LeagueStatus `json:"status"`
	Endpoint      string       `json:"manager_endpoint,omitempty"`
	Scoring       struct {
		WinPoints           int          `json:"win_points"`
		DrawPoints          int          `json:"draw_points"`
		LossPoints          int          `json:"loss_points"`
		TechnicalLossPoints int          `json:"technical_loss_points"`
		Tiebreakers         []Tiebreaker `json:"tiebreakers"`
	} `json:"scoring"`
	Participants struct {
		MinPlayers int `json:"min_players"`
		MaxPlayers int `json:"max_players"`
		Players    int `json:"registered_players"`
		Referees   int `json:"registered_referees"`
	} `json:"participants"`
	Schedule struct {
		Format                string  `json:"format"`
		RegistrationWindowSec float64 `json:"registration_window_sec"`
		ReportTimeoutSec      float64 `json:"report_timeout_sec"`
	} `json:"schedule"`
}

// systemFile is config/system.json.
type systemFile struct {
	SchemaVersion   string `json:"schema_version"`
	LastUpdated     string `json:"last_updated"`
	SystemID        string `json:"system_id"`
	ProtocolVersion string `json:"protocol_version"`
	MinProtocol     string `json:"min_protocol_version"`
	Timeouts        struct {
		RegistrationSec float64 `json:"registration_timeout_sec"`
		JoinSec         float64 `json:"game_join_ack_timeout_sec"`
		MoveSec         float64 `json:"move_timeout_sec"`
		GameOverSec     float64 `json:"game_over_timeout_sec"`
		ReportSec       float64 `json:"match_result_report_timeout_sec"`
		GenericSec      float64 `json:"generic_response_timeout_sec"`
	} `json:"timeouts"`
	RetryPolicy struct {
		MaxRetries      int     `json:"max_retries"`
		BackoffStrategy string  `json:"backoff_strategy"`
		DelaySec        float64 `json:"delay_sec"`
	} `json:"retry_policy"`
}

func (s store) saveSystem(now time.Time) error {
	var f systemFile
	f.SchemaVersion, f.LastUpdated = SchemaVersion, leaguesdk.FormatTime(now)
	f.SystemID, f.ProtocolVersion, f.MinProtocol = "league_system", leaguesdk.Protocol, leaguesdk.MinProtocolVersion
	f.Timeouts.RegistrationSec = leaguesdk.DefaultRegistrationTimeout.Seconds()
	f.Timeouts.JoinSec = leaguesdk.DefaultJoinTimeout.Seconds()
	f.Timeouts.MoveSec = leaguesdk.DefaultChoiceTimeout.Seconds()
	f.Timeouts.GameOverSec = leaguesdk.DefaultGameOverTimeout.Seconds()
	f.Timeouts.ReportSec = leaguesdk.DefaultReportTimeout.Seconds()
	f.Timeouts.GenericSec = leaguesdk.DefaultTimeout.Seconds()
	f.RetryPolicy.MaxRetries, f.RetryPolicy.BackoffStrategy, f.RetryPolicy.DelaySec = 3, "constant", 2
	return atomicfile.WriteJSON(s.systemPath(), f)
}

// eventLog appends the league log, logs/league/<id>/league.log.jsonl: one
// JSON object per line with timestamp, component, event_type, level and
// details. It is an append-only log, not a state file.
type eventLog struct {
	mu sync.Mutex
	f  *os.File
}

func openEventLog(path string) (*eventLog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &eventLog{f: f}, nil
}

func (l *eventLog) write(now time.Time, eventType, level string, details *eventDetails) {
	if l == nil {
		return
	}
	b, err := wirejson.Marshal(struct {
		Timestamp string        `json:"timestamp"`
		Component string        `json:"component"`
		EventType string        `json:"event_type"`
		Level     string        `json:"level"`
		Details   *eventDetails `json:"details"`
	}{leaguesdk.FormatTime(now), "league_manager", eventType, level, details})
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.f.Write(append(redact.Append(b[:0], b), '\n'))
}

func (l *eventLog) close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.f.Close()
}

// assignmentsPath is data/leagues/<id>/assignments.jsonl: the journal of
// every start_match the manager sent, written before it is sent.
func (s store) assignmentsPath() string { return filepath.Join(s.leagueDir(), "assignments.jsonl") }

// assignment is one line of the assignment journal: match MatchID given to
// referee RefereeID as attempt Attempt (counting from 1 per match).
type assignment struct {
	MatchID    string    `json:"match_id"`
	RefereeID  string    `json:"referee_id"`
	Attempt    int       `json:"attempt"`
	AssignedAt time.Time `json:"assigned_at"`
}

// openAssignments opens the assignment journal and returns it with the
// assignments it holds, in the order they were written. A torn last line
// (a crash in the middle of an append, never acted on: its start_match was
// not sent) is cut off. Each append is on disk when it returns; appends
// made at the same moment share one write and one fsync.
func (s store) openAssignments() (*journal.Journal, []assignment, error) {
	var out []assignment
	j, err := journal.Open(s.assignmentsPath(), s.journalConfig("assignments", func(rec []byte) error {
		var a assignment
		if json.Unmarshal(rec, &a) == nil && a.MatchID != "" {
			out = append(out, a)
		}
		return nil
	}))
	if err != nil {
		return nil, nil, err
	}
	return j, out, nil
}
