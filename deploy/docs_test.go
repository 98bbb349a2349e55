package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestOperatingGuideMatchesTheManifests checks the commands of
// docs/operating-a-league.md against the manifests: the objects they name
// exist, and the secret files they make are the ones kustomize reads.
func TestOperatingGuideMatchesTheManifests(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "operating-a-league.md"))
	if err != nil {
		t.Fatal(err)
	}
	guide := string(raw)
	l := loadLeague(t)
	names := map[string][]string{}
	for _, s := range l.statefulSets {
		names["statefulset"] = append(names["statefulset"], s.Name)
		names["pod"] = append(names["pod"], s.Name+"-0")
		for _, c := range s.Spec.VolumeClaimTemplates {
			names["claim"] = append(names["claim"], c.Name+"-"+s.Name+"-0")
		}
	}
	for _, d := range l.deployments {
		names["deployment"] = append(names["deployment"], d.Name)
	}
	for _, j := range l.jobs {
		names["job"] = append(names["job"], j.Name)
	}
	refs := regexp.MustCompile(`\b(statefulset|deployment|job|pod)/([a-z0-9-]+)`).FindAllStringSubmatch(guide, -1)
	if len(refs) < 5 {
		t.Fatalf("the guide names %d objects; it should show the kubectl commands", len(refs))
	}
	for _, m := range refs {
		if !slices.Contains(names[m[1]], m[2]) {
			t.Errorf("the guide names %s/%s, which the manifests do not make (%v)", m[1], m[2], names[m[1]])
		}
	}
	for _, c := range names["claim"] {
		if !strings.Contains(guide, c) {
			t.Errorf("the guide does not name the manager's claim %s", c)
		}
	}
	if !strings.Contains(guide, "kubectl apply -k deploy/kubernetes\n") || !strings.Contains(guide, "kubectl apply -k deploy/kubernetes/start-league") {
		t.Error("the guide does not apply both kustomizations")
	}

	// Every file a secret generator reads is made by the guide's commands.
	made := map[string]bool{}
	for _, m := range regexp.MustCompile(`> ([a-z.-]+)\n|-keyout (\S+)|-out (\S+)|issue (\w+) `).FindAllStringSubmatch(guide, -1) {
		for _, f := range m[1:4] {
			made[f] = f != ""
		}
		if m[4] != "" {
			made[m[4]+".crt"], made[m[4]+".key"] = true, true
		}
	}
	for _, k := range l.kustomizations {
		for _, g := range k.SecretGenerator {
			for _, file := range g.entries() {
				if !made[strings.TrimPrefix(file, "secrets/")] {
					t.Errorf("kustomize reads %s, which the guide does not make (it makes %v)", file, made)
				}
			}
		}
	}
}
