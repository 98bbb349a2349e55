package leaguesdk

import "encoding/json"

// MessageTypeOf returns the message type of a message value of this
// package (a pointer or a value), or "" for any other value.
func MessageTypeOf(v any) MessageType {
	switch v.(type) {
	case *RefereeRegisterRequest, RefereeRegisterRequest:
		return MsgRefereeRegisterRequest
	case *RefereeRegisterResponse, RefereeRegisterResponse:
		return MsgRefereeRegisterResponse
	case *LeagueRegisterRequest, LeagueRegisterRequest:
		return MsgLeagueRegisterRequest
	case *LeagueRegisterResponse, LeagueRegisterResponse:
		return MsgLeagueRegisterResponse
	case *RoundAnnouncement, RoundAnnouncement:
		return MsgRoundAnnouncement
	case *RoundCompleted, RoundCompleted:
		return MsgRoundCompleted
	case *LeagueCompleted, LeagueCompleted:
		return MsgLeagueCompleted
	case *GameInvitation, GameInvitation:
		return MsgGameInvitation
	case *GameJoinAck, GameJoinAck:
		return MsgGameJoinAck
	case *ChooseParityCall, ChooseParityCall:
		return MsgChooseParityCall
	case *ChooseParityResponse, ChooseParityResponse:
		return MsgChooseParityResponse
	case *GameOver, GameOver:
		return MsgGameOver
	case *MatchResultReport, MatchResultReport:
		return MsgMatchResultReport
	case *LeagueStandingsUpdate, LeagueStandingsUpdate:
		return MsgLeagueStandingsUpdate
	case *LeagueError, LeagueError:
		return MsgLeagueError
	case *GameError, GameError:
		return MsgGameError
	case *LeagueQuery, LeagueQuery:
		return MsgLeagueQuery
	case *LeagueQueryResponse, LeagueQueryResponse:
		return MsgLeagueQueryResponse
	case *GameMoveCall, GameMoveCall:
		return MsgGameMoveCall
	case *GameMoveResponse, GameMoveResponse:
		return MsgGameMoveResponse
	case *StartMatch, StartMatch:
		return MsgStartMatch
	case *StartMatchResponse, StartMatchResponse:
		return MsgStartMatchResponse
	case *StartLeague, StartLeague:
		return MsgStartLeague
	case *StartLeagueResponse, StartLeagueResponse:
		return MsgStartLeagueResponse
	case *Ack, Ack:
		return MsgAck
	case *StateQuery, StateQuery:
		return MsgStateQuery
	case *StateResponse, StateResponse:
		return MsgStateResponse
	}
	return ""
}

// NewMessage returns a new, empty message of type t, or nil for a type
// this package does not define.
func NewMessage(t MessageType) Message {
	switch t {
	case MsgRefereeRegisterRequest:
		return new(RefereeRegisterRequest)
	case MsgRefereeRegisterResponse:
		return new(RefereeRegisterResponse)
	case MsgLeagueRegisterRequest:
		return new(LeagueRegisterRequest)
	case MsgLeagueRegisterResponse:
		return new(LeagueRegisterResponse)
	case MsgRoundAnnouncement:
		return new(RoundAnnouncement)
	case MsgRoundCompleted:
		return new(RoundCompleted)
	case MsgLeagueCompleted:
		return new(LeagueCompleted)
	case MsgGameInvitation:
		return new(GameInvitation)
	case MsgGameJoinAck:
		return new(GameJoinAck)
	case MsgChooseParityCall:
		return new(ChooseParityCall)
	case MsgChooseParityResponse:
		return new(ChooseParityResponse)
	case MsgGameOver:
		return new(GameOver)
	case MsgMatchResultReport:
		return new(MatchResultReport)
	case MsgLeagueStandingsUpdate:
		return new(LeagueStandingsUpdate)
	case MsgLeagueError:
		return new(LeagueError)
	case MsgGameError:
		return new(GameError)
	case MsgLeagueQuery:
		return new(LeagueQuery)
	case MsgLeagueQueryResponse:
		return new(LeagueQueryResponse)
	case MsgGameMoveCall:
		return new(GameMoveCall)
	case MsgGameMoveResponse:
		return new(GameMoveResponse)
	case MsgStartMatch:
		return new(StartMatch)
	case MsgStartMatchResponse:
		return new(StartMatchResponse)
	case MsgStartLeague:
		return new(StartLeague)
	case MsgStartLeagueResponse:
		return new(StartLeagueResponse)
	case MsgAck:
		return new(Ack)
	case MsgStateQuery:
		return new(StateQuery)
	case MsgStateResponse:
		return new(StateResponse)
	}
	return nil
}

// MessageTypes returns every message type this package defines: the 18 of
// the protocol, the generic move pair, and this module's additions.
func MessageTypes() []MessageType {
	return []MessageType{
		MsgRefereeRegisterRequest, MsgRefereeRegisterResponse, MsgLeagueRegisterRequest, MsgLeagueRegisterResponse,
		MsgRoundAnnouncement, MsgRoundCompleted, MsgLeagueCompleted, MsgGameInvitation, MsgGameJoinAck,
		MsgChooseParityCall, MsgChooseParityResponse, MsgGameOver, MsgMatchResultReport, MsgLeagueStandingsUpdate,
		MsgLeagueError, MsgGameError, MsgLeagueQuery, MsgLeagueQueryResponse, MsgGameMoveCall, MsgGameMoveResponse,
		MsgStartMatch, MsgStartMatchResponse, MsgStartLeague, MsgStartLeagueResponse, MsgAck, MsgStateQuery, MsgStateResponse,
	}
}

// objectSchema is the input schema of a tool whose input is not one of
// this package's messages: any JSON object.
const objectSchema = `{"type":"object"}`

// inputSchema returns the JSON Schema tools/list shows for a tool whose
// input is in (a pointer to the handler's input type): the schema of its
// message type when in is one of this package's messages, generated once
// from the Go type (zz_schemas.go), and objectSchema for any other type.
func inputSchema(in any) json.RawMessage {
	if s := messageSchema(MessageTypeOf(in)); s != "" {
		return json.RawMessage(s)
	}
	return json.RawMessage(objectSchema)
}
