package arena

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/agentleague/league/internal/agentkit"
	"github.com/agentleague/league/leaguesdk"
	"github.com/agentleague/league/player"
	"github.com/agentleague/league/player/strategies"
	"github.com/agentleague/league/rules"
)

// Defaults of [Config].
const (
	DefaultRounds = 100
	DefaultSeed   = 1
)

// Entry is one contestant of the arena: a Go strategy, played in this
// process by a [player.Agent], or the endpoint of a running player, played
// over HTTP. Set exactly one of Strategy, NewStrategy and URL.
type Entry struct {
	// Name labels the entry in the report. Default: the ready strategy's
	// name ([Ready]), the URL, or "entry <n>". Names that repeat get " #2",
	// " #3" … appended.
	Name string
	// Strategy is a Go strategy, played in process.
	Strategy player.Strategy
	// NewStrategy builds a Go strategy from the entry's own random source,
	// seeded from [Config.Seed]: a strategy that draws its randomness from
	// it makes the whole run reproducible.
	NewStrategy func(rand io.Reader) (player.Strategy, error)
	// Seed, when not zero, seeds the entry's random sources (NewStrategy's
	// and its player's fallback) instead of [Config.Seed]: an opponent of
	// a pinned [Pool] keeps its seed whatever the run's.
	Seed uint64
	// URL is the /mcp endpoint of a running player, in any language
	// ("http://127.0.0.1:8101/mcp"). The arena plays it over HTTP with the
	// referee's messages (GAME_INVITATION, CHOOSE_PARITY_CALL or
	// GAME_MOVE_CALL, GAME_OVER) and sends it LEAGUE_STANDINGS_UPDATE
	// after each round, as a league would.
	URL string
}

// Ready returns the entry of a ready strategy of package strategies, by
// name (see [strategies.ByName]), seeded from [Config].Seed.
func Ready(name string) Entry {
	return Entry{Name: name, NewStrategy: func(r io.Reader) (player.Strategy, error) { return strategies.ByName(name, r) }}
}

// Remote returns the entry of a running player at url.
func Remote(url string) Entry { return Entry{URL: url} }

// Config configures a [Run]. The zero value of every field but Entries
// means the documented default.
type Config struct {
	// Entries are the contestants; at least two.
	Entries []Entry
	// Rounds is how many times the round-robin is played: every pair of
	// entries meets Rounds times, as PLAYER_A and PLAYER_B in turn.
	// Default [DefaultRounds].
	Rounds int
	// Seed makes a run reproducible: the drawn numbers, the random
	// sources of the players (their fallback) and of the entries built by
	// NewStrategy derive from it. A run with only such entries and no URL
	// gives the same report every time. Default [DefaultSeed].
	Seed uint64
	// GameType is the game played. Default [leaguesdk.GameEvenOdd].
	GameType string
	// Rules are the rules of GameType ([rules.EvenOdd] for even/odd).
	// Default: the referee's rules of that game ([rules.DefaultGames]).
	Rules rules.Rules
	// MoveTimeout is the deadline of each move call, which the players'
	// deadline safety counts from. Default [leaguesdk.DefaultChoiceTimeout].
	MoveTimeout time.Duration
	// JoinTimeout and GameOverTimeout bound the invitation and the
	// notifications sent to URL entries. Defaults
	// [leaguesdk.DefaultJoinTimeout] and [leaguesdk.DefaultGameOverTimeout].
	JoinTimeout     time.Duration
	GameOverTimeout time.Duration
	// Parallel is how many matches are played at once, at most a round's
	// (half the entries: nobody plays twice in a round, so that each
	// player's matches come in the same order every run). Default
	// [runtime.GOMAXPROCS](0).
	Parallel int
	// HTTPClient carries the calls to URL entries. Default: a
	// [leaguesdk.Client] of its own.
	HTTPClient *http.Client
	// Progress, when set, is called after each round of the round-robin
	// with the matches played so far.
	Progress func(Progress)
	// Logger receives the players' logs (deadline misses, fallbacks).
	// Default: discard.
	Logger *slog.Logger
	// League plays each round-robin as a whole league instead: a
	// [manager.Manager], two referees ([referee.Referee]) and one
	// [player.Agent] per entry, speaking the protocol's JSON over an [inmem.Network], with
	// the league's files in DataRoot. Each league starts with fresh
	// players: their histories do not carry from one to the next. Slower than the default, and not reproducible to
	// the match (the referees run a round's matches in parallel), it
	// measures the strategies inside the real agents end to end. URL
	// entries cannot join it. Default false.
	League bool
	// DataRoot is where League mode keeps the leagues' files. Default: a
	// temporary folder, removed when [Run] returns.
	DataRoot string
	// PoolRef names the pinned pool the entries come from, for the report
	// (see [Pool]). Optional.
	PoolRef *PoolRef
}

// Progress is how far a [Run] is.
type Progress struct {
	// Played and Total count the matches played and to play.
	Played, Total int
	// Elapsed is the time since [Run] began.
	Elapsed time.Duration
}

// ConfigError is the error of a [Config] that cannot run: the one
// *[leaguesdk.ConfigError] of the module's Configs, with Agent "arena".
type ConfigError = leaguesdk.ConfigError

// withDefaults checks cfg and fills in its defaults. It reports every
// invalid field at once.
func (cfg Config) withDefaults() (Config, error) {
	check := agentkit.NewConfigCheck("arena")
	if len(cfg.Entries) < 2 {
		check.Add("Config.Entries needs at least two entries, got %d", len(cfg.Entries))
	}
	for i, e := range cfg.Entries {
		set := 0
		for _, b := range []bool{e.Strategy != nil, e.NewStrategy != nil, e.URL != ""} {
			if b {
				set++
			}
		}
		if set != 1 {
			check.Add("Config.Entries[%d] must set exactly one of Strategy, NewStrategy and URL", i)
		}
		if e.URL != "" && !leaguesdk.ValidEndpoint(e.URL) {
			check.Add("Config.Entries[%d].URL %q is not an http(s) URL", i, e.URL)
		}
		if e.URL != "" && cfg.League {
			check.Add("Config.Entries[%d].URL cannot play in League mode", i)
		}
	}
	if cfg.Rounds < 0 {
		check.Add("Config.Rounds cannot be negative (%d)", cfg.Rounds)
	}
	check.Durations(map[string]time.Duration{"MoveTimeout": cfg.MoveTimeout, "JoinTimeout": cfg.JoinTimeout,
		"GameOverTimeout": cfg.GameOverTimeout})
	if cfg.GameType == "" {
		cfg.GameType = leaguesdk.GameEvenOdd
	}
	if cfg.Rules == nil {
		cfg.Rules = rules.DefaultGames()[cfg.GameType]
		if cfg.Rules == nil {
			check.Add("Config.Rules is required: there are no default rules for game type %q", cfg.GameType)
		}
	}
	if err := check.Err(); err != nil {
		return cfg, err
	}
	agentkit.Default(&cfg.Rounds, DefaultRounds)
	if cfg.Seed == 0 {
		cfg.Seed = DefaultSeed
	}
	agentkit.Default(&cfg.MoveTimeout, leaguesdk.DefaultChoiceTimeout)
	agentkit.Default(&cfg.JoinTimeout, leaguesdk.DefaultJoinTimeout)
	agentkit.Default(&cfg.GameOverTimeout, leaguesdk.DefaultGameOverTimeout)
	if cfg.Parallel <= 0 {
		cfg.Parallel = runtime.GOMAXPROCS(0)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg, nil
}

// names returns the entries' names, made unique.
func (cfg Config) names() []string {
	out := make([]string, len(cfg.Entries))
	seen := map[string]int{}
	for i, e := range cfg.Entries {
		name := strings.TrimSpace(e.Name)
		switch {
		case name != "":
		case e.URL != "":
			name = e.URL
		default:
			name = fmt.Sprintf("entry %d", i+1)
		}
		seen[name]++
		if n := seen[name]; n > 1 {
			name = fmt.Sprintf("%s #%d", name, n)
		}
		out[i] = name
	}
	return out
}

// playerID returns the id of entry i, as a manager would assign it.
func playerID(i, n int) string {
	width := max(2, len(fmt.Sprint(n)))
	return fmt.Sprintf("P%0*d", width, i+1)
}

// Run plays the round-robin cfg describes and returns its report. It
// stops when ctx ends, returning ctx's error, and returns a *[ConfigError]
// for a [Config] that cannot run.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	names := cfg.names()
	var rec *recorder
	if cfg.League {
		rec, err = runLeagues(ctx, cfg, names, start)
	} else {
		rec, err = runArena(ctx, cfg, names, start)
	}
	if err != nil {
		return nil, err
	}
	return rec.report(cfg, names, time.Since(start)), nil
}
