package leaguesdk

import (
	"slices"
	"strings"
)

// foreignTools maps the tool names other implementations serve a
// message under (and call a peer's tool by) to the message's type: an
// MCP-native implementation calls and answers nothing but tools/call,
// under names of its own.
var foreignTools = map[string]string{
	"receive_game_invitation": "GAME_INVITATION",
	"receive_game_over":       "GAME_OVER",
	"notify_game_over":        "GAME_OVER",
	"notify_standings":        "LEAGUE_STANDINGS_UPDATE",
	"receive_standings":       "LEAGUE_STANDINGS_UPDATE",
	"handle_league_query":     "LEAGUE_QUERY",
	"receive_game_error":      "GAME_ERROR",
}

// foreignTool returns the message type another implementation's tool
// name stands for ("receive_game_invitation" → GAME_INVITATION), "" for
// a name the table does not hold. Names are compared case-insensitively.
func foreignTool(name string) string { return foreignTools[strings.ToLower(name)] }

// routeTool picks the tool of a tools/call, as routeCall does for the
// other forms: the tool the call names when it takes the message the
// arguments carry (or they carry none, or no tool takes it); else the
// tool that takes the message's type; else, for a message that names no
// type, the tool that takes the type another implementation's name stands
// for (foreignTool) or the type the name spells ("game_over"). The
// message type decides; the name is a hint.
func (s *Server) routeTool(c *wireCall) *route {
	name := strings.ToLower(c.Tool)
	t := c.MessageType
	byName := s.routeNamed(name)
	byType := s.routeTyped(t)
	switch {
	case byName != nil && (t == "" || byName.types[MessageType(t)] || byType == nil):
		return byName
	case byType != nil:
		return byType
	case t != "":
		return nil // a message no tool takes, under a name none has
	}
	if ft := foreignTool(name); ft != "" {
		if rt := s.routeTyped(ft); rt != nil {
			return rt
		}
	}
	return s.routeTyped(strings.ToUpper(name))
}

// genericWords are the words of a message type that a tool name for it
// may leave out: CHOOSE_PARITY_CALL is served as "choose_parity".
var genericWords = []string{"call", "request", "response"}

// toolFor picks, among the tools a peer lists, the one to send a message
// of type messageType (spec method method) under when the peer refuses
// the spec name in every form: a name of the foreignTools table for the
// message type, else the shortest name that holds every word of the
// message type ("game_invitation" in "receive_game_invitation"), the
// generic ones (call, request, response) aside. It returns "" when none
// fits, or when the fit is the method itself (which the peer refused).
func toolFor(tools []string, method, messageType string) string {
	if messageType == "" {
		return ""
	}
	pick := ""
	for _, name := range tools {
		if strings.EqualFold(name, method) {
			continue
		}
		if strings.EqualFold(foreignTool(name), messageType) {
			return name
		}
		if holdsWords(strings.ToLower(name), messageType) && (pick == "" || len(name) < len(pick)) {
			pick = name
		}
	}
	return pick
}

// holdsWords reports whether the lower-case tool name holds every word
// of messageType but the generic ones.
func holdsWords(name, messageType string) bool {
	words := 0
	for w := range strings.SplitSeq(strings.ToLower(messageType), "_") {
		if w == "" || slices.Contains(genericWords, w) {
			continue
		}
		if !strings.Contains(name, w) {
			return false
		}
		words++
	}
	return words > 0
}
