package agentkit

import (
	"strconv"
	"strings"
)

// Plural writes n and the noun, in the plural unless n is 1: "1 match",
// "2 matches", "0 referees", "3 entries". A noun whose plural is not made
// with -s, -es (after s, x, ch and sh) or -ies (for a y after a consonant)
// is not for it.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsAny(stem[len(stem)-1:], "aeiou") {
		return strconv.Itoa(n) + " " + stem + "ies"
	}
	for _, end := range []string{"s", "x", "ch", "sh"} {
		if strings.HasSuffix(noun, end) {
			return strconv.Itoa(n) + " " + noun + "es"
		}
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
