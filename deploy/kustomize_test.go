package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestKustomizeBuilds renders both kustomizations with kubectl's built-in
// kustomize (or a kustomize binary), on a copy of the manifests with
// placeholder secret files, and decodes the output strictly: what
// `kubectl apply -k` would send.
func TestKustomizeBuilds(t *testing.T) {
	var render []string
	if p, err := exec.LookPath("kustomize"); err == nil {
		render = []string{p, "build"}
	} else if p, err := exec.LookPath("kubectl"); err == nil {
		render = []string{p, "kustomize"}
	} else {
		t.Skip("neither kustomize nor kubectl is installed")
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(manifestsRoot)); err != nil {
		t.Fatal(err)
	}
	l := loadLeague(t)
	for _, k := range l.kustomizations {
		for _, g := range k.SecretGenerator {
			for _, file := range g.entries() {
				if err := os.WriteFile(filepath.Join(dir, file), []byte("placeholder for "+file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, sub := range []string{".", "start-league"} {
		cmd := exec.Command(render[0], append(render[1:], filepath.Join(dir, sub))...)
		out, err := cmd.Output()
		if err != nil {
			var stderr []byte
			if e, ok := err.(*exec.ExitError); ok {
				stderr = e.Stderr
			}
			t.Fatalf("%v %s: %v\n%s", render, sub, err, stderr)
		}
		kinds := map[string]int{}
		for _, doc := range splitDocuments(out) {
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatal(err)
			}
			kinds[tm.Kind]++
			var obj metav1.PartialObjectMetadata
			if err := yaml.Unmarshal(doc, &obj); err != nil {
				t.Fatal(err)
			}
			if tm.Kind != "Namespace" && obj.Namespace != namespace {
				t.Errorf("%s: %s %s rendered in namespace %q", sub, tm.Kind, obj.Name, obj.Namespace)
			}
			if tm.Kind == "Secret" {
				var s corev1.Secret
				if err := yaml.UnmarshalStrict(doc, &s); err != nil {
					t.Fatal(err)
				}
				var keys []string
				for k := range s.Data {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if !slices.Equal(keys, l.secrets[s.Name]) {
					t.Errorf("rendered Secret %s has keys %v, want %v", s.Name, keys, l.secrets[s.Name])
				}
			}
		}
		want := map[string]int{"Namespace": 1, "ResourceQuota": 1, "Secret": 2, "Service": 1, "StatefulSet": 1, "Deployment": 2, "NetworkPolicy": 4}
		if sub == "start-league" {
			want = map[string]int{"Job": 1}
		}
		if len(kinds) != len(want) {
			t.Errorf("%s renders %v, want %v", sub, kinds, want)
		}
		for k, n := range want {
			if kinds[k] != n {
				t.Errorf("%s renders %d %s, want %d (all: %v)", sub, kinds[k], k, n, kinds)
			}
		}
	}
}
