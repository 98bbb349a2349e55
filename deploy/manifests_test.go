package deploy

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

const (
	namespace     = "agent-league"
	manifestsRoot = "kubernetes"
	// adminSecret holds the admin token and the manager's and referees'
	// certificate; playerSecret the players' certificate.
	adminSecret  = "league-secrets"
	playerSecret = "league-player-tls"
	adminKey     = "admin-token"
)

// kustomization is the part of kustomize's Kustomization the manifests use;
// decoding it strictly makes any other field an error.
type kustomization struct {
	APIVersion      string            `json:"apiVersion"`
	Kind            string            `json:"kind"`
	Namespace       string            `json:"namespace"`
	Resources       []string          `json:"resources"`
	SecretGenerator []secretGenerator `json:"secretGenerator"`
	GeneratorOpts   *struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
}

type secretGenerator struct {
	Name  string   `json:"name"`
	Type  string   `json:"type"`
	Files []string `json:"files"`
}

// entries returns the generator's files as key → path (kustomize's
// "key=path" or a bare path, whose base name is the key).
func (g secretGenerator) entries() map[string]string {
	out := map[string]string{}
	for _, f := range g.Files {
		key, path, ok := strings.Cut(f, "=")
		if !ok {
			key, path = filepath.Base(f), f
		}
		out[key] = path
	}
	return out
}

// keys returns the keys of the Secret the generator makes.
func (g secretGenerator) keys() []string {
	return slices.Sorted(maps.Keys(g.entries()))
}

// league is every object of the manifests, decoded strictly.
type league struct {
	kustomizations map[string]kustomization // by directory
	namespaces     []*corev1.Namespace
	services       []*corev1.Service
	statefulSets   []*appsv1.StatefulSet
	deployments    []*appsv1.Deployment
	jobs           []*batchv1.Job
	policies       []*networkingv1.NetworkPolicy
	quotas         []*corev1.ResourceQuota
	secrets        map[string][]string // generated Secret → keys
}

// workload is a pod template with the name of what owns it.
type workload struct {
	kind, name string
	template   *corev1.PodTemplateSpec
}

func (l *league) workloads() []workload {
	var out []workload
	for _, s := range l.statefulSets {
		out = append(out, workload{"StatefulSet", s.Name, &s.Spec.Template})
	}
	for _, d := range l.deployments {
		out = append(out, workload{"Deployment", d.Name, &d.Spec.Template})
	}
	for _, j := range l.jobs {
		out = append(out, workload{"Job", j.Name, &j.Spec.Template})
	}
	return out
}

// loadLeague decodes every YAML file under kubernetes/: each document
// strictly into its k8s.io/api type (an unknown field, a wrong type or a
// duplicate key is an error), and each kustomization.yaml into
// kustomization. Every manifest must be a resource of a kustomization.
func loadLeague(t *testing.T) *league {
	t.Helper()
	l := &league{kustomizations: map[string]kustomization{}, secrets: map[string][]string{}}
	listed := map[string]bool{}
	var files []string
	err := filepath.WalkDir(manifestsRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "secrets" {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) == "kustomization.yaml" {
			var k kustomization
			if err := yaml.UnmarshalStrict(raw, &k); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" || k.Namespace != namespace {
				t.Errorf("%s: apiVersion %q, kind %q, namespace %q", path, k.APIVersion, k.Kind, k.Namespace)
			}
			dir := filepath.Dir(path)
			l.kustomizations[dir] = k
			for _, r := range k.Resources {
				listed[filepath.Join(dir, r)] = true
			}
			for _, g := range k.SecretGenerator {
				l.secrets[g.Name] = g.keys()
				for _, file := range g.entries() {
					if !strings.HasPrefix(file, "secrets/") {
						t.Errorf("%s: secret file %s is not under secrets/, which git ignores", path, file)
					}
				}
			}
			continue
		}
		for i, doc := range splitDocuments(raw) {
			where := fmt.Sprintf("%s, document %d", path, i+1)
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			var obj any
			switch tm.APIVersion + " " + tm.Kind {
			case "v1 Namespace":
				obj = add(&l.namespaces)
			case "v1 Service":
				obj = add(&l.services)
			case "v1 ResourceQuota":
				obj = add(&l.quotas)
			case "apps/v1 StatefulSet":
				obj = add(&l.statefulSets)
			case "apps/v1 Deployment":
				obj = add(&l.deployments)
			case "batch/v1 Job":
				obj = add(&l.jobs)
			case "networking.k8s.io/v1 NetworkPolicy":
				obj = add(&l.policies)
			default:
				t.Fatalf("%s: unexpected object %s %s", where, tm.APIVersion, tm.Kind)
			}
			if err := yaml.UnmarshalStrict(doc, obj); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			meta := obj.(metav1.Object)
			if tm.Kind != "Namespace" && meta.GetNamespace() != namespace {
				t.Errorf("%s: %s %s in namespace %q, want %q", where, tm.Kind, meta.GetName(), meta.GetNamespace(), namespace)
			}
			if meta.GetLabels()["app.kubernetes.io/part-of"] != namespace {
				t.Errorf("%s: %s %s lacks the label app.kubernetes.io/part-of=%s", where, tm.Kind, meta.GetName(), namespace)
			}
		}
	}
	for _, path := range files {
		if !listed[path] && filepath.Base(path) != "kustomization.yaml" {
			t.Errorf("%s is not a resource of any kustomization.yaml", path)
		}
	}
	for path := range listed {
		if !slices.Contains(files, path) {
			t.Errorf("a kustomization lists %s, which does not exist", path)
		}
	}
	return l
}

// add appends a new, empty object to list and returns it, to decode into.
func add[T any](list *[]*T) *T {
	o := new(T)
	*list = append(*list, o)
	return o
}

// splitDocuments splits a multi-document YAML file.
func splitDocuments(raw []byte) [][]byte {
	var out [][]byte
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(raw), -1) {
		if strings.TrimSpace(stripComments(doc)) != "" {
			out = append(out, []byte(doc))
		}
	}
	return out
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func (l *league) deployment(t *testing.T, name string) *appsv1.Deployment {
	t.Helper()
	for _, d := range l.deployments {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no Deployment %s", name)
	return nil
}

func (l *league) service(name string) *corev1.Service {
	for _, s := range l.services {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// arg returns the value of -name=value in args, and whether it is there.
func arg(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func component(tpl *corev1.PodTemplateSpec) string {
	return tpl.Labels["app.kubernetes.io/component"]
}

// servers are the components that serve the protocol.
var servers = []string{"manager", "referee", "player"}

// programPorts are the ports the servers listen on.
var programPorts = map[string]int32{"manager": 8000, "referee": 8001, "player": 8101}

func TestManifestsDecodeStrictly(t *testing.T) {
	l := loadLeague(t)
	if len(l.kustomizations) != 2 {
		t.Errorf("%d kustomizations, want the league's and the start-league Job's", len(l.kustomizations))
	}
	if len(l.namespaces) != 1 || l.namespaces[0].Name != namespace {
		t.Fatalf("namespaces %v, want one, %s", l.namespaces, namespace)
	}
	if got := l.namespaces[0].Labels["pod-security.kubernetes.io/enforce"]; got != "restricted" {
		t.Errorf("namespace enforces pod security %q, want restricted", got)
	}
	if len(l.quotas) != 1 {
		t.Errorf("%d ResourceQuotas, want 1", len(l.quotas))
	}
	var got []string
	for _, w := range l.workloads() {
		got = append(got, w.kind+"/"+w.name+"/"+component(w.template))
	}
	slices.Sort(got)
	want := []string{"Deployment/league-player/player", "Deployment/league-referee/referee", "Job/start-league/start-league", "StatefulSet/league-manager/manager"}
	if !slices.Equal(got, want) {
		t.Errorf("workloads %v, want %v", got, want)
	}
}

// TestStrictDecodingRefusesUnknownFields makes sure the decoding above would
// catch a misspelt field.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	doc := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replica: 2\n")
	if err := yaml.UnmarshalStrict(doc, new(appsv1.Deployment)); err == nil {
		t.Fatal("a Deployment with spec.replica decoded without error")
	}
}

func TestManagerStatefulSet(t *testing.T) {
	l := loadLeague(t)
	if len(l.statefulSets) != 1 {
		t.Fatalf("%d StatefulSets, want 1", len(l.statefulSets))
	}
	ss := l.statefulSets[0]
	if ss.Spec.Replicas == nil || *ss.Spec.Replicas != 1 {
		t.Errorf("manager replicas %v, want 1", ss.Spec.Replicas)
	}
	c := ss.Spec.Template.Spec.Containers[0]
	if c.Command[0] != "/usr/local/bin/manager" {
		t.Errorf("manager command %v", c.Command)
	}
	data, ok := arg(c.Args, "data")
	if !ok {
		t.Fatal("the manager has no -data")
	}
	if len(ss.Spec.VolumeClaimTemplates) != 1 {
		t.Fatalf("%d volume claim templates, want 1", len(ss.Spec.VolumeClaimTemplates))
	}
	pvc := ss.Spec.VolumeClaimTemplates[0]
	if m := mount(c, data); m == nil || m.Name != pvc.Name || m.ReadOnly {
		t.Errorf("the data root %s is not the claim %s, writable: %+v", data, pvc.Name, m)
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteOnce) || pvc.Spec.Resources.Requests.Storage().IsZero() {
		t.Errorf("claim %s: modes %v, requests %v", pvc.Name, pvc.Spec.AccessModes, pvc.Spec.Resources.Requests)
	}
	if p := ss.Spec.PersistentVolumeClaimRetentionPolicy; p == nil || p.WhenDeleted != appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		t.Errorf("claim retention %+v: deleting the StatefulSet must keep the league's data", p)
	}
	if id, ok := arg(c.Args, "league-id"); !ok || id == "" {
		t.Error("the manager has no fixed -league-id: a restarted pod would not resume the same league")
	}

	// A stable name: the Service governing the StatefulSet, selecting its
	// pod, on the container's port; the endpoint the manager advertises
	// and the one every agent calls name it.
	svc := l.service(ss.Spec.ServiceName)
	if svc == nil {
		t.Fatalf("no Service %q for the StatefulSet", ss.Spec.ServiceName)
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("Service %s clusterIP %q, want headless (None)", svc.Name, svc.Spec.ClusterIP)
	}
	if !selects(svc.Spec.Selector, ss.Spec.Template.Labels) || !selects(ss.Spec.Selector.MatchLabels, ss.Spec.Template.Labels) {
		t.Errorf("Service selector %v or StatefulSet selector %v does not select the pod labels %v", svc.Spec.Selector, ss.Spec.Selector.MatchLabels, ss.Spec.Template.Labels)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != programPorts["manager"] || svc.Spec.Ports[0].TargetPort.String() != c.Ports[0].Name {
		t.Errorf("Service ports %+v", svc.Spec.Ports)
	}
	endpoint, _ := arg(c.Args, "endpoint")
	checkManagerURL(t, "the manager's -endpoint", endpoint, svc)
	for _, w := range l.workloads() {
		for _, c := range w.template.Spec.Containers {
			for _, flag := range []string{"league", "start-league"} {
				if u, ok := arg(c.Args, flag); ok {
					checkManagerURL(t, w.name+" -"+flag, u, svc)
				}
			}
		}
	}
}

// checkManagerURL checks that u is the manager's https endpoint through the
// Service svc.
func checkManagerURL(t *testing.T, what, u string, svc *corev1.Service) {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Errorf("%s %q: %v", what, u, err)
		return
	}
	want := svc.Name + "." + svc.Namespace + ".svc"
	if p.Scheme != "https" || p.Hostname() != want || p.Port() != strconv.Itoa(int(svc.Spec.Ports[0].Port)) || p.Path != "/mcp" {
		t.Errorf("%s is %q, want https://%s:%d/mcp", what, u, want, svc.Spec.Ports[0].Port)
	}
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// mount returns the volume mount of c at path, or nil.
func mount(c corev1.Container, path string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].MountPath == path {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func TestRefereesAndPlayersAdvertiseTheirPodAddress(t *testing.T) {
	l := loadLeague(t)
	for _, tc := range []struct {
		name        string
		minReplicas int32
	}{{"league-referee", 2}, {"league-player", 2}} {
		d := l.deployment(t, tc.name)
		if d.Spec.Replicas == nil || *d.Spec.Replicas < tc.minReplicas {
			t.Errorf("%s: replicas %v, want at least %d", d.Name, d.Spec.Replicas, tc.minReplicas)
		}
		if !selects(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("%s: selector %v does not select %v", d.Name, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
		}
		c := d.Spec.Template.Spec.Containers[0]
		env := map[string]string{}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
				env[e.Name] = e.ValueFrom.FieldRef.FieldPath
			}
		}
		endpoint, _ := arg(c.Args, "endpoint")
		port := strconv.Itoa(int(c.Ports[0].ContainerPort))
		ip := ""
		for name, field := range env {
			if field == "status.podIP" {
				ip = name
			}
		}
		if ip == "" || endpoint != "https://$("+ip+"):"+port+"/mcp" {
			t.Errorf("%s: -endpoint %q, env %v: want https://$(POD_IP):%s/mcp with POD_IP from status.podIP", d.Name, endpoint, env, port)
		}
		// Replicas need distinct display names: the pod name.
		name, _ := arg(c.Args, "name")
		if v, ok := strings.CutPrefix(name, "$("); !ok || env[strings.TrimSuffix(v, ")")] != "metadata.name" {
			t.Errorf("%s: -name %q, want the pod name from the downward API", d.Name, name)
		}
		// With a read-only root, the data root must be a writable volume.
		data, _ := arg(c.Args, "data")
		if m := mount(c, data); data == "" || m == nil || m.ReadOnly {
			t.Errorf("%s: -data %q is not a writable volume", d.Name, data)
		}
	}
	ref := l.deployment(t, "league-referee")
	grace, _ := arg(ref.Spec.Template.Spec.Containers[0].Args, "grace")
	if g := ref.Spec.Template.Spec.TerminationGracePeriodSeconds; g == nil || grace == "" || parseSeconds(t, grace) >= *g {
		t.Errorf("referee -grace %q must be shorter than the pod's termination grace period %v", grace, g)
	}
}

func parseSeconds(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimSuffix(s, "s"), 10, 64)
	if err != nil {
		t.Fatalf("duration %q: %v", s, err)
	}
	return n
}

func TestEveryContainerIsLockedDownAndBounded(t *testing.T) {
	l := loadLeague(t)
	for _, w := range l.workloads() {
		spec := w.template.Spec
		where := w.kind + "/" + w.name
		if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
			t.Errorf("%s mounts a service account token; no agent talks to the Kubernetes API", where)
		}
		psc := spec.SecurityContext
		if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
			t.Errorf("%s: pod security context %+v, want runAsNonRoot and a non-zero runAsUser", where, psc)
		} else if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%s: seccomp profile %+v, want RuntimeDefault", where, psc.SeccompProfile)
		}
		if len(spec.InitContainers) > 0 || len(spec.Containers) != 1 {
			t.Errorf("%s: %d init containers, %d containers; want one container", where, len(spec.InitContainers), len(spec.Containers))
		}
		for _, c := range spec.Containers {
			where := where + " container " + c.Name
			sc := c.SecurityContext
			switch {
			case sc == nil:
				t.Errorf("%s has no security context", where)
				continue
			case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot:
				t.Errorf("%s: runAsNonRoot not set", where)
			case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
				t.Errorf("%s: the root filesystem is writable", where)
			case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
				t.Errorf("%s: privilege escalation allowed", where)
			case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
				t.Errorf("%s: capabilities %+v, want drop ALL, add none", where, sc.Capabilities)
			case sc.Privileged != nil && *sc.Privileged:
				t.Errorf("%s is privileged", where)
			}
			for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, hasReq := c.Resources.Requests[r]
				lim, hasLim := c.Resources.Limits[r]
				if !hasReq || !hasLim || req.IsZero() || lim.Cmp(req) < 0 {
					t.Errorf("%s: %s request %v, limit %v; want both, limit ≥ request", where, r, q(req, hasReq), q(lim, hasLim))
				}
			}
			if !strings.HasPrefix(c.Image, "localhost/agent-league:") || c.ImagePullPolicy != corev1.PullIfNotPresent {
				t.Errorf("%s: image %q, pull policy %q; want the image build-image.sh makes, IfNotPresent", where, c.Image, c.ImagePullPolicy)
			}
			if len(c.Command) != 1 || !strings.HasPrefix(c.Command[0], "/usr/local/bin/") {
				t.Errorf("%s: command %v, want one of the image's programs", where, c.Command)
			}
		}
	}
}

func q(v resource.Quantity, ok bool) string {
	if !ok {
		return "none"
	}
	return v.String()
}

func TestServersProbeHealthOnTheirPort(t *testing.T) {
	l := loadLeague(t)
	seen := map[string]bool{}
	for _, w := range l.workloads() {
		comp := component(w.template)
		if !slices.Contains(servers, comp) {
			continue
		}
		seen[comp] = true
		c := w.template.Spec.Containers[0]
		port, _ := arg(c.Args, "port")
		if len(c.Ports) != 1 || port != strconv.Itoa(int(c.Ports[0].ContainerPort)) || c.Ports[0].ContainerPort != programPorts[comp] {
			t.Errorf("%s: -port %q, container ports %+v, want %d", w.name, port, c.Ports, programPorts[comp])
			continue
		}
		if host, _ := arg(c.Args, "host"); host != "0.0.0.0" {
			t.Errorf("%s: -host %q, want 0.0.0.0 (reachable from other pods)", w.name, host)
		}
		for kind, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
			if p == nil || p.HTTPGet == nil {
				t.Errorf("%s: no HTTP %s probe", w.name, kind)
				continue
			}
			g := p.HTTPGet
			if g.Path != "/health" || g.Scheme != corev1.URISchemeHTTPS || (g.Port.String() != c.Ports[0].Name && g.Port.IntValue() != int(c.Ports[0].ContainerPort)) {
				t.Errorf("%s: %s probe %+v, want HTTPS GET /health on port %s", w.name, kind, g, c.Ports[0].Name)
			}
		}
		// Metrics are served on the agents' port.
		a := w.template.Annotations
		if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != port || a["prometheus.io/path"] != "/metrics" || a["prometheus.io/scheme"] != "https" {
			t.Errorf("%s: scrape annotations %v, want /metrics over https on port %s", w.name, a, port)
		}
	}
	if len(seen) != len(servers) {
		t.Errorf("servers seen %v, want %v", seen, servers)
	}
}

func TestSecretsAndTLS(t *testing.T) {
	l := loadLeague(t)
	if k := l.kustomizations[manifestsRoot]; k.GeneratorOpts == nil || !k.GeneratorOpts.DisableNameSuffixHash {
		t.Error("generated Secrets need fixed names: the start-league Job is applied on its own")
	}
	for name, keys := range map[string][]string{
		adminSecret:  {adminKey, "ca.crt", "tls.crt", "tls.key"},
		playerSecret: {"ca.crt", "tls.crt", "tls.key"},
	} {
		if got := l.secrets[name]; !slices.Equal(got, keys) {
			t.Errorf("Secret %s has keys %v, want %v", name, got, keys)
		}
	}
	for _, w := range l.workloads() {
		comp := component(w.template)
		spec := w.template.Spec
		c := spec.Containers[0]
		// Which secret keys reach the container, as files or variables.
		files := map[string]string{} // mounted path → secret/key
		for _, v := range spec.Volumes {
			if v.Secret == nil {
				continue
			}
			keys := l.secrets[v.Secret.SecretName]
			if keys == nil {
				t.Errorf("%s: volume %s names Secret %q, which the kustomization does not make", w.name, v.Name, v.Secret.SecretName)
			}
			if m := v.Secret.DefaultMode; m == nil || *m&0o007 != 0 {
				t.Errorf("%s: Secret volume %s is readable by others (mode %v)", w.name, v.Name, m)
			}
			var dir string
			for _, m := range c.VolumeMounts {
				if m.Name == v.Name {
					dir = m.MountPath
					if !m.ReadOnly {
						t.Errorf("%s: Secret volume %s mounted writable", w.name, v.Name)
					}
				}
			}
			if len(v.Secret.Items) == 0 {
				for _, k := range keys {
					files[dir+"/"+k] = v.Secret.SecretName + "/" + k
				}
			}
			for _, it := range v.Secret.Items {
				if !slices.Contains(keys, it.Key) {
					t.Errorf("%s: volume %s names key %s, which Secret %s lacks", w.name, v.Name, it.Key, v.Secret.SecretName)
				}
				files[dir+"/"+it.Path] = v.Secret.SecretName + "/" + it.Key
			}
		}
		vars := map[string]string{}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				r := e.ValueFrom.SecretKeyRef
				if !slices.Contains(l.secrets[r.Name], r.Key) {
					t.Errorf("%s: variable %s names %s/%s, which the kustomization does not make", w.name, e.Name, r.Name, r.Key)
				}
				vars[e.Name] = r.Name + "/" + r.Key
			}
		}
		exposed := slices.Collect(maps.Values(files))
		exposed = append(exposed, slices.Collect(maps.Values(vars))...)

		// The admin token goes to the manager and the Job only, from a
		// variable the arguments expand.
		hasToken := slices.Contains(exposed, adminSecret+"/"+adminKey)
		wantToken := comp == "manager" || comp == "start-league"
		if hasToken != wantToken {
			t.Errorf("%s sees the admin token: %v, want %v", w.name, hasToken, wantToken)
		}
		if wantToken {
			tok, _ := arg(c.Args, "admin-token")
			name, ok := strings.CutPrefix(tok, "$(")
			if !ok || vars[strings.TrimSuffix(name, ")")] != adminSecret+"/"+adminKey {
				t.Errorf("%s: -admin-token %q, want the variable holding %s/%s", w.name, tok, adminSecret, adminKey)
			}
		}
		// Players hold their own key, never the manager's.
		for _, e := range exposed {
			if comp == "player" && strings.HasPrefix(e, adminSecret+"/") {
				t.Errorf("a player sees %s", e)
			}
		}
		// TLS: servers serve their certificate, everyone trusts the CA.
		wantFiles := map[string]string{"ca": "ca.crt"}
		if slices.Contains(servers, comp) {
			wantFiles["tls-cert"], wantFiles["tls-key"] = "tls.crt", "tls.key"
			if ep, _ := arg(c.Args, "endpoint"); !strings.HasPrefix(ep, "https://") {
				t.Errorf("%s advertises %q, want https", w.name, ep)
			}
		}
		// Peers called at a pod address are checked against the names of
		// the league's certificates (-tls-peer-name): players call only
		// referees there; the manager and the referees call players too.
		if slices.Contains(servers, comp) {
			want := "league-manager.agent-league.svc"
			if comp != "player" {
				want += ",league-player.agent-league.svc"
			}
			if got, _ := arg(c.Args, "tls-peer-name"); got != want {
				t.Errorf("%s: -tls-peer-name %q, want %q", w.name, got, want)
			}
		}
		for flag, key := range wantFiles {
			path, ok := arg(c.Args, flag)
			ref := files[path]
			if !ok || !strings.HasSuffix(ref, "/"+key) {
				t.Errorf("%s: -%s %q is not the mounted key %s (mounted: %v)", w.name, flag, path, key, files)
			}
			if comp == "player" && !strings.HasPrefix(ref, playerSecret+"/") {
				t.Errorf("player -%s comes from %q, want %s", flag, ref, playerSecret)
			}
		}
	}
}

func TestStartLeagueJob(t *testing.T) {
	l := loadLeague(t)
	if len(l.jobs) != 1 {
		t.Fatalf("%d Jobs, want 1", len(l.jobs))
	}
	j := l.jobs[0]
	if k, ok := l.kustomizations[filepath.Join(manifestsRoot, "start-league")]; !ok || !slices.Contains(k.Resources, "job.yaml") {
		t.Error("the Job is not in its own kustomization: the operator applies it when registration is done")
	}
	if slices.Contains(l.kustomizations[manifestsRoot].Resources, "start-league/job.yaml") {
		t.Error("the league's kustomization would start the league at once")
	}
	spec := j.Spec.Template.Spec
	c := spec.Containers[0]
	if c.Command[0] != "/usr/local/bin/manager" {
		t.Errorf("Job command %v, want the manager program's client mode", c.Command)
	}
	if _, ok := arg(c.Args, "start-league"); !ok {
		t.Errorf("Job args %v lack -start-league", c.Args)
	}
	if spec.RestartPolicy != corev1.RestartPolicyNever && spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("Job restart policy %q", spec.RestartPolicy)
	}
	if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit < 1 || j.Spec.ActiveDeadlineSeconds == nil || j.Spec.TTLSecondsAfterFinished == nil {
		t.Errorf("Job backoff %v, deadline %v, ttl %v: want retries, a deadline and clean-up", j.Spec.BackoffLimit, j.Spec.ActiveDeadlineSeconds, j.Spec.TTLSecondsAfterFinished)
	}
	if c.LivenessProbe != nil || c.ReadinessProbe != nil || len(c.Ports) > 0 {
		t.Error("the Job serves nothing: no ports, no probes")
	}
}

// TestProgramsAcceptTheArguments builds the programs the manifests run and
// gives each the arguments of its container, followed by -h: the flag
// package stops at the first flag that does not exist or whose value does
// not parse, and exits 0 only when all of them do.
func TestProgramsAcceptTheArguments(t *testing.T) {
	l := loadLeague(t)
	bin := t.TempDir()
	var pkgs []string
	for _, w := range l.workloads() {
		pkg := "./examples/" + filepath.Base(w.template.Spec.Containers[0].Command[0])
		if !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
	}
	build := exec.Command("go", append([]string{"build", "-o", bin + string(filepath.Separator)}, pkgs...)...)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", pkgs, err, out)
	}
	usageFlag := regexp.MustCompile(`(?m)^  -([a-z0-9-]+)`)
	for _, w := range l.workloads() {
		c := w.template.Spec.Containers[0]
		prog := filepath.Join(bin, filepath.Base(c.Command[0]))
		usage, _ := exec.Command(prog, "-h").CombinedOutput()
		var defined []string
		for _, m := range usageFlag.FindAllStringSubmatch(string(usage), -1) {
			defined = append(defined, m[1])
		}
		if len(defined) == 0 {
			t.Fatalf("%s -h lists no flags:\n%s", prog, usage)
		}
		var args []string
		for _, a := range c.Args {
			name, _, ok := strings.Cut(strings.TrimPrefix(a, "-"), "=")
			switch {
			case !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--") || !ok:
				t.Errorf("%s: argument %q, want -flag=value", w.name, a)
			case slices.Contains(defined, name):
				args = append(args, a)
			default:
				t.Errorf("%s: %s has no flag -%s", w.name, filepath.Base(prog), name)
			}
		}
		if out, err := exec.Command(prog, append(args, "-h")...).CombinedOutput(); err != nil {
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			t.Errorf("%s: %s refuses its arguments: %v: %s", w.name, filepath.Base(prog), err, lines[len(lines)-1])
		}
	}
}

// TestStrictYAMLDocuments catches YAML the decoder would accept but a
// person would misread: tabs and a document without apiVersion.
func TestStrictYAMLDocuments(t *testing.T) {
	err := filepath.WalkDir(manifestsRoot, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(raw, []byte("\t")) {
			t.Errorf("%s contains a tab", path)
		}
		for i, doc := range splitDocuments(raw) {
			if !regexp.MustCompile(`(?m)^apiVersion: `).Match(doc) {
				t.Errorf("%s document %d has no apiVersion", path, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
