// Package browsertest loads the league manager's dashboard in headless
// Chromium and reads it. It is a module of its own so that the browser
// driver it tests with stays out of what a user of the league module
// downloads.
//
// A test suite of the whole module, not imported by any package.
package browsertest
