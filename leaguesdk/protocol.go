package leaguesdk

import "time"

// Version is the version of this module, github.com/agentleague/league: the
// tag vX.Y.Z of its release without the "v". Every agent of the module
// declares it as its software version unless configured otherwise (the
// referee's and the player's registration metadata, the serverInfo answered
// to MCP clients) and sends it in its User-Agent. It is not the protocol's
// version: that is [ProtocolVersion].
const Version = "0.1.0"

// Protocol is the value of the envelope's protocol field on every message.
const Protocol = "league.v2"

// ProtocolVersion is the protocol version the agents of this module declare
// in registration requests.
const ProtocolVersion = "2.1.0"

// MinProtocolVersion is the oldest protocol version a manager of this module
// accepts at registration; older declarations are refused with E018.
const MinProtocolVersion = "2.0.0"

// LeagueManagerSender is the sender value of every message the league manager sends.
const LeagueManagerSender = "league_manager"

// MessageType names a protocol message; it is the value of the envelope's
// message_type field.
type MessageType string

// The message types of league.v2.
const (
	MsgRefereeRegisterRequest  MessageType = "REFEREE_REGISTER_REQUEST"
	MsgRefereeRegisterResponse MessageType = "REFEREE_REGISTER_RESPONSE"
	MsgLeagueRegisterRequest   MessageType = "LEAGUE_REGISTER_REQUEST"
	MsgLeagueRegisterResponse  MessageType = "LEAGUE_REGISTER_RESPONSE"
	MsgRoundAnnouncement       MessageType = "ROUND_ANNOUNCEMENT"
	MsgRoundCompleted          MessageType = "ROUND_COMPLETED"
	MsgLeagueCompleted         MessageType = "LEAGUE_COMPLETED"
	MsgGameInvitation          MessageType = "GAME_INVITATION"
	MsgGameJoinAck             MessageType = "GAME_JOIN_ACK"
	MsgChooseParityCall        MessageType = "CHOOSE_PARITY_CALL"
	MsgChooseParityResponse    MessageType = "CHOOSE_PARITY_RESPONSE"
	MsgGameOver                MessageType = "GAME_OVER"
	MsgMatchResultReport       MessageType = "MATCH_RESULT_REPORT"
	MsgLeagueStandingsUpdate   MessageType = "LEAGUE_STANDINGS_UPDATE"
	MsgLeagueError             MessageType = "LEAGUE_ERROR"
	MsgGameError               MessageType = "GAME_ERROR"
	MsgLeagueQuery             MessageType = "LEAGUE_QUERY"
	MsgLeagueQueryResponse     MessageType = "LEAGUE_QUERY_RESPONSE"
	MsgGameMoveCall            MessageType = "GAME_MOVE_CALL"
	MsgGameMoveResponse        MessageType = "GAME_MOVE_RESPONSE"
	MsgStartMatch              MessageType = "START_MATCH"
	MsgStartMatchResponse      MessageType = "START_MATCH_RESPONSE"
	MsgStartLeague             MessageType = "START_LEAGUE"
	MsgStartLeagueResponse     MessageType = "START_LEAGUE_RESPONSE"
	MsgAck                     MessageType = "ACK"
	MsgStateQuery              MessageType = "STATE_QUERY"
	MsgStateResponse           MessageType = "STATE_RESPONSE"
)

// JSON-RPC method names the agents of this module send and serve.
const (
	MethodRegisterReferee       = "register_referee"
	MethodRegisterPlayer        = "register_player"
	MethodNotifyRound           = "notify_round"
	MethodStartMatch            = "start_match"
	MethodHandleGameInvitation  = "handle_game_invitation"
	MethodChooseParity          = "choose_parity"
	MethodMakeMove              = "make_move"
	MethodNotifyMatchResult     = "notify_match_result"
	MethodNotifyGameError       = "notify_game_error"
	MethodReportMatchResult     = "report_match_result"
	MethodUpdateStandings       = "update_standings"
	MethodNotifyRoundCompleted  = "notify_round_completed"
	MethodNotifyLeagueCompleted = "notify_league_completed"
	MethodLeagueQuery           = "league_query"
	MethodStartLeague           = "start_league"
	MethodGameJoinAck           = "game_join_ack"
	MethodChooseParityResponse  = "choose_parity_response"
	MethodGetStandings          = "get_standings"
	MethodGetMatchState         = "get_match_state"
	MethodGetPlayerState        = "get_player_state"
)

// Parity is a player's choice in the even/odd game: exactly "even" or "odd".
type Parity string

// The two parities. Nothing else is a valid choice; in particular the
// protocol is case sensitive ("EVEN" is invalid).
const (
	Even Parity = "even"
	Odd  Parity = "odd"
)

// Valid reports whether p is exactly "even" or "odd".
func (p Parity) Valid() bool { return p == Even || p == Odd }

// Other returns the opposite parity ([Odd] for [Even] and Even for anything else).
func (p Parity) Other() Parity {
	if p == Even {
		return Odd
	}
	return Even
}

// ParityOf returns the parity of n.
func ParityOf(n int) Parity {
	if n%2 == 0 {
		return Even
	}
	return Odd
}

// ParseParity returns the parity s names, or an [*Error] with code E004 when s
// is not exactly "even" or "odd".
func ParseParity(s string) (Parity, error) {
	p := Parity(s)
	if !p.Valid() {
		return "", &Error{Code: CodeInvalidParityChoice, Field: "parity_choice",
			Message: `parity_choice must be exactly "even" or "odd", got ` + quote(s)}
	}
	return p, nil
}

// RegistrationStatus is the status of a registration response.
type RegistrationStatus string

// Registration statuses. [StatusRegistered] is accepted as a synonym of
// [StatusAccepted] when reading replies from other implementations.
const (
	StatusAccepted   RegistrationStatus = "ACCEPTED"
	StatusRejected   RegistrationStatus = "REJECTED"
	StatusRegistered RegistrationStatus = "REGISTERED"
)

// Accepted reports whether the status means the registration succeeded.
func (s RegistrationStatus) Accepted() bool { return s == StatusAccepted || s == StatusRegistered }

// ResultStatus is the outcome of a game in GAME_OVER.
type ResultStatus string

// Game outcomes.
const (
	ResultWin           ResultStatus = "WIN"
	ResultDraw          ResultStatus = "DRAW"
	ResultTechnicalLoss ResultStatus = "TECHNICAL_LOSS"
)

// Role is a player's role in a match.
type Role string

// The two roles of a two-player match.
const (
	PlayerA Role = "PLAYER_A"
	PlayerB Role = "PLAYER_B"
)

// QueryType selects what a LEAGUE_QUERY asks for.
type QueryType string

// The query types a manager answers.
const (
	QueryStandings   QueryType = "GET_STANDINGS"
	QuerySchedule    QueryType = "GET_SCHEDULE"
	QueryNextMatch   QueryType = "GET_NEXT_MATCH"
	QueryPlayerStats QueryType = "GET_PLAYER_STATS"
)

// GameEvenOdd is the game type of the even/odd game.
const GameEvenOdd = "even_odd"

// Default deadlines of the protocol. Every agent of this module lets them be
// configured; these are the values used when nothing is set.
const (
	DefaultRegistrationTimeout time.Duration = 10 * time.Second
	DefaultJoinTimeout         time.Duration = 5 * time.Second
	DefaultChoiceTimeout       time.Duration = 30 * time.Second
	DefaultGameOverTimeout     time.Duration = 5 * time.Second
	DefaultReportTimeout       time.Duration = 10 * time.Second
	DefaultQueryTimeout        time.Duration = 10 * time.Second
	DefaultTimeout             time.Duration = 10 * time.Second
)
