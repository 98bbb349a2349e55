package leaguesdk

import (
	"context"
	"encoding/json"
)

// MethodOf returns the JSON-RPC method a request of message type t is
// sent with, or "" for a type that is only ever a reply. STATE_QUERY is
// sent as get_match_state; a caller asking another query method uses
// [Client.Call].
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

// CallOptions are the settings of one call made with [CallWith]. The zero
// value makes the call as [Call] does.
type CallOptions struct {
	// Method is the JSON-RPC method to send with. Default [MethodOf] the
	// message's type; set it for a method that shares its request type
	// with another (get_standings and get_player_state send a STATE_QUERY
	// like get_match_state).
	Method string
	// Retry replaces the client's [RetryPolicy] for this call; its zero
	// fields take the same defaults ([NoRetries] for a single attempt,
	// [RetryUntilDone] to retry until the context ends).
	Retry *RetryPolicy
}

// Response is a reply a [Client] received: the message decoded, with the
// bytes it was decoded from, as connect-go's Response carries its headers
// beside the message. Raw is the reply message as the peer sent it (the
// message itself, out of whatever JSON-RPC or MCP wrapping it came in),
// for a caller that records what it received; it must not be changed.
type Response[T any] struct {
	// Msg is the reply message.
	Msg *T
	// Raw is the reply message's JSON text as received.
	Raw json.RawMessage
	// Form is the wire form of the request the peer answered.
	Form WireForm
}

// Call sends the request message in to endpoint with the method of its
// message type (see [MethodOf]) and returns the reply decoded as an Out.
// Retries, wire-form fallback and errors are those of [Client.Call]; a
// value whose type has no method is refused with an [*Error] of code
// [CodeMissingRequiredField] before anything is sent.
func Call[Out any](ctx context.Context, c *Client, endpoint string, in any) (*Out, error) {
	return CallWith[Out](ctx, c, endpoint, in, CallOptions{})
}

// CallWith is [Call] with per-call settings: another method, another retry
// policy (one attempt, a timeout per attempt, retries until the context
// ends, a hook told of each retry).
func CallWith[Out any](ctx context.Context, c *Client, endpoint string, in any, opts CallOptions) (*Out, error) {
	resp, err := CallResponse[Out](ctx, c, endpoint, in, opts)
	if err != nil {
		return nil, err
	}
	return resp.Msg, nil
}

// CallResponse is [CallWith] returning the whole [Response]: the reply
// message with the bytes it was read from. When the peer answered a
// message that does not decode as an Out, CallResponse returns the
// Response (its Msg holds what did decode; a message type's own decoding
// reads all it can) with an [*Error] of code [CodeMissingRequiredField];
// on any other error the Response is nil. A request given as a
// [json.RawMessage] is sent as it is (opts.Method then names the method,
// unless the message's type does).
func CallResponse[Out any](ctx context.Context, c *Client, endpoint string, in any, opts CallOptions) (*Response[Out], error) {
	method := opts.Method
	if method == "" {
		method = MethodOf(MessageTypeOf(in))
	}
	if method == "" {
		return nil, &Error{Code: CodeMissingRequiredField, Field: "message_type", Endpoint: endpoint, Message: "no method for a request of this type"}
	}
	policy := c.cfg.Retry
	if opts.Retry != nil {
		policy = opts.Retry.withDefaults()
	}
	out := new(Out)
	x, err := c.call(ctx, endpoint, method, in, out, policy)
	if err != nil && !x.undecoded {
		return nil, err
	}
	return &Response[Out]{Msg: out, Raw: x.raw, Form: x.form}, err
}

// Once is the [RetryPolicy] of a call made a single time (the wire-form
// fallback still applies).
func Once() *RetryPolicy { return &RetryPolicy{MaxRetries: NoRetries} }
