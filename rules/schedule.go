package rules

import "strconv"

// Pairing is one scheduled match of a round-robin: player A against player B.
type Pairing struct {
	MatchID string // "R<round>M<k>", k counting from 1 within the round
	Round   int    // 1-based
	PlayerA string
	PlayerB string
}

// RoundRobin returns the rounds of a single round-robin over players, in order.
//
// Every pair of players meets exactly once and nobody plays twice in a round.
// An even number n of players gives n-1 rounds of n/2 matches; an odd number
// gives n rounds of (n-1)/2 matches, and in each round exactly one player has
// a bye, every player once. Within a round, matches are ordered by the
// earlier of their two players in the given order. For every player the
// number of matches as PLAYER_A and as PLAYER_B differ by at most one.
// Fewer than two players give nil. Player ids are used as given; duplicates
// or empty ids are not checked.
//
// For P01..P04 the rounds pair {P01–P02, P03–P04}, {P03–P01, P04–P02},
// {P01–P04, P02–P03} (PLAYER_A first), the pairs of the protocol's
// four-player schedule.
//
// The construction is the circle method in arithmetic form. With an odd
// count q of rotating players, numbered 0..q-1, round r (0-based) gives
// player r the bye and pairs r-d with r+d (mod q) for d = 1..(q-1)/2, so the
// pair {a, b} meets in the round r with 2r ≡ a+b (mod q). The first player
// is A when the second lies 1..(q-1)/2 steps after it around the circle,
// which makes every player A in exactly (q-1)/2 of its q-1 matches. An odd
// player count rotates everybody. An even count fixes the first player and
// rotates the other n-1: the fixed player meets the player who would have
// had the bye and takes PLAYER_A in odd rounds and PLAYER_B in even ones, so
// it is off balance by at most one, and so is everybody else, having only
// that one match outside their exact balance.
func RoundRobin(players []string) [][]Pairing {
	n := len(players)
	if n < 2 {
		return nil
	}
	fixed := n%2 == 0
	rotating := players
	if fixed {
		rotating = players[1:]
	}
	q := len(rotating)

	rounds := make([][]Pairing, q)
	for r := range q {
		round := r + 1
		matches := make([]Pairing, 0, n/2)
		add := func(a, b string) {
			matches = append(matches, Pairing{
				MatchID: "R" + strconv.Itoa(round) + "M" + strconv.Itoa(len(matches)+1),
				Round:   round,
				PlayerA: a,
				PlayerB: b,
			})
		}
		if fixed {
			if round%2 == 1 {
				add(players[0], rotating[r])
			} else {
				add(rotating[r], players[0])
			}
		}
		// The pairs {r-d, r+d} in order of their earlier member: walking i
		// over the rotating players from 0 and pairing i with its partner
		// j = 2r-i (mod q) when j > i lists each pair once, by its lower index.
		for i := range q {
			j := ((2*r-i)%q + q) % q
			if j <= i {
				continue // the bye (j == i), or a pair already listed
			}
			if j-i <= q/2 {
				add(rotating[i], rotating[j])
			} else {
				add(rotating[j], rotating[i])
			}
		}
		rounds[r] = matches
	}
	return rounds
}
