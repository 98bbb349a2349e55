package referee

// MatchesInMemory returns the number of matches the referee holds in
// memory (running, or finished and not yet acknowledged).
func MatchesInMemory(r *Referee) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.matches)
}
