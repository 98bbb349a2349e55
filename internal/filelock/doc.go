// Package filelock takes exclusive advisory locks on files, so that
// processes sharing a data root can tell a journal whose owner is alive
// from one left by a crash: the lock is held for as long as its owner
// runs, and the operating system releases it when the owner dies. It is a
// thin layer over [github.com/gofrs/flock] that keeps the stores' calls
// short and says where no lock is available.
//
// Where no such lock exists ([Supported] is false), [TryLock] never succeeds
// and callers fall back to writing without a shared journal.
//
// Shared by the referee and the player's store.
package filelock
