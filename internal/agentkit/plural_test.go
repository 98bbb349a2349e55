package agentkit

import "testing"

func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "match", "1 match"}, {2, "match", "2 matches"}, {0, "referee", "0 referees"},
		{1, "win", "1 win"}, {3, "win", "3 wins"}, {1, "technical loss", "1 technical loss"},
		{2, "technical loss", "2 technical losses"}, {1, "point", "1 point"}, {7, "point", "7 points"},
		{1, "entry", "1 entry"}, {4, "entry", "4 entries"}, {2, "day", "2 days"},
	} {
		if got := Plural(tt.n, tt.noun); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}
