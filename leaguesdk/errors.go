package leaguesdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Code is an error code of the protocol's catalog, such as "E001".
type Code string

// The error catalog of league.v2.
const (
	CodeTimeout                 Code = "E001"
	CodeInvalidChoice           Code = "E002"
	CodeMissingRequiredField    Code = "E003"
	CodeInvalidParityChoice     Code = "E004"
	CodePlayerNotRegistered     Code = "E005"
	CodeMatchNotFound           Code = "E006"
	CodeOutOfTurn               Code = "E007"
	CodeDeadlinePassed          Code = "E008"
	CodeConnectionError         Code = "E009"
	CodeRateLimited             Code = "E010"
	CodeAuthTokenMissing        Code = "E011"
	CodeAuthTokenInvalid        Code = "E012"
	CodeRefereeNotRegistered    Code = "E013"
	CodeLeagueNotFound          Code = "E014"
	CodeProtocolVersionMismatch Code = "E018"
	CodeInvalidTimestamp        Code = "E021"
)

var codeNames = map[Code]string{
	CodeTimeout:                 "TIMEOUT_ERROR",
	CodeInvalidChoice:           "INVALID_CHOICE",
	CodeMissingRequiredField:    "MISSING_REQUIRED_FIELD",
	CodeInvalidParityChoice:     "INVALID_PARITY_CHOICE",
	CodePlayerNotRegistered:     "PLAYER_NOT_REGISTERED",
	CodeMatchNotFound:           "MATCH_NOT_FOUND",
	CodeOutOfTurn:               "OUT_OF_TURN",
	CodeDeadlinePassed:          "DEADLINE_PASSED",
	CodeConnectionError:         "CONNECTION_ERROR",
	CodeRateLimited:             "RATE_LIMITED",
	CodeAuthTokenMissing:        "AUTH_TOKEN_MISSING",
	CodeAuthTokenInvalid:        "AUTH_TOKEN_INVALID",
	CodeRefereeNotRegistered:    "REFEREE_NOT_REGISTERED",
	CodeLeagueNotFound:          "LEAGUE_NOT_FOUND",
	CodeProtocolVersionMismatch: "PROTOCOL_VERSION_MISMATCH",
	CodeInvalidTimestamp:        "INVALID_TIMESTAMP",
}

// Codes returns every code of the catalog, in order.
func Codes() []Code {
	return []Code{CodeTimeout, CodeInvalidChoice, CodeMissingRequiredField, CodeInvalidParityChoice,
		CodePlayerNotRegistered, CodeMatchNotFound, CodeOutOfTurn, CodeDeadlinePassed,
		CodeConnectionError, CodeRateLimited, CodeAuthTokenMissing, CodeAuthTokenInvalid,
		CodeRefereeNotRegistered, CodeLeagueNotFound, CodeProtocolVersionMismatch, CodeInvalidTimestamp}
}

// Name returns the catalog name of the code ("TIMEOUT_ERROR" for E001), or
// "UNKNOWN_ERROR" for a code outside the catalog.
func (c Code) Name() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return "UNKNOWN_ERROR"
}

// Retryable reports whether a failure with this code may be retried: only
// timeouts (E001), connection errors (E009) and rate limiting (E010).
func (c Code) Retryable() bool {
	return c == CodeTimeout || c == CodeConnectionError || c == CodeRateLimited
}

// Error is a protocol error: a catalog code with what went wrong and where.
// Every error of this package that concerns the protocol is an *Error, so
// callers can use [errors.As] or [CodeOf]. A JSON-RPC error a peer answered
// without a catalog code has an empty Code and wraps the [*RPCError].
type Error struct {
	// Code is the catalog code.
	Code Code
	// Message says what went wrong, for a person.
	Message string
	// Field is the JSON field at fault, for validation errors.
	Field string
	// Endpoint and Method name the call that failed, for client errors.
	Endpoint string
	Method   string
	// Attempt is the number of attempts made when a client call failed.
	Attempt int
	// Context carries details the peer sent with the error.
	Context map[string]any
	// Err is the underlying cause, if any.
	Err error

	// answered is set on a client's error that the peer answered: the
	// circuit breaker counts it as a success.
	answered bool
}

// NewError returns an [*Error] with the given code and message.
func NewError(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Code != "" {
		b.WriteString(string(e.Code))
		b.WriteString(" ")
		b.WriteString(e.Code.Name())
		b.WriteString(": ")
	}
	switch {
	case e.Message != "":
		b.WriteString(e.Message)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	default:
		b.WriteString("error")
	}
	if e.Endpoint != "" {
		fmt.Fprintf(&b, " (%s %s", e.Method, e.Endpoint)
		if e.Attempt > 0 {
			fmt.Fprintf(&b, ", attempt %d", e.Attempt)
		}
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the error's code may be retried.
func (e *Error) Retryable() bool { return e.Code.Retryable() }

// CodeOf returns the catalog code of err: the code of the first [*Error] in
// its chain, [CodeTimeout] for a deadline that passed, and "" otherwise.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return CodeTimeout
	}
	return ""
}

// JSON-RPC 2.0 error codes.
const (
	RPCParseError     = -32700
	RPCInvalidRequest = -32600
	RPCMethodNotFound = -32601
	RPCInvalidParams  = -32602
	RPCInternalError  = -32603
	// RPCServerError is the code under which protocol errors travel; the
	// error's data holds the LEAGUE_ERROR or GAME_ERROR message.
	RPCServerError = -32000
)

// RPCError is a JSON-RPC error object, as sent or received.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`

	// status and retryAfter, when set, are the HTTP status and the
	// Retry-After seconds a Server answers this error with.
	status     int
	retryAfter int
}

// Error implements the error interface.
func (e *RPCError) Error() string {
	return fmt.Sprintf("json-rpc error %d: %s", e.Code, e.Message)
}
