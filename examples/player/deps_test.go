package main

import (
	"os/exec"
	"strings"
	"testing"
)

// A player program links no other agent: neither the manager (and its
// dashboard) nor the referee.
func TestPlayerLinksNoOtherAgent(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, other := range []string{"/manager", "/referee", "/internal/dashboard"} {
			if strings.HasPrefix(pkg, "github.com/agentleague/league") && strings.Contains(pkg, other) {
				t.Errorf("the player program links %s", pkg)
			}
		}
	}
}
