package leaguesdk

import "context"

// MethodOf returns the JSON-RPC method a request of message type t is
// sent with, or "" for a type that is only ever a reply. STATE_QUERY is
// sent as get_match_state; a caller asking another query method uses
// Client.Call.
func MethodOf(t MessageType) string {
	switch t {
	case MsgRefereeRegisterRequest:
		return MethodRegisterReferee
	case MsgLeagueRegisterRequest:
		return MethodRegisterPlayer
	case MsgRoundAnnouncement:
		return MethodNotifyRound
	case MsgStartMatch:
		return MethodStartMatch
	case MsgGameInvitation:
		return MethodHandleGameInvitation
	case MsgChooseParityCall:
		return MethodChooseParity
	case MsgGameMoveCall:
		return MethodMakeMove
	case MsgGameOver:
		return MethodNotifyMatchResult
	case MsgGameError:
		return MethodNotifyGameError
	case MsgMatchResultReport:
		return MethodReportMatchResult
	case MsgLeagueStandingsUpdate:
		return MethodUpdateStandings
	case MsgRoundCompleted:
		return MethodNotifyRoundCompleted
	case MsgLeagueCompleted:
		return MethodNotifyLeagueCompleted
	case MsgLeagueQuery:
		return MethodLeagueQuery
	case MsgStartLeague:
		return MethodStartLeague
	case MsgStateQuery:
		return MethodGetMatchState
	}
	return ""
}

// Call sends the request message in to endpoint with the method of its
// message type (see MethodOf) and returns the reply decoded as an Out.
// Retries, wire-form fallback and errors are those of Client.Call; a
// value whose type has no method is refused with an *Error of code
// CodeMissingRequiredField before anything is sent.
func Call[Out any](ctx context.Context, c *Client, endpoint string, in any) (*Out, error) {
	method := MethodOf(MessageTypeOf(in))
	if method == "" {
		return nil, &Error{Code: CodeMissingRequiredField, Field: "message_type", Endpoint: endpoint, Message: "no method for a request of this type"}
	}
	out := new(Out)
	if err := c.Call(ctx, endpoint, method, in, out); err != nil {
		return nil, err
	}
	return out, nil
}
