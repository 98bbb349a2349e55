package leaguesdk

// StartLeagueResponse (START_LEAGUE_RESPONSE) is the manager's answer to
// START_LEAGUE. Status is StartLeagueStarted when the call started the
// league and StartLeagueAlreadyStarted when it was already running or done.
type StartLeagueResponse struct {
	Envelope
	LeagueID    string `json:"league_id"`
	Status      string `json:"status" validate:"required"`
	Players     int    `json:"players"`
	Referees    int    `json:"referees"`
	TotalRounds int    `json:"total_rounds"`
}

// START_LEAGUE_RESPONSE statuses.
const (
	StartLeagueStarted        = "STARTED"
	StartLeagueAlreadyStarted = "ALREADY_STARTED"
)
