package main

import (
	"os/exec"
	"strings"
	"testing"
)

// deps returns the packages the player program links, skipping the test
// where the go command cannot list them.
func deps(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	return strings.Fields(string(out))
}

// A player program links no other agent: neither the manager (and its
// dashboard) nor the referee.
func TestPlayerLinksNoOtherAgent(t *testing.T) {
	for _, pkg := range deps(t) {
		for _, other := range []string{"/manager", "/referee", "/internal/dashboard"} {
			if strings.HasPrefix(pkg, "github.com/agentleague/league") && strings.Contains(pkg, other) {
				t.Errorf("the player program links %s", pkg)
			}
		}
	}
}

// A player program links no schema inference: the schemas tools/list
// shows are generated once, when the module is developed, and compiled in.
func TestPlayerLinksNoSchemaInference(t *testing.T) {
	for _, pkg := range deps(t) {
		if strings.Contains(pkg, "jsonschema") {
			t.Errorf("the player program links %s", pkg)
		}
	}
}
