package manager

// SharedEncodes returns how many broadcasts m encoded once for all their
// recipients.
func SharedEncodes(m *Manager) int64 { return m.sharedEncodes.Load() }
