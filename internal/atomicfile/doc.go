// Package atomicfile writes files so that a reader, or a process started
// after a crash, sees either the previous content or the new content, never
// a torn mix of the two.
//
// A write goes to a temporary file in the target's directory, is flushed to
// stable storage, and is then renamed over the target; the directory itself
// is flushed last so that the rename survives a power loss.
//
// Quick start:
//
//	err := atomicfile.WriteJSON(filepath.Join(root, "data", "leagues", id, "standings.json"), standings)
//	...
//	var s standingsFile
//	err = atomicfile.ReadJSON(path, &s)
//
// Every file the module writes goes through this package.
//
// Shared by the manager, the referee, the player's store and
// internal/journal.
package atomicfile
