package leaguesdk

import (
	"strings"
	"sync"
)

// dialectMemory is what a server remembers of its callers' dialects. A referee
// of another implementation sends a match's messages with the lower-case
// message type as method ("game_invitation") and reads a reply only as a
// bare message: when a match's invitation came that way, every reply
// about the match is flat (see resultResponse), as is any reply to a lower-case
// message-type method. Spec-form callers and MCP clients get the standard
// response. The zero value is ready to use.
type dialectMemory struct {
	mu   sync.Mutex
	flat map[string]bool // matches whose opening came in the lower-case dialect
}

// Flat reports whether the reply to a request of form f with the method
// method, about the match matchID ("" for none), is flat. opens is true
// for the message that opens a match (GAME_INVITATION), closes for the
// one that ends it (GAME_OVER).
func (d *dialectMemory) Flat(f WireForm, method, matchID string, opens, closes bool) bool {
	if f == FormToolsCall {
		return false
	}
	lower := f == FormMessageType && method == strings.ToLower(method)
	if matchID == "" {
		return lower
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if opens {
		if lower {
			if d.flat == nil {
				d.flat = map[string]bool{}
			}
			d.flat[matchID] = true
		} else {
			delete(d.flat, matchID)
		}
	}
	flat := lower || d.flat[matchID]
	if closes {
		delete(d.flat, matchID)
	}
	return flat
}
