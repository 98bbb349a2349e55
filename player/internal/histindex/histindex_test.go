package histindex

import (
	"slices"
	"testing"
)

// The index finds an opponent's records among the first n, with the
// running count of that opponent's choices, and the whole history's
// counts, as a scan of the records would.
func TestIndexAgreesWithAScan(t *testing.T) {
	type rec struct{ opp, choice string }
	records := []rec{{"P02", "even"}, {"P03", "odd"}, {"P02", ""}, {"P02", "odd"}, {"P04", "even"}, {"P03", "odd"}}
	var x Index
	for i, r := range records {
		x.Add(r.opp, r.choice, i)
	}
	for n := range len(records) + 1 {
		var even, odd int
		for _, r := range records[:n] {
			even += btoi(r.choice == "even")
			odd += btoi(r.choice == "odd")
		}
		if e, o := x.Choices(n); e != even || o != odd {
			t.Errorf("Choices(%d) = %d, %d; want %d, %d", n, e, o, even, odd)
		}
		for _, opp := range []string{"P02", "P03", "P04", "P09"} {
			var want []int32
			var counts [2]int32
			for i, r := range records[:n] {
				if r.opp == opp {
					want = append(want, int32(i))
					counts[0] += int32(btoi(r.choice == "even"))
					counts[1] += int32(btoi(r.choice == "odd"))
				}
			}
			at, got := x.Against(opp, n)
			if !slices.Equal(at, want) || got != counts {
				t.Errorf("Against(%s, %d) = %v %v; want %v %v", opp, n, at, got, want, counts)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
