package leaguesdk

import "encoding/json"

// LocateMessage finds the protocol message in a request's params the way a
// Server does: params itself when it names a message_type, else
// params.message, params.arguments or params.payload. It returns the
// message and its type ("" when none is named). Agents that answer
// requests no tool serves (a player acknowledging notifications it does not
// know) use it to read them as the Server would.
func LocateMessage(params json.RawMessage) (json.RawMessage, MessageType) {
	msg, t := locateMessage(params)
	return msg, MessageType(t)
}
