package leaguesdk

import "time"

// WriteObserver is implemented by an [Observer] that also wants to be told
// about an agent's durable writes (the manager's journals and files).
type WriteObserver interface {
	// ObserveWrite is told about each durable write (one fsync).
	ObserveWrite(WriteEvent)
}

// WriteEvent is one durable write: a group commit of a journal or an
// atomic file replacement.
type WriteEvent struct {
	// File names what was written ("assignments", "standings").
	File string
	// Records is the number of records the write made durable.
	Records int
	// Bytes is the number of bytes written.
	Bytes int
	// Took is the time of the write and its fsync.
	Took time.Duration
}
