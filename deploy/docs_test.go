package deploy

import (
	"net/url"
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
			t.Errorf("the guide does not name the claim %s", c)
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

// TestCertificatesNameWhatPeersCall checks the certificates the guide
// issues against the manifests: each server's certificate names the DNS
// name it advertises (its pod's own, for a referee or a player), and the
// name the PodMonitor checks when Prometheus scrapes it.
func TestCertificatesNameWhatPeersCall(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "operating-a-league.md"))
	if err != nil {
		t.Fatal(err)
	}
	issued := map[string][]string{} // certificate file → DNS names
	for _, m := range regexp.MustCompile(`(?m)^issue (\w+) (\S+)$`).FindAllStringSubmatch(string(raw), -1) {
		for _, san := range strings.Split(m[2], ",") {
			if name, ok := strings.CutPrefix(san, "DNS:"); ok {
				issued[m[1]] = append(issued[m[1]], name)
			}
		}
	}
	l := loadLeague(t).with("monitoring")
	files := map[string]string{} // Secret/key → certificate name
	for _, g := range l.kustomizations[manifestsRoot].SecretGenerator {
		for key, file := range g.entries() {
			files[g.Name+"/"+key] = strings.TrimSuffix(filepath.Base(file), ".crt")
		}
	}
	checked := 0
	for _, ss := range l.statefulSets {
		spec := ss.Spec.Template.Spec
		c := spec.Containers[0]
		certPath, _ := arg(c.Args, "tls-cert")
		cert := ""
		for _, v := range spec.Volumes {
			for _, m := range c.VolumeMounts {
				if v.Secret == nil || m.Name != v.Name || !strings.HasPrefix(certPath, m.MountPath+"/") {
					continue
				}
				key := strings.TrimPrefix(certPath, m.MountPath+"/")
				for _, it := range v.Secret.Items {
					if it.Path == key {
						key = it.Key
					}
				}
				cert = files[v.Secret.SecretName+"/"+key]
			}
		}
		names := []string{}
		endpoint, _ := arg(c.Args, "endpoint")
		if u, err := url.Parse(strings.ReplaceAll(endpoint, "$(POD_NAME)", ss.Name+"-0")); err == nil {
			names = append(names, u.Hostname())
		}
		for _, pm := range l.podMonitors {
			if matches(&pm.Spec.Selector, ss.Spec.Template.Labels) {
				for _, ep := range pm.Spec.PodMetricsEndpoints {
					if ep.TLSConfig != nil && ep.TLSConfig.ServerName != nil {
						names = append(names, *ep.TLSConfig.ServerName)
					}
				}
			}
		}
		for _, n := range names {
			checked++
			if !slices.ContainsFunc(issued[cert], func(san string) bool { return nameMatches(san, n) }) {
				t.Errorf("%s serves certificate %q, issued for %v: it does not name %s", ss.Name, cert, issued[cert], n)
			}
		}
	}
	if checked < 6 {
		t.Errorf("checked %d names; the guide issues %v", checked, issued)
	}
}

// nameMatches reports whether a certificate's DNS name san (possibly a
// wildcard of one label, *.example) names host.
func nameMatches(san, host string) bool {
	if rest, ok := strings.CutPrefix(san, "*."); ok {
		label, domain, found := strings.Cut(host, ".")
		return found && label != "" && domain == rest
	}
	return san == host
}
