package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// renderer returns the command that renders a kustomization: kustomize
// build, or kubectl's built-in kustomize. It skips the test without
// either.
func renderer(t *testing.T) []string {
	t.Helper()
	if p, err := exec.LookPath("kustomize"); err == nil {
		return []string{p, "build"}
	} else if p, err := exec.LookPath("kubectl"); err == nil {
		return []string{p, "kustomize"}
	}
	t.Skip("neither kustomize nor kubectl is installed")
	return nil
}

// renderTargets are the kustomizations an operator applies, and the
// objects each renders.
var renderTargets = map[string]map[string]int{
	"kubernetes": {"Namespace": 1, "ResourceQuota": 1, "Secret": 2, "Service": 3, "StatefulSet": 3,
		"NetworkPolicy": 4, "PodDisruptionBudget": 3},
	"kubernetes/start-league":   {"Job": 1},
	"overlays/lab/start-league": {"Job": 1},
	"overlays/production": {"Namespace": 1, "ResourceQuota": 1, "Secret": 2, "Service": 3, "StatefulSet": 3,
		"NetworkPolicy": 5, "PodDisruptionBudget": 3, "HorizontalPodAutoscaler": 1, "PodMonitor": 2,
		"PrometheusRule": 1, "ConfigMap": 1},
	"overlays/queue-autoscaling": {"Namespace": 1, "ResourceQuota": 1, "Secret": 2, "Service": 3, "StatefulSet": 3,
		"NetworkPolicy": 5, "PodDisruptionBudget": 3, "ScaledObject": 1, "PodMonitor": 2, "PrometheusRule": 1,
		"ConfigMap": 1},
	// Plain HTTP: the players' certificate Secret is not made.
	"overlays/lab": {"Namespace": 1, "ResourceQuota": 1, "Secret": 1, "Service": 3, "StatefulSet": 3,
		"NetworkPolicy": 4, "PodDisruptionBudget": 3, "HorizontalPodAutoscaler": 1},
	// Written by render: monitoring over plain HTTP.
	plainMonitored: {"Namespace": 1, "ResourceQuota": 1, "Secret": 1, "Service": 3, "StatefulSet": 3,
		"NetworkPolicy": 5, "PodDisruptionBudget": 3, "PodMonitor": 2, "PrometheusRule": 1, "ConfigMap": 1},
}

// plainMonitored is an overlay the test writes: the monitoring component
// with plain HTTP, listed before it as the guide says.
const plainMonitored = "overlays/test-plain-http-monitoring"

// plainHTTP reports whether target serves plain HTTP.
func plainHTTP(target string) bool {
	return strings.HasPrefix(target, "overlays/lab") || target == plainMonitored
}

// render renders every kustomization of renderTargets, on a copy of
// deploy/ with placeholder secret files, and decodes each output strictly
// into a league: what `kubectl apply -k` would send.
func render(t *testing.T) map[string]*league {
	t.Helper()
	cmd := renderer(t)
	dir := t.TempDir()
	for _, sub := range []string{manifestsRoot, overlaysRoot} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(sub)); err != nil {
			t.Fatal(err)
		}
	}
	l := loadLeague(t)
	for _, k := range l.kustomizations {
		for _, g := range k.SecretGenerator {
			for _, file := range g.entries() {
				if err := os.WriteFile(filepath.Join(dir, manifestsRoot, file), []byte("placeholder for "+file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, plainMonitored), 0o755); err != nil {
		t.Fatal(err)
	}
	overlay := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: agent-league\n" +
		"resources: [../../kubernetes]\ncomponents: [../../kubernetes/components/monitoring, ../../kubernetes/components/plain-http]\n"
	if err := os.WriteFile(filepath.Join(dir, plainMonitored, "kustomization.yaml"), []byte(overlay), 0o644); err != nil {
		t.Fatal(err)
	}
	out := map[string]*league{}
	for target := range renderTargets {
		c := exec.Command(cmd[0], append(cmd[1:], filepath.Join(dir, target))...)
		raw, err := c.Output()
		if err != nil {
			var stderr []byte
			if e, ok := err.(*exec.ExitError); ok {
				stderr = e.Stderr
			}
			t.Fatalf("%v %s: %v\n%s", cmd, target, err, stderr)
		}
		r := newLeague()
		r.secrets = l.secrets
		for i, doc := range splitDocuments(raw) {
			r.decode(t, fmt.Sprintf("%s, document %d", target, i+1), doc)
		}
		out[target] = r
	}
	return out
}

// kinds counts the objects of l by kind.
func (l *league) kinds() map[string]int {
	k := map[string]int{}
	for kind, n := range map[string]int{"Namespace": len(l.namespaces), "ResourceQuota": len(l.quotas),
		"Secret": len(l.rendered), "Service": len(l.services), "StatefulSet": len(l.statefulSets),
		"Deployment": len(l.deployments), "Job": len(l.jobs), "NetworkPolicy": len(l.policies),
		"PodDisruptionBudget": len(l.budgets), "HorizontalPodAutoscaler": len(l.autoscalers),
		"ScaledObject": len(l.scaledObjects), "PodMonitor": len(l.podMonitors), "PrometheusRule": len(l.rules),
		"ConfigMap": len(l.configMaps)} {
		if n > 0 {
			k[kind] = n
		}
	}
	return k
}

// TestKustomizeBuilds renders the base, the start-league Job and every
// overlay, and checks what each renders: the objects, the identity and
// the drain of the agents, the budgets, the autoscaling and the
// monitoring, TLS or plain HTTP as the overlay says.
func TestKustomizeBuilds(t *testing.T) {
	rendered := render(t)
	base := rendered[manifestsRoot]
	for target, want := range renderTargets {
		r := rendered[target]
		t.Run(strings.ReplaceAll(target, "/", "_"), func(t *testing.T) {
			got := r.kinds()
			if len(got) != len(want) {
				t.Errorf("renders %v, want %v", got, want)
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("renders %d %s, want %d (all: %v)", got[k], k, n, got)
				}
			}
			for _, s := range r.rendered {
				var keys []string
				for k := range s.Data {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				wantKeys := r.secrets[s.Name]
				if plainHTTP(target) {
					wantKeys = []string{adminKey}
				}
				if !slices.Equal(keys, wantKeys) {
					t.Errorf("rendered Secret %s has keys %v, want %v", s.Name, keys, wantKeys)
				}
			}
			if len(r.statefulSets) == 0 {
				return // a Job
			}
			scheme := "https"
			if plainHTTP(target) {
				scheme = "http"
				checkPlainHTTP(t, base, r)
			}
			checkIdentity(t, r, scheme)
			checkDrain(t, r)
			checkBudgets(t, r)
			checkAutoscaling(t, r)
			if len(r.podMonitors) > 0 {
				checkMonitoring(t, r)
			}
		})
	}
	if n := *rendered["overlays/lab"].statefulSet(t, "league-player").Spec.Replicas; n != 8 {
		t.Errorf("the lab overlay runs %d players, want 8", n)
	}
}

// checkPlainHTTP checks an overlay of plain HTTP against the base: the
// same arguments without the TLS flags and with http:// for https://, no
// certificate mounted, probes and scrapes over HTTP.
func checkPlainHTTP(t *testing.T, base, plain *league) {
	t.Helper()
	tlsFlag := regexp.MustCompile(`^-(tls-cert|tls-key|ca|client-ca|tls-peer-name)=`)
	for _, ss := range plain.statefulSets {
		want := base.statefulSet(t, ss.Name).Spec.Template.Spec.Containers[0].Args
		var args []string
		for _, a := range want {
			if !tlsFlag.MatchString(a) {
				args = append(args, strings.ReplaceAll(a, "https://", "http://"))
			}
		}
		spec := ss.Spec.Template.Spec
		c := spec.Containers[0]
		if !slices.Equal(c.Args, args) {
			t.Errorf("%s: plain-HTTP arguments %q, want the base's without TLS %q", ss.Name, c.Args, args)
		}
		for _, v := range spec.Volumes {
			if v.Secret != nil {
				t.Errorf("%s mounts Secret %s", ss.Name, v.Secret.SecretName)
			}
		}
		if c.ReadinessProbe.HTTPGet.Scheme != "HTTP" || c.LivenessProbe.HTTPGet.Scheme != "HTTP" || ss.Spec.Template.Annotations["prometheus.io/scheme"] != "http" {
			t.Errorf("%s: probes and scrape annotation not over HTTP", ss.Name)
		}
	}
}
