package leaguesdk

import (
	"encoding/json"
	"reflect"
	"strings"
)

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

var (
	rawMessageType = reflect.TypeOf(json.RawMessage(nil))
	roundIDType    = reflect.TypeOf(RoundID(0))
	optionalType   = reflect.TypeOf(OptionalString(""))
)

// schemaFor returns a JSON Schema of t's JSON form, as tools/list shows it.
func schemaFor(t reflect.Type) json.RawMessage {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	s := map[string]any{"type": "object"}
	if t != nil && t.Kind() == reflect.Struct {
		s = schemaOf(t, 0)
	}
	b, _ := json.Marshal(s)
	return b
}

func schemaOf(t reflect.Type, depth int) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case rawMessageType:
		return map[string]any{}
	case roundIDType:
		return map[string]any{"type": []string{"integer", "string"}}
	case optionalType:
		return map[string]any{"type": []string{"string", "null"}}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), depth+1)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), depth+1)}
	case reflect.Struct:
		if depth > 8 {
			return map[string]any{"type": "object"}
		}
		props := map[string]any{}
		var required []string
		addStructFields(t, depth, props, &required)
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	return map[string]any{}
}

func addStructFields(t reflect.Type, depth int, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addStructFields(f.Type, depth, props, required)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = schemaOf(f.Type, depth+1)
		if rules := f.Tag.Get("validate"); rules == "required" || strings.HasPrefix(rules, "required,") {
			*required = append(*required, name)
		}
	}
}
