package manager

import "time"

// clock is the time source of every timer of the manager: the
// registration window's wait, dispatch's report deadlines and pauses, the
// retry pause before a start, the health probes and the pause between
// rewrites of the views. Timestamps written to
// files and messages come from Config.Now instead.
type clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed, and a
	// function that releases the timer.
	After(d time.Duration) (<-chan time.Time, func() bool)
}

// systemClock is the clock of the time package (monotonic readings).
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) After(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// clock returns the manager's clock: the one set in its clock field (by
// tests), or else the system clock.
func (m *Manager) clock() clock {
	if m.clk != nil {
		return m.clk
	}
	return systemClock{}
}
