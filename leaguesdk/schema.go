package leaguesdk

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
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

// schemaTypes are the types whose JSON form is not their Go kind's: a raw
// message or an interface is any JSON value (described rather than left
// empty, which the library writes as the schema true), a [RoundID]
// is received as an integer or a numeric string, an [OptionalString] is
// sent as null when empty.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
	reflect.TypeFor[any]():             {Description: "any JSON value"},
	reflect.TypeFor[RoundID]():         {Types: []string{"integer", "string"}},
	reflect.TypeFor[OptionalString]():  {Types: []string{"string", "null"}},
}

// schemaFor returns a JSON Schema of t's JSON form, as tools/list shows it.
// The library infers the types; two of its choices are changed to match
// how messages are received (tolerantly, docs/protocol.md): an
// object accepts properties it does not name, and the required properties
// are those the message's validation requires (its validate tags), not every
// field without omitempty.
func schemaFor(t reflect.Type) json.RawMessage {
	s := &jsonschema.Schema{Type: "object"}
	if t != nil {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct {
			if inferred, err := jsonschema.ForType(t, &jsonschema.ForOptions{IgnoreInvalidTypes: true, TypeSchemas: schemaTypes}); err == nil {
				s = inferred
				tolerate(t, s)
			}
		}
	}
	b, _ := json.Marshal(s)
	return b
}

// tolerate walks s beside the type t it was inferred from: it lets every
// object take properties it does not name and requires of it what the
// validate tags require.
func tolerate(t reflect.Type, s *jsonschema.Schema) {
	if s == nil || schemaTypes[t] != nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		tolerate(t.Elem(), s.Items)
	case reflect.Map:
		tolerate(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		s.AdditionalProperties = nil
		s.Required = nil
		for _, f := range reflect.VisibleFields(t) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous || !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			prop, ok := s.Properties[name]
			if !ok {
				continue
			}
			tolerate(f.Type, prop)
			if rules := f.Tag.Get("validate"); rules == "required" || strings.HasPrefix(rules, "required,") {
				s.Required = append(s.Required, name)
			}
		}
	}
}
