package player

import "slices"

// State is what the player is doing, as it sees itself.
type State string

// The player's states: IDLE between matches, INVITED once it joined a
// match and waits for the move call, PLAYING while it chooses, and
// AWAITING_RESULT once it answered and waits for GAME_OVER.
const (
	StateIdle           State = "IDLE"
	StateInvited        State = "INVITED"
	StatePlaying        State = "PLAYING"
	StateAwaitingResult State = "AWAITING_RESULT"
)

// rank orders the states: with several matches at once the player shows
// the most advanced.
func (s State) rank() int {
	return max(0, slices.Index([]State{StateIdle, StateInvited, StatePlaying, StateAwaitingResult}, s))
}

// state returns where one match stands for the player.
func (m *matchState) state() State {
	switch {
	case m.MyChoice != "":
		return StateAwaitingResult
	case m.choosing:
		return StatePlaying
	case m.Invited:
		return StateInvited
	}
	return StateIdle
}

// State returns the player's own state: IDLE, INVITED, PLAYING or
// AWAITING_RESULT (get_player_state shows it as well).
func (a *Agent) State() State {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stateLocked()
}

func (a *Agent) stateLocked() State {
	s := StateIdle
	for _, m := range a.matches {
		if ms := m.state(); ms.rank() > s.rank() {
			s = ms
		}
	}
	return s
}
