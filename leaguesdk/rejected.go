package leaguesdk

import "strings"

// RejectedError is the error a registration ends with when the league
// manager refuses the agent: a REJECTED (or otherwise not accepted)
// registration response, or a protocol error with a code that is not
// retryable answered to the registration request. The player and the
// referee return it from Register and Run alike, so one [errors.As] tells a
// refusal from a manager that could not be reached:
//
//	var rej *leaguesdk.RejectedError
//	if errors.As(err, &rej) {
//		log.Printf("refused: %s", rej.Reason)
//	}
type RejectedError struct {
	// Agent is who was refused, as the prefix of the message: "player"
	// or "referee".
	Agent string
	// Reason is the manager's reason, as sent.
	Reason string
	// Code is the catalog code of a refusal answered as a protocol error
	// ("" for a REJECTED response).
	Code Code
	// Err is the protocol error, if the refusal was one.
	Err error
}

// Error implements the error interface.
func (e *RejectedError) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = "no reason given"
	}
	msg := "registration rejected by the league manager: " + reason
	if e.Agent != "" {
		msg = e.Agent + ": " + msg
	}
	return msg
}

// Unwrap returns the protocol error of the refusal, if any.
func (e *RejectedError) Unwrap() error { return e.Err }

// ReasonLeagueOver is the words a manager of this module puts in the
// reason of a registration it refuses because its league has completed:
// there is nothing left to play, and an agent refused so need not stop
// (see [RejectedError.LeagueOver]).
const ReasonLeagueOver = "it has completed, and takes no more registrations"

// LeagueOver reports whether the refusal says that the league has
// completed (its reason holds [ReasonLeagueOver]), rather than that the
// agent is not wanted: this module's players and referees then keep
// serving and register again later, for the next league.
func (e *RejectedError) LeagueOver() bool {
	return e != nil && e.Code == "" && strings.Contains(e.Reason, ReasonLeagueOver)
}
