package player

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/agentleague/league/leaguesdk"
)

// ackUnknown acknowledges the notifications the player has no tool for (a
// message type of a newer protocol, another implementation's broadcast),
// as the profile asks of players, and passes everything else to the
// protocol server. A request is such a notification when its method names
// no tool of the player and it carries a protocol message of a type no tool
// takes, or its method starts with "notify". Anything else unknown (an MCP
// method such as server/discover) still gets "method not found".
type ackUnknown struct {
	agent *Agent
	next  *leaguesdk.Server
}

func (h *ackUnknown) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if r.Method != http.MethodPost || !(path == "" || strings.HasSuffix(path, "/mcp")) {
		h.next.ServeHTTP(w, r)
		return
	}
	// Read no more than the server would; a larger body goes on, replayed,
	// for the server to refuse.
	head, err := io.ReadAll(io.LimitReader(r.Body, leaguesdk.DefaultMaxBodyBytes+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil || len(head) > leaguesdk.DefaultMaxBodyBytes {
		h.next.ServeHTTP(w, r)
		return
	}
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(head, &req) != nil || req.Method == "" {
		h.next.ServeHTTP(w, r)
		return
	}
	method, params, toolCall := req.Method, req.Params, false
	if method == "tools/call" {
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(params, &call) != nil || call.Name == "" {
			h.next.ServeHTTP(w, r)
			return
		}
		method, params, toolCall = call.Name, call.Arguments, true
	}
	msg, msgType := leaguesdk.LocateMessage(params)
	if !h.unknownNotification(method, msgType, toolCall) {
		h.next.ServeHTTP(w, r)
		return
	}
	var env leaguesdk.Envelope
	_ = json.Unmarshal(msg, &env)
	h.agent.log.Info("unknown notification acknowledged", slog.String("method", req.Method),
		slog.String("message_type", string(msgType)), slog.String("sender", env.Sender))
	if len(req.ID) == 0 { // a JSON-RPC notification gets no body
		w.WriteHeader(http.StatusAccepted)
		return
	}
	ack := &leaguesdk.Ack{Envelope: h.agent.reply(leaguesdk.MsgAck, env.ConversationID), Status: leaguesdk.AckOK, Acknowledged: msgType}
	ack.AuthToken = h.agent.replyToken(&env) // the player's token only to its manager
	ackJSON, _ := json.Marshal(ack)
	result := json.RawMessage(ackJSON)
	if toolCall {
		result, _ = json.Marshal(map[string]any{
			"content":           []map[string]string{{"type": "text", "text": string(ackJSON)}},
			"structuredContent": result,
		})
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  json.RawMessage `json:"result"`
	}{"2.0", req.ID, result})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

// unknownNotification reports whether a request (method, or tool name of a
// tools/call) is a notification no tool of the player serves.
func (h *ackUnknown) unknownNotification(method string, msgType leaguesdk.MessageType, toolCall bool) bool {
	lower := strings.ToLower(method)
	switch lower {
	case "initialize", "ping", "tools/list":
		return false
	}
	if strings.HasPrefix(lower, "notifications/") {
		return false
	}
	for _, t := range h.next.Tools() {
		if strings.EqualFold(t.Name, method) {
			return false
		}
		for _, alias := range t.Aliases {
			if strings.EqualFold(alias, method) {
				return false
			}
		}
		for _, mt := range t.MessageTypes {
			if mt == msgType || (!toolCall && strings.EqualFold(string(mt), method)) {
				return false
			}
		}
	}
	return msgType != "" || strings.HasPrefix(lower, "notify")
}
