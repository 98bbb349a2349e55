package doccheck

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentleague/league"

// listed is what go list says of one package of the module.
type listed struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Deps         []string
}

// listModule lists the module's packages with their imports.
func listModule(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports,Deps", "./...")
	cmd.Dir = moduleRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// owner is the top-level package a package of the module belongs to:
// "player" for player/store, "internal/json" for itself.
func owner(path string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	parts := strings.Split(rel, "/")
	if (parts[0] == "internal" || parts[0] == "examples") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// TestLayoutIsInImportOrder holds the layout docs/architecture.md draws:
// the author's package and the rules link no agent; a root internal
// package serves two or more top-level packages (or says in its doc why
// it stays at the root), and only the agents' shared runtime imports
// leaguesdk.
func TestLayoutIsInImportOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	pkgs := listModule(t)
	users := map[string][]string{} // root internal package → top-level packages importing it
	for _, p := range pkgs {
		switch p.ImportPath {
		case module + "/player", module + "/rules":
			for _, d := range p.Deps {
				for _, agent := range []string{"/manager", "/referee", "/arena"} {
					if strings.HasPrefix(d, module+agent) {
						t.Errorf("%s links %s", p.ImportPath, d)
					}
				}
			}
		}
		from := owner(p.ImportPath)
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if !strings.HasPrefix(imp, module+"/internal/") {
				continue
			}
			to := owner(imp)
			if to != from && !slices.Contains(users[to], from) {
				users[to] = append(users[to], from)
			}
		}
		if strings.HasPrefix(p.ImportPath, module+"/internal/") && slices.Contains(p.Imports, module+"/leaguesdk") {
			if o := owner(p.ImportPath); o != "internal/agentkit" && o != "internal/ratelimit" {
				t.Errorf("%s imports leaguesdk", p.ImportPath)
			}
		}
	}
	// internal/dashboard is imported by the manager alone in this module;
	// internal/browsertest, a module of its own, loads it too.
	for pkg, us := range users {
		if len(us) < 2 && pkg != "internal/dashboard" {
			t.Errorf("%s is imported by %v alone: it belongs under its owner", pkg, us)
		}
	}
}
