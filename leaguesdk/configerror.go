package leaguesdk

import "strings"

// ConfigError is the error a Config that cannot run is refused with: by
// New of packages player, referee and manager, and by the arena's Run.
// It names every problem at once, each as "Config.<Field> …", so one
// [errors.As] tells a configuration mistake from a failure at run time:
//
//	var ce *leaguesdk.ConfigError
//	if errors.As(err, &ce) {
//		for _, p := range ce.Problems {
//			log.Print(p)
//		}
//	}
type ConfigError struct {
	// Agent is whose Config it is, as the prefix of the message:
	// "player", "referee", "manager" or "arena".
	Agent string
	// Problems says what is wrong, one sentence each, in the order the
	// fields were checked.
	Problems []string
}

// Error implements the error interface: "<agent>: invalid config: " and
// the problems, separated by "; ".
func (e *ConfigError) Error() string {
	return e.Agent + ": invalid config: " + strings.Join(e.Problems, "; ")
}
