package rules

import (
	"encoding/json"
	"slices"

	"github.com/agentleague/league/leaguesdk"
)

// Games is a registry of game types: game type ("even_odd") → its rules.
// It marshals to the games-registry shape {"game_registry": {<type>: info}}.
type Games map[string]Rules

// DefaultGames returns the registry a referee uses when it is given none:
// the even/odd game only.
func DefaultGames() Games {
	return Games{leaguesdk.GameEvenOdd: EvenOdd{}}
}

// Types returns the game types of g, sorted.
func (g Games) Types() []string {
	out := make([]string, 0, len(g))
	for t := range g {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Infos returns the description of every game type of g.
func (g Games) Infos() map[string]GameInfo {
	out := make(map[string]GameInfo, len(g))
	for t, r := range g {
		out[t] = r.Info()
	}
	return out
}

// MarshalJSON implements [json.Marshaler].
func (g Games) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		GameRegistry map[string]GameInfo `json:"game_registry"`
	}{g.Infos()})
}
