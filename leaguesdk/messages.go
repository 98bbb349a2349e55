package leaguesdk

import (
	"bytes"
	"encoding/json"
)

// OptionalString is a string sent as JSON null when empty, for fields the
// protocol gives as "string or null" (a draw's winner, an accepted
// registration's reason).
type OptionalString string

// MarshalJSON implements [json.Marshaler].
func (s OptionalString) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}

// UnmarshalJSON implements [json.Unmarshaler].
func (s *OptionalString) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*s = ""
		return nil
	}
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = OptionalString(v)
	return nil
}

// ---- Registration ----

// RefereeMeta describes a referee in REFEREE_REGISTER_REQUEST.
type RefereeMeta struct {
	DisplayName          string   `json:"display_name" validate:"required"`
	Version              string   `json:"version" validate:"required"`
	GameTypes            []string `json:"game_types" validate:"required,min=1,dive,required"`
	ContactEndpoint      string   `json:"contact_endpoint" validate:"required,endpoint"`
	MaxConcurrentMatches int      `json:"max_concurrent_matches" validate:"required,min=1"`
	ProtocolVersion      string   `json:"protocol_version,omitempty" validate:"omitempty,protover"`
}

// RefereeRegisterRequest (REFEREE_REGISTER_REQUEST, method register_referee)
// is sent by a referee to the manager to join the league.
type RefereeRegisterRequest struct {
	Envelope
	RefereeMeta RefereeMeta `json:"referee_meta"`
}

// RefereeRegisterResponse (REFEREE_REGISTER_RESPONSE) is the manager's answer
// to a referee's registration. The envelope's AuthToken carries the token
// issued to the referee.
type RefereeRegisterResponse struct {
	Envelope
	Status    RegistrationStatus `json:"status" validate:"required"`
	RefereeID string             `json:"referee_id,omitempty"`
	LeagueID  string             `json:"league_id,omitempty"`
	Reason    OptionalString     `json:"reason"`
}

// PlayerMeta describes a player in LEAGUE_REGISTER_REQUEST.
type PlayerMeta struct {
	DisplayName     string   `json:"display_name" validate:"required"`
	Version         string   `json:"version" validate:"required"`
	GameTypes       []string `json:"game_types" validate:"required,min=1,dive,required"`
	ContactEndpoint string   `json:"contact_endpoint" validate:"required,endpoint"`
	ProtocolVersion string   `json:"protocol_version,omitempty" validate:"omitempty,protover"`
}

// LeagueRegisterRequest (LEAGUE_REGISTER_REQUEST, method register_player) is
// sent by a player to the manager to join the league.
type LeagueRegisterRequest struct {
	Envelope
	PlayerMeta PlayerMeta `json:"player_meta"`
}

// LeagueRegisterResponse (LEAGUE_REGISTER_RESPONSE) is the manager's answer
// to a player's registration. The envelope's AuthToken carries the token
// issued to the player.
type LeagueRegisterResponse struct {
	Envelope
	Status   RegistrationStatus `json:"status" validate:"required"`
	PlayerID string             `json:"player_id,omitempty"`
	LeagueID string             `json:"league_id,omitempty"`
	Reason   OptionalString     `json:"reason"`
}

// ---- Rounds and league ----

// ScheduledMatch is one match of a round as announced to the players.
type ScheduledMatch struct {
	MatchID         string `json:"match_id" validate:"required"`
	GameType        string `json:"game_type" validate:"required"`
	PlayerAID       string `json:"player_A_id" validate:"required"`
	PlayerBID       string `json:"player_B_id" validate:"required"`
	RefereeEndpoint string `json:"referee_endpoint,omitempty"`
}

// RoundAnnouncement (ROUND_ANNOUNCEMENT, method notify_round) is broadcast
// by the manager to every player before a round starts.
type RoundAnnouncement struct {
	Envelope
	LeagueID string           `json:"league_id" validate:"required"`
	RoundID  RoundID          `json:"round_id" validate:"required"`
	Matches  []ScheduledMatch `json:"matches" validate:"dive"`
}

// RoundSummary counts the outcomes of a finished round.
type RoundSummary struct {
	TotalMatches    int `json:"total_matches"`
	Wins            int `json:"wins"`
	Draws           int `json:"draws"`
	TechnicalLosses int `json:"technical_losses"`
}

// RoundCompleted (ROUND_COMPLETED, method notify_round_completed) is
// broadcast by the manager to every player after a round's last result.
type RoundCompleted struct {
	Envelope
	LeagueID         string        `json:"league_id" validate:"required"`
	RoundID          RoundID       `json:"round_id" validate:"required"`
	MatchesCompleted int           `json:"matches_completed"`
	NextRoundID      *RoundID      `json:"next_round_id"`
	Summary          *RoundSummary `json:"summary,omitempty"`
}

// StandingRow is one line of a standings table.
type StandingRow struct {
	Rank        int    `json:"rank"`
	PlayerID    string `json:"player_id" validate:"required"`
	DisplayName string `json:"display_name,omitempty"`
	Played      int    `json:"played"`
	Wins        int    `json:"wins"`
	Draws       int    `json:"draws"`
	Losses      int    `json:"losses"`
	Points      int    `json:"points"`
	// State is the player's lifecycle state (ACTIVE, SUSPENDED, SHUTDOWN…)
	// in query answers of this module's manager; an extension that other
	// implementations may omit or ignore.
	State string `json:"state,omitempty"`
}

// LeagueStandingsUpdate (LEAGUE_STANDINGS_UPDATE, method update_standings)
// is broadcast by the manager to every player after each round.
type LeagueStandingsUpdate struct {
	Envelope
	LeagueID  string        `json:"league_id" validate:"required"`
	RoundID   RoundID       `json:"round_id"`
	Standings []StandingRow `json:"standings" validate:"dive"`
}

// Champion names the winner of a league.
type Champion struct {
	PlayerID    string `json:"player_id"`
	DisplayName string `json:"display_name,omitempty"`
	Points      int    `json:"points"`
}

// LeagueCompleted (LEAGUE_COMPLETED, method notify_league_completed) is
// broadcast by the manager to every player and referee after the last round.
type LeagueCompleted struct {
	Envelope
	LeagueID       string        `json:"league_id" validate:"required"`
	TotalRounds    int           `json:"total_rounds"`
	TotalMatches   int           `json:"total_matches"`
	Champion       *Champion     `json:"champion"`
	FinalStandings []StandingRow `json:"final_standings" validate:"dive"`
}

// ---- Match assignment ----

// PlayerRecord is a player's record so far: what a CHOOSE_PARITY_CALL gives
// as your_standings.
type PlayerRecord struct {
	Wins   int `json:"wins"`
	Losses int `json:"losses"`
	Draws  int `json:"draws"`
}

// StartMatch (START_MATCH, method start_match) is sent by the manager to a
// referee to hand it a match. The referee answers at once with a
// [StartMatchResponse] and reports the outcome later with MATCH_RESULT_REPORT.
type StartMatch struct {
	Envelope
	LeagueID        string  `json:"league_id" validate:"required"`
	RoundID         RoundID `json:"round_id" validate:"required"`
	MatchID         string  `json:"match_id" validate:"required"`
	GameType        string  `json:"game_type" validate:"required"`
	PlayerAID       string  `json:"player_A_id" validate:"required"`
	PlayerBID       string  `json:"player_B_id" validate:"required"`
	PlayerAEndpoint string  `json:"player_A_endpoint" validate:"required,endpoint"`
	PlayerBEndpoint string  `json:"player_B_endpoint" validate:"required,endpoint"`
	// Standings gives each player's record so far, keyed by player id; the
	// referee passes it on as your_standings.
	Standings map[string]PlayerRecord `json:"standings,omitempty"`
	// Attempt numbers the manager's assignments of this match, from 1; a
	// later assignment (a replay) has a greater number. The referee passes
	// it on in GAME_OVER. An extension field: zero or absent means 1.
	Attempt int `json:"attempt,omitempty"`
	// ShutdownPlayers lists the match's players the manager has shut down
	// (they stopped answering): the referee makes one quick attempt to
	// reach each and records a technical loss without retries. An
	// extension of this module; other referees may ignore it.
	ShutdownPlayers []string `json:"shutdown_players,omitempty"`
}

// StartMatchResponse (START_MATCH_RESPONSE) is a referee's immediate answer
// to START_MATCH.
type StartMatchResponse struct {
	Envelope
	MatchID string             `json:"match_id" validate:"required"`
	Status  RegistrationStatus `json:"status" validate:"required"`
	Reason  OptionalString     `json:"reason"`
}

// StatusStarted is a START_MATCH reply's status from referees that play
// the match inside the call and answer once it has started or is over
// ({"status":"STARTED"}); it is read as [StatusAccepted].
const StatusStarted RegistrationStatus = "STARTED"

// Accepted reports whether the referee took the match: status ACCEPTED,
// or the synonyms REGISTERED and STARTED read from other implementations.
func (r *StartMatchResponse) Accepted() bool {
	return r.Status.Accepted() || r.Status == StatusStarted
}

// ---- Game ----

// GameInvitation (GAME_INVITATION, method handle_game_invitation) is sent by
// a referee to each player of a match. The player answers with [GameJoinAck].
type GameInvitation struct {
	Envelope
	LeagueID    string  `json:"league_id,omitempty"`
	RoundID     RoundID `json:"round_id,omitempty"`
	MatchID     string  `json:"match_id" validate:"required"`
	GameType    string  `json:"game_type,omitempty"`
	RoleInMatch Role    `json:"role_in_match,omitempty"`
	OpponentID  string  `json:"opponent_id,omitempty"`
	PlayerID    string  `json:"player_id,omitempty"`
}

// GameJoinAck (GAME_JOIN_ACK) is a player's answer to GAME_INVITATION.
// It is sent in the profile's shape and read tolerantly: see UnmarshalJSON
// and Answer.
type GameJoinAck struct {
	Envelope
	MatchID          string `json:"match_id" validate:"required"`
	PlayerID         string `json:"player_id,omitempty"`
	ArrivalTimestamp string `json:"arrival_timestamp,omitempty" validate:"omitempty,utc"`
	Accept           bool   `json:"accept"`

	noAccept      bool   // received without accept (see UnmarshalJSON)
	invalidAccept string // accept as received, when it was not a boolean
	bareACK       bool   // received as {"status":"ACK"}, without message type or accept
}

// ParityContext is what a CHOOSE_PARITY_CALL tells a player about its match.
type ParityContext struct {
	OpponentID    string       `json:"opponent_id,omitempty"`
	RoundID       RoundID      `json:"round_id,omitempty"`
	YourStandings PlayerRecord `json:"your_standings"`
}

// ChooseParityCall (CHOOSE_PARITY_CALL, method choose_parity) asks a player
// for its choice. The player answers with [ChooseParityResponse] before Deadline.
type ChooseParityCall struct {
	Envelope
	MatchID  string        `json:"match_id" validate:"required"`
	PlayerID string        `json:"player_id,omitempty"`
	GameType string        `json:"game_type,omitempty"`
	Context  ParityContext `json:"context"`
	Deadline string        `json:"deadline,omitempty" validate:"omitempty,utc"`
}

// ChooseParityResponse (CHOOSE_PARITY_RESPONSE) carries a player's choice.
// It is sent in the profile's shape and read tolerantly, GAME_MOVE_RESPONSE
// included: see UnmarshalJSON and Choice.
type ChooseParityResponse struct {
	Envelope
	MatchID      string `json:"match_id" validate:"required"`
	PlayerID     string `json:"player_id,omitempty"`
	ParityChoice Parity `json:"parity_choice" validate:"required,parity"`

	noChoice bool // received without a choice (see UnmarshalJSON)
}

// MoveRequest describes the move a GAME_MOVE_CALL asks for.
type MoveRequest struct {
	MoveType     string          `json:"move_type" validate:"required"`
	ValidOptions []string        `json:"valid_options,omitempty"`
	Context      json.RawMessage `json:"context,omitempty"`
}

// GameMoveCall (GAME_MOVE_CALL, method make_move) is the generic form of a
// move request, for games other than even/odd.
type GameMoveCall struct {
	Envelope
	MatchID     string      `json:"match_id" validate:"required"`
	PlayerID    string      `json:"player_id,omitempty"`
	GameType    string      `json:"game_type" validate:"required"`
	MoveRequest MoveRequest `json:"move_request"`
	Deadline    string      `json:"deadline,omitempty" validate:"omitempty,utc"`
}

// MoveData is the move a GAME_MOVE_RESPONSE carries.
type MoveData struct {
	MoveType string `json:"move_type,omitempty"`
	Choice   string `json:"choice" validate:"required"`
}

// GameMoveResponse (GAME_MOVE_RESPONSE) is a player's answer to GAME_MOVE_CALL.
type GameMoveResponse struct {
	Envelope
	MatchID  string   `json:"match_id" validate:"required"`
	PlayerID string   `json:"player_id,omitempty"`
	GameType string   `json:"game_type,omitempty"`
	MoveData MoveData `json:"move_data"`
}

// GameResult is the outcome of a game as GAME_OVER gives it.
type GameResult struct {
	Status         ResultStatus      `json:"status" validate:"required,oneof=WIN DRAW TECHNICAL_LOSS"`
	WinnerPlayerID OptionalString    `json:"winner_player_id"`
	DrawnNumber    int               `json:"drawn_number,omitempty"`
	NumberParity   Parity            `json:"number_parity,omitempty"`
	Choices        map[string]Parity `json:"choices,omitempty"`
	Reason         string            `json:"reason,omitempty"`
}

// GameOver (GAME_OVER, method notify_match_result) tells both players how a
// match ended.
type GameOver struct {
	Envelope
	MatchID    string     `json:"match_id" validate:"required"`
	GameType   string     `json:"game_type,omitempty"`
	GameResult GameResult `json:"game_result"`
	// Attempt is the attempt number of START_MATCH this game was played
	// under. A GAME_OVER with a greater attempt supersedes an earlier one for
	// the same match_id. An extension field: zero or absent means 1.
	Attempt int `json:"attempt,omitempty"`
}

// AttemptOf returns the attempt number a message carries: n itself, or 1
// when n is zero or negative (the field is absent).
func AttemptOf(n int) int { return max(n, 1) }

// MatchDetails gives how a result came about.
type MatchDetails struct {
	DrawnNumber int               `json:"drawn_number,omitempty"`
	Choices     map[string]Parity `json:"choices,omitempty"`
	Reason      string            `json:"reason,omitempty"`
	// Unresponsive lists the players whose technical loss came from not
	// answering at all (no answer within the deadline, or unreachable), as
	// opposed to declining or answering wrongly. An extension of this
	// module; other implementations may omit or ignore it.
	Unresponsive []string `json:"unresponsive,omitempty"`
}

// MatchResult is a match's result as MATCH_RESULT_REPORT gives it: the
// winner (empty for a draw or when both players failed), the points each
// player earned, and details.
type MatchResult struct {
	Winner OptionalString `json:"winner"`
	Score  map[string]int `json:"score" validate:"required,min=1"`
	// Status is WIN, DRAW or TECHNICAL_LOSS; managers of other
	// implementations may omit it, in which case it follows from Score.
	Status  ResultStatus `json:"status,omitempty"`
	Details MatchDetails `json:"details"`
}

// MatchResultReport (MATCH_RESULT_REPORT, method report_match_result) is
// sent by the referee that ran a match to the manager. The manager answers
// with an [Ack].
type MatchResultReport struct {
	Envelope
	LeagueID string      `json:"league_id" validate:"required"`
	RoundID  RoundID     `json:"round_id" validate:"required"`
	MatchID  string      `json:"match_id" validate:"required"`
	GameType string      `json:"game_type,omitempty"`
	Result   MatchResult `json:"result"`
}

// ---- Errors ----

// LeagueError (LEAGUE_ERROR) reports a league-level error. Managers of this
// module send it as the data of a JSON-RPC error.
type LeagueError struct {
	Envelope
	ErrorCode           Code           `json:"error_code" validate:"required"`
	ErrorName           string         `json:"error_name,omitempty"`
	ErrorDescription    string         `json:"error_description,omitempty"`
	OriginalMessageType MessageType    `json:"original_message_type,omitempty"`
	Retryable           bool           `json:"retryable"`
	Context             map[string]any `json:"context,omitempty"`
}

// RetryInfo tells a player which retry a GAME_ERROR announces.
type RetryInfo struct {
	RetryCount  int    `json:"retry_count"`
	MaxRetries  int    `json:"max_retries"`
	NextRetryAt string `json:"next_retry_at,omitempty"`
}

// GameError (GAME_ERROR, method notify_game_error) reports a game-level
// error to a player; before each retry of a player the referee sends one.
type GameError struct {
	Envelope
	MatchID          string         `json:"match_id,omitempty"`
	PlayerID         string         `json:"player_id,omitempty"`
	ErrorCode        Code           `json:"error_code" validate:"required"`
	ErrorName        string         `json:"error_name,omitempty"`
	ErrorDescription string         `json:"error_description,omitempty"`
	AffectedPlayer   string         `json:"affected_player,omitempty"`
	ActionRequired   string         `json:"action_required,omitempty"`
	GameState        string         `json:"game_state,omitempty"`
	Retryable        bool           `json:"retryable"`
	RetryCount       int            `json:"retry_count"`
	MaxRetries       int            `json:"max_retries"`
	RetryInfo        *RetryInfo     `json:"retry_info,omitempty"`
	Consequence      string         `json:"consequence,omitempty"`
	Context          map[string]any `json:"context,omitempty"`
}

// ---- Queries ----

// QueryParams are the parameters of a LEAGUE_QUERY.
type QueryParams struct {
	PlayerID string `json:"player_id,omitempty"`
}

// LeagueQuery (LEAGUE_QUERY, method league_query) asks the manager for
// information; it answers with [LeagueQueryResponse].
type LeagueQuery struct {
	Envelope
	LeagueID    string       `json:"league_id,omitempty"`
	QueryType   QueryType    `json:"query_type" validate:"required"`
	QueryParams *QueryParams `json:"query_params,omitempty"`
}

// ErrorInfo describes why a query failed.
type ErrorInfo struct {
	ErrorCode        Code   `json:"error_code"`
	ErrorDescription string `json:"error_description,omitempty"`
}

// LeagueQueryResponse (LEAGUE_QUERY_RESPONSE) answers a LEAGUE_QUERY. Data
// holds one of [StandingsData], [ScheduleData], [NextMatchData] or [PlayerStatsData],
// as the query type says; [LeagueQueryResponse.DecodeData] reads it.
type LeagueQueryResponse struct {
	Envelope
	QueryType QueryType       `json:"query_type" validate:"required"`
	Success   bool            `json:"success"`
	Data      json.RawMessage `json:"data,omitempty"`
	Error     *ErrorInfo      `json:"error,omitempty"`
}

// DecodeData decodes the response's data into v.
func (r *LeagueQueryResponse) DecodeData(v any) error {
	if len(r.Data) == 0 {
		return &Error{Code: CodeMissingRequiredField, Field: "data", Message: "query response carries no data"}
	}
	return json.Unmarshal(r.Data, v)
}

// StandingsData is the data of a GET_STANDINGS answer.
type StandingsData struct {
	LeagueID  string        `json:"league_id,omitempty"`
	RoundID   RoundID       `json:"round_id,omitempty"`
	Standings []StandingRow `json:"standings"`
}

// ScheduleEntry is one match of the schedule as GET_SCHEDULE gives it.
type ScheduleEntry struct {
	MatchID         string       `json:"match_id"`
	RoundID         RoundID      `json:"round_id"`
	GameType        string       `json:"game_type"`
	PlayerAID       string       `json:"player_A_id"`
	PlayerBID       string       `json:"player_B_id"`
	Status          MatchStatus  `json:"status"`
	RefereeID       string       `json:"referee_id,omitempty"`
	RefereeEndpoint string       `json:"referee_endpoint,omitempty"`
	Result          *MatchResult `json:"result,omitempty"`
}

// MatchStatus is the status of a match in a schedule.
type MatchStatus string

// Match statuses in a schedule.
const (
	MatchPending  MatchStatus = "PENDING"
	MatchRunning  MatchStatus = "RUNNING"
	MatchFinished MatchStatus = "FINISHED"
)

// ScheduleData is the data of a GET_SCHEDULE answer.
type ScheduleData struct {
	LeagueID string          `json:"league_id,omitempty"`
	Matches  []ScheduleEntry `json:"matches"`
}

// NextMatch is a player's next unplayed match.
type NextMatch struct {
	MatchID         string  `json:"match_id"`
	RoundID         RoundID `json:"round_id"`
	OpponentID      string  `json:"opponent_id"`
	Role            Role    `json:"role_in_match,omitempty"`
	RefereeEndpoint string  `json:"referee_endpoint,omitempty"`
}

// NextMatchData is the data of a GET_NEXT_MATCH answer; [NextMatch] is nil
// when the player has no match left.
type NextMatchData struct {
	NextMatch *NextMatch `json:"next_match"`
}

// PlayerStatsData is the data of a GET_PLAYER_STATS answer.
type PlayerStatsData struct {
	PlayerID        string `json:"player_id"`
	DisplayName     string `json:"display_name,omitempty"`
	Rank            int    `json:"rank"`
	Played          int    `json:"played"`
	Wins            int    `json:"wins"`
	Draws           int    `json:"draws"`
	Losses          int    `json:"losses"`
	TechnicalLosses int    `json:"technical_losses"`
	Points          int    `json:"points"`
	// State is the player's lifecycle state as the manager sees it
	// (REGISTERED, ACTIVE, SUSPENDED, SHUTDOWN); an extension of this
	// module that other implementations may omit or ignore.
	State string `json:"state,omitempty"`
}

// ---- Acknowledgements and administration ----

// Ack (ACK) acknowledges a notification or a report. Status is [AckOK] for a
// notification, [AckRecorded] for a result recorded now and [AckDuplicate] for
// a result that had been recorded before.
type Ack struct {
	Envelope
	Status       AckStatus   `json:"status" validate:"required"`
	Acknowledged MessageType `json:"acknowledged,omitempty"`
	MatchID      string      `json:"match_id,omitempty"`
}

// AckStatus is the status of an ACK.
type AckStatus string

// Ack statuses.
const (
	AckOK        AckStatus = "OK"
	AckRecorded  AckStatus = "RECORDED"
	AckDuplicate AckStatus = "DUPLICATE"
)

// StartLeague (START_LEAGUE, method start_league) asks the manager to close
// registration and start the league. It must carry the operator's admin token.
type StartLeague struct {
	Envelope
	LeagueID string `json:"league_id,omitempty"`
}

// StartLeagueResponse (START_LEAGUE_RESPONSE) is the manager's answer to
// START_LEAGUE. Status is [StartLeagueStarted] when the call started the
// league and [StartLeagueAlreadyStarted] when it was already running or done.
type StartLeagueResponse struct {
	Envelope
	LeagueID    string            `json:"league_id"`
	Status      StartLeagueStatus `json:"status" validate:"required"`
	Players     int               `json:"players"`
	Referees    int               `json:"referees"`
	TotalRounds int               `json:"total_rounds"`
}

// StartLeagueStatus is the status of a START_LEAGUE_RESPONSE.
type StartLeagueStatus string

// START_LEAGUE_RESPONSE statuses.
const (
	StartLeagueStarted        StartLeagueStatus = "STARTED"
	StartLeagueAlreadyStarted StartLeagueStatus = "ALREADY_STARTED"
)

// StateQuery (STATE_QUERY) is the request of the debugging tools
// get_standings, get_match_state and get_player_state.
type StateQuery struct {
	Envelope
	MatchID  string `json:"match_id,omitempty"`
	PlayerID string `json:"player_id,omitempty"`
}

// StateResponse (STATE_RESPONSE) answers a debugging tool with the agent's
// state as JSON.
type StateResponse struct {
	Envelope
	State json.RawMessage `json:"state"`
}
