package agentkit

import (
	"strconv"
	"sync"

	"github.com/agentleague/league/leaguesdk"
)

// Tokens binds each issued token to exactly one agent id. It is safe for
// concurrent use. The zero value is ready to use.
type Tokens struct {
	mu    sync.RWMutex
	byID  map[string]string // agent id → token
	owner map[string]string // token → agent id
}

// Issue creates a token for agentID, replacing any token it had, and returns it.
func (t *Tokens) Issue(agentID string) string {
	tok := leaguesdk.NewToken()
	t.Bind(agentID, tok)
	return tok
}

// Bind records token as agentID's token, replacing any token it had; used to
// restore tokens when a manager resumes a league.
func (t *Tokens) Bind(agentID, token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = make(map[string]string)
		t.owner = make(map[string]string)
	}
	if old, ok := t.byID[agentID]; ok {
		delete(t.owner, old)
	}
	t.byID[agentID] = token
	t.owner[token] = agentID
}

// Revoke removes agentID's token.
func (t *Tokens) Revoke(agentID string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if old, ok := t.byID[agentID]; ok {
		delete(t.owner, old)
		delete(t.byID, agentID)
	}
}

// Token returns agentID's token, if it has one.
func (t *Tokens) Token(agentID string) (string, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	tok, ok := t.byID[agentID]
	return tok, ok
}

// Owner returns the agent id token is bound to. The look-up compares the
// presented token in constant time against the one stored for that id.
func (t *Tokens) Owner(token string) (string, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	id, ok := t.owner[token]
	if !ok {
		return "", false
	}
	return id, leaguesdk.TokensEqual(t.byID[id], token)
}

// Verify checks that token is present (else E011), was issued by this
// registry (else E012) and belongs to the agent that sender names (else
// E012: a valid token cannot speak for another agent). It returns the agent id.
func (t *Tokens) Verify(sender, token string) (string, error) {
	if token == "" {
		return "", &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenMissing, Field: "auth_token", Message: "auth_token is required after registration"}
	}
	id, ok := t.Owner(token)
	if !ok {
		return "", &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "auth_token", Message: "auth_token is not valid in this league"}
	}
	if _, sid := leaguesdk.SplitSender(sender); sid != id {
		return "", &leaguesdk.Error{Code: leaguesdk.CodeAuthTokenInvalid, Field: "sender",
			Message: "auth_token does not belong to sender " + quoteSender(sender)}
	}
	return id, nil
}

// quoteSender quotes a sender for an error message, cut to 64 bytes.
func quoteSender(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strconv.Quote(s)
}
