package agentkit

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// The agents' Config convention, the one net/http.Server's timeouts
// follow: a zero field means its documented default; a negative one means
// "disabled" where the field's comment says so, and is an error otherwise.
// Every error of a Config is reported at once.

// ConfigCheck collects the errors of one agent's Config.
type ConfigCheck struct {
	agent string
	errs  []error
}

// NewConfigCheck returns a check of agent's ("player", "referee",
// "manager") Config.
func NewConfigCheck(agent string) *ConfigCheck { return &ConfigCheck{agent: agent} }

// Add records an error, formatted as [fmt.Sprintf] does.
func (c *ConfigCheck) Add(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf(format, args...))
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

// Err returns every recorded error joined with [errors.Join], under
// "<agent>: invalid config: ", or nil.
func (c *ConfigCheck) Err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: invalid config: %w", c.agent, errors.Join(c.errs...))
}

// Default sets *v to def when *v is zero.
func Default[T int | int64 | float64 | time.Duration](v *T, def T) {
	if *v == 0 {
		*v = def
	}
}
