// Package chaos holds the league's chaos test, a module of its own so that
// its fault-injecting proxy (github.com/Shopify/toxiproxy/v2) stays out of
// what a player author downloads.
//
// The test builds the example programs (manager, referee, player), runs
// each agent as a process of its own behind a TCP proxy, and plays a whole
// league while the proxies delay, throttle, stall, cut and reset the
// connections, agents are SIGKILLed and started again on the same port and
// data root, and strangers flood the manager with queries above its rate
// limit. At the end it checks, from the agents' own files and answers,
// that every result was kept (see docs/RELIABILITY.md).
//
// The short run is part of this module's go test ./...:
//
//	cd internal/chaos && go test ./...
//
// The long run, and a replay of any run by its seed:
//
//	cd internal/chaos && CHAOS_LONG=1 CHAOS_SEED=1 go test -run TestChaos -v -timeout 60m
//
// CHAOS_DIR=dir keeps the agents' files and logs in dir, with
// chaos/faults.log, every fault as it came and went; CHAOS_TRACE=1 has the
// players record every message they send and receive.
//
// A test suite of the whole module, not imported by any package.
package chaos
