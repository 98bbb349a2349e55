package referee

import (
	"sync"

	"github.com/agentleague/league/leaguesdk"
)

// Kinds of awaited player answers.
const (
	kindJoin = "join"
	kindMove = "move"
)

// maxOrphans bounds the callbacks held per match and kind while their
// sender is not known yet.
const maxOrphans = 4

// waitKey names the answers of one kind awaited in one match.
type waitKey struct {
	matchID, kind string
}

// wait is one awaited answer: from playerID (or from alias, the id the
// player was seen to answer under), delivered on ch.
type wait struct {
	players  [2]string // both players of the match
	playerID string
	alias    string
	ch       chan reply
	rec      *recorder
	stop     func() // ends the call the wait's answer may also come back on
}

// give hands p to w unless an answer already waits to be read, and ends
// w's call: the answer is in. It reports whether p was handed over.
func (w *wait) give(p reply) bool {
	select {
	case w.ch <- p:
		if w.stop != nil {
			w.stop()
		}
		return true
	default:
		return false
	}
}

func (w *wait) names(id string) bool { return id != "" && (id == w.playerID || id == w.alias) }

// hub hands callbacks — GAME_JOIN_ACK, CHOOSE_PARITY_RESPONSE and
// GAME_MOVE_RESPONSE arriving as requests of their own — to the match
// waiting for them. A callback is matched by match_id and by player_id or
// its sender's id. When it names neither player of the match (a foreign
// player that kept an id of its own), it goes to the only player awaited,
// or is held until a direct reply shows which player answers under that id.
type hub struct {
	mu      sync.Mutex
	waits   map[waitKey][]*wait
	orphans map[waitKey][]reply
}

// expect registers a wait for player i's answer and returns it.
// A callback handed to it calls stop (which may be nil): the direct call
// it also waits for is no longer needed.
func (h *hub) expect(k waitKey, players [2]string, i int, alias string, rec *recorder, stop func()) *wait {
	w := &wait{players: players, playerID: players[i], alias: alias, ch: make(chan reply, 1), rec: rec, stop: stop}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.waits == nil {
		h.waits = map[waitKey][]*wait{}
		h.orphans = map[waitKey][]reply{}
	}
	h.waits[k] = append(h.waits[k], w)
	h.claimLocked(k, w)
	return w
}

// done ends a wait. Held callbacks of k go when nothing of k is awaited.
func (h *hub) done(k waitKey, w *wait) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := h.waits[k]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(h.waits, k)
		delete(h.orphans, k)
		return
	}
	h.waits[k] = ws
}

// learn records that w's player answers under alias, and hands it a held
// callback sent under that id, if any.
func (h *hub) learn(k waitKey, w *wait, alias string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	w.alias = alias
	h.claimLocked(k, w)
}

func (h *hub) claimLocked(k waitKey, w *wait) {
	held := h.orphans[k]
	for i, p := range held {
		if w.names(p.playerID) || w.names(p.senderID) {
			if w.give(p) {
				h.orphans[k] = append(held[:i:i], held[i+1:]...)
			}
			return
		}
	}
}

// reply is a player's answer as the referee reads it: the direct reply to
// GAME_INVITATION (a GAME_JOIN_ACK) or to a move call (a
// CHOOSE_PARITY_RESPONSE or GAME_MOVE_RESPONSE), or the same message
// arriving later as a request of its own (callback style). The message
// types' decoding reads every shape a player may send.
type reply struct {
	join     *leaguesdk.GameJoinAck          // the answer to an invitation
	move     *leaguesdk.ChooseParityResponse // the answer to a move call
	playerID string                          // player_id, as sent
	senderID string                          // the id of the sender
}

func joinReply(a *leaguesdk.GameJoinAck) reply {
	_, id := leaguesdk.SplitSender(a.Sender)
	return reply{join: a, playerID: a.PlayerID, senderID: id}
}

func moveReply(r *leaguesdk.ChooseParityResponse) reply {
	_, id := leaguesdk.SplitSender(r.Sender)
	return reply{move: r, playerID: r.PlayerID, senderID: id}
}

// player returns the player a reply names: player_id, else the id of its
// sender.
func (p reply) player() string {
	if p.playerID != "" {
		return p.playerID
	}
	return p.senderID
}

// answers reports whether the reply holds an answer; a reply without one
// is a bare acknowledgement, and the answer may come as a callback.
func (p reply) answers() bool {
	var ok bool
	switch {
	case p.join != nil:
		_, ok, _ = p.join.Answer()
	case p.move != nil:
		_, ok, _ = p.move.Choice()
	}
	return ok
}

// Outcomes of hub.deliver.
const (
	notAwaited = iota // nothing of this kind is awaited in this match
	delivered         // handed to the waiting match
	held              // kept until the sender is known
)

// deliver hands a callback to the wait it answers. It returns what became
// of it and the recorder of the match it belongs to (nil when notAwaited).
func (h *hub) deliver(k waitKey, p reply) (int, *recorder) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ws := h.waits[k]
	if len(ws) == 0 {
		return notAwaited, nil
	}
	rec := ws[0].rec
	ids := []string{p.playerID, p.senderID}
	send := func(w *wait) int {
		if w.give(p) {
			return delivered
		}
		return notAwaited // an answer is already waiting to be read
	}
	for _, w := range ws {
		if w.names(ids[0]) || w.names(ids[1]) {
			return send(w), rec
		}
	}
	for _, id := range ids {
		if id != "" && (id == ws[0].players[0] || id == ws[0].players[1]) {
			return notAwaited, nil // names a player of the match who is not awaited
		}
	}
	if len(ws) == 1 {
		return send(ws[0]), rec
	}
	if len(h.orphans[k]) >= maxOrphans {
		return notAwaited, nil
	}
	h.orphans[k] = append(h.orphans[k], p)
	return held, rec
}
