package agentkit

import (
	"fmt"
	"slices"
	"time"

	"github.com/agentleague/league/leaguesdk"
)

// The agents' Config convention, the one net/http.Server's timeouts
// follow: a zero field means its documented default; a negative one means
// "disabled" where the field's comment says so, and is an error otherwise.
// A Config is taken by value and returned with its defaults filled in
// (func (c Config) withDefaults() (Config, error)); every error of a
// Config is reported at once, in one *[leaguesdk.ConfigError], each
// problem worded "Config.<Field> …".

// ConfigCheck collects the errors of one agent's Config.
type ConfigCheck struct {
	agent    string
	problems []string
}

// NewConfigCheck returns a check of agent's ("player", "referee",
// "manager", "arena") Config.
func NewConfigCheck(agent string) *ConfigCheck { return &ConfigCheck{agent: agent} }

// Add records a problem, formatted as [fmt.Sprintf] does. It starts with
// the field it is about: "Config.Name is required".
func (c *ConfigCheck) Add(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// Durations records an error for every negative duration, by field name
// (in name order, so that the message is stable).
func (c *ConfigCheck) Durations(fields map[string]time.Duration) {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if d := fields[name]; d < 0 {
			c.Add("Config.%s cannot be negative (%v)", name, d)
		}
	}
}

// Err returns every recorded problem as one *[leaguesdk.ConfigError], or
// nil.
func (c *ConfigCheck) Err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return &leaguesdk.ConfigError{Agent: c.agent, Problems: c.problems}
}

// Default sets *v to def when *v is zero.
func Default[T int | int64 | float64 | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}
