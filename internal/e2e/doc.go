// Package e2e holds the module's end-to-end tests: whole leagues of this
// module's agents over real loopback HTTP, joined by a player written as a
// separate module on the public API only (with the README's player built
// beside it), and leagues played with stand-ins of an MCP-native
// implementation, each way; and checks that the links of the README, of docs/ and of the
// doc comments resolve. It has no code of its own; run its tests with
//
//	go test ./internal/e2e
//
// The newcomer test builds a program and is skipped in -short mode. The
// dashboard's browser test is in internal/browsertest, a module of its own.
//
// A test suite of the whole module, not imported by any package.
package e2e
