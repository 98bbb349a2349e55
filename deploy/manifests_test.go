package deploy

import (
	"bytes"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
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

// kustomization is the part of kustomize's Kustomization (and Component)
// the manifests use; decoding it strictly makes any other field an error.
type kustomization struct {
	APIVersion         string               `json:"apiVersion"`
	Kind               string               `json:"kind"`
	Namespace          string               `json:"namespace"`
	Resources          []string             `json:"resources"`
	Components         []string             `json:"components"`
	Patches            []patch              `json:"patches"`
	Replicas           []replicaCount       `json:"replicas"`
	SecretGenerator    []secretGenerator    `json:"secretGenerator"`
	ConfigMapGenerator []configMapGenerator `json:"configMapGenerator"`
	GeneratorOpts      *struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
}

// patch is an inline patch of a kustomization, a strategic merge patch or
// a JSON 6902 one, applied to the objects target selects.
type patch struct {
	Target struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
		Name    string `json:"name"`
	} `json:"target"`
	Patch string `json:"patch"`
}

type replicaCount struct {
	Name  string `json:"name"`
	Count int32  `json:"count"`
}

type configMapGenerator struct {
	Name    string   `json:"name"`
	Files   []string `json:"files"`
	Options struct {
		DisableNameSuffixHash bool              `json:"disableNameSuffixHash"`
		Labels                map[string]string `json:"labels"`
	} `json:"options"`
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

// scaledObject is the part of KEDA's ScaledObject (keda.sh/v1alpha1) the
// manifests use, with the field names of KEDA's API; KEDA's Go module is
// too large a dependency for a test.
type scaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicaCount *int32 `json:"minReplicaCount"`
		MaxReplicaCount *int32 `json:"maxReplicaCount"`
		PollingInterval *int32 `json:"pollingInterval"`
		CooldownPeriod  *int32 `json:"cooldownPeriod"`
		Fallback        *struct {
			FailureThreshold int32 `json:"failureThreshold"`
			Replicas         int32 `json:"replicas"`
		} `json:"fallback"`
		Advanced *struct {
			HorizontalPodAutoscalerConfig *struct {
				Behavior *autoscalingv2.HorizontalPodAutoscalerBehavior `json:"behavior"`
			} `json:"horizontalPodAutoscalerConfig"`
		} `json:"advanced"`
		Triggers []struct {
			Type       string            `json:"type"`
			MetricType string            `json:"metricType"`
			Metadata   map[string]string `json:"metadata"`
		} `json:"triggers"`
	} `json:"spec"`
}

// league is every object of a set of manifests, decoded strictly.
type league struct {
	kustomizations map[string]kustomization // by directory
	namespaces     []*corev1.Namespace
	services       []*corev1.Service
	statefulSets   []*appsv1.StatefulSet
	deployments    []*appsv1.Deployment
	jobs           []*batchv1.Job
	policies       []*networkingv1.NetworkPolicy
	quotas         []*corev1.ResourceQuota
	budgets        []*policyv1.PodDisruptionBudget
	autoscalers    []*autoscalingv2.HorizontalPodAutoscaler
	scaledObjects  []*scaledObject
	podMonitors    []*monitoringv1.PodMonitor
	rules          []*monitoringv1.PrometheusRule
	configMaps     []*corev1.ConfigMap
	rendered       []*corev1.Secret    // Secrets, in kustomize's output
	secrets        map[string][]string // generated Secret → keys
	// components holds the objects of each component under components/,
	// by its name; the league itself holds those of the base.
	components map[string]*league
}

func newLeague() *league {
	return &league{kustomizations: map[string]kustomization{}, secrets: map[string][]string{}, components: map[string]*league{}}
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

// with returns a league holding l's objects and those of the named
// components, as an overlay of the base with those components holds them
// (before kustomize's patches).
func (l *league) with(names ...string) *league {
	out := *l
	for _, n := range names {
		c := l.components[n]
		out.policies = append(slices.Clip(out.policies), c.policies...)
		out.autoscalers = append(slices.Clip(out.autoscalers), c.autoscalers...)
		out.scaledObjects = append(slices.Clip(out.scaledObjects), c.scaledObjects...)
		out.podMonitors = append(slices.Clip(out.podMonitors), c.podMonitors...)
		out.rules = append(slices.Clip(out.rules), c.rules...)
	}
	return &out
}

const (
	overlaysRoot   = "overlays"
	componentsRoot = manifestsRoot + "/components"
)

// loadLeague decodes every YAML file under kubernetes/ and overlays/:
// each document strictly into its API type (an unknown field, a wrong type
// or a duplicate key is an error), and each kustomization.yaml into
// kustomization. Every manifest must be a resource of a kustomization;
// objects of a component go to l.components.
func loadLeague(t *testing.T) *league {
	t.Helper()
	l := newLeague()
	listed := map[string]bool{}
	var files []string
	for _, root := range []string{manifestsRoot, overlaysRoot} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
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
	}
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(path)
		if filepath.Base(path) == "kustomization.yaml" {
			var k kustomization
			if err := yaml.UnmarshalStrict(raw, &k); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			component := filepath.Dir(dir) == componentsRoot
			switch {
			case component && (k.APIVersion != "kustomize.config.k8s.io/v1alpha1" || k.Kind != "Component" || k.Namespace != ""):
				t.Errorf("%s: apiVersion %q, kind %q, namespace %q; want a Component", path, k.APIVersion, k.Kind, k.Namespace)
			case !component && (k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" || k.Namespace != namespace):
				t.Errorf("%s: apiVersion %q, kind %q, namespace %q", path, k.APIVersion, k.Kind, k.Namespace)
			}
			l.kustomizations[dir] = k
			for _, r := range append(slices.Clone(k.Resources), k.Components...) {
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
			for _, g := range k.ConfigMapGenerator {
				for _, f := range g.Files {
					listed[filepath.Join(dir, f)] = true
				}
			}
			continue
		}
		if !strings.HasPrefix(path, manifestsRoot+string(filepath.Separator)) {
			t.Errorf("%s: overlays hold kustomizations only; objects belong to the base or a component", path)
			continue
		}
		into := l
		if rel, err := filepath.Rel(componentsRoot, dir); err == nil && !strings.HasPrefix(rel, "..") {
			if into = l.components[rel]; into == nil {
				into = newLeague()
				l.components[rel] = into
			}
		}
		for i, doc := range splitDocuments(raw) {
			into.decode(t, fmt.Sprintf("%s, document %d", path, i+1), doc)
		}
	}
	for _, path := range files {
		if !listed[path] && filepath.Base(path) != "kustomization.yaml" {
			t.Errorf("%s is not a resource of any kustomization.yaml", path)
		}
	}
	for path := range listed {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("a kustomization lists %s, which does not exist", path)
		}
	}
	return l
}

// decode decodes one object strictly into l and checks its namespace and
// its part-of label.
func (l *league) decode(t *testing.T, where string, doc []byte) {
	t.Helper()
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
	case "v1 ConfigMap":
		obj = add(&l.configMaps)
	case "v1 Secret":
		obj = add(&l.rendered)
	case "apps/v1 StatefulSet":
		obj = add(&l.statefulSets)
	case "apps/v1 Deployment":
		obj = add(&l.deployments)
	case "batch/v1 Job":
		obj = add(&l.jobs)
	case "networking.k8s.io/v1 NetworkPolicy":
		obj = add(&l.policies)
	case "policy/v1 PodDisruptionBudget":
		obj = add(&l.budgets)
	case "autoscaling/v2 HorizontalPodAutoscaler":
		obj = add(&l.autoscalers)
	case "keda.sh/v1alpha1 ScaledObject":
		obj = add(&l.scaledObjects)
	case "monitoring.coreos.com/v1 PodMonitor":
		obj = add(&l.podMonitors)
	case "monitoring.coreos.com/v1 PrometheusRule":
		obj = add(&l.rules)
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
	if meta.GetLabels()["app.kubernetes.io/part-of"] != namespace && tm.Kind != "Secret" {
		t.Errorf("%s: %s %s lacks the label app.kubernetes.io/part-of=%s", where, tm.Kind, meta.GetName(), namespace)
	}
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

func (l *league) statefulSet(t *testing.T, name string) *appsv1.StatefulSet {
	t.Helper()
	for _, s := range l.statefulSets {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no StatefulSet %s", name)
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
	var dirs []string
	for dir := range l.kustomizations {
		dirs = append(dirs, filepath.ToSlash(dir))
	}
	slices.Sort(dirs)
	wantDirs := []string{"kubernetes", "kubernetes/components/autoscaling-cpu", "kubernetes/components/autoscaling-queue",
		"kubernetes/components/monitoring", "kubernetes/components/plain-http", "kubernetes/start-league",
		"overlays/lab", "overlays/lab/start-league", "overlays/production", "overlays/queue-autoscaling"}
	if !slices.Equal(dirs, wantDirs) {
		t.Errorf("kustomizations %v, want %v", dirs, wantDirs)
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
	want := []string{"Job/start-league/start-league", "StatefulSet/league-manager/manager", "StatefulSet/league-player/player", "StatefulSet/league-referee/referee"}
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
	ss := l.statefulSet(t, "league-manager")
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

func TestRefereesAndPlayersKeepTheirIdentity(t *testing.T) {
	checkIdentity(t, loadLeague(t), "https")
}

// checkIdentity checks that referees and players keep their name, address
// and data across a restart or a move: StatefulSets governed by a headless
// Service that publishes every pod's name, each pod registering under its
// pod name with an endpoint of its own DNS name, its data root on a claim
// of its own that outlives a scale-in.
func checkIdentity(t *testing.T, l *league, scheme string) {
	t.Helper()
	for _, tc := range []struct {
		name        string
		minReplicas int32
	}{{"league-referee", 2}, {"league-player", 2}} {
		ss := l.statefulSet(t, tc.name)
		if ss.Spec.Replicas != nil && *ss.Spec.Replicas < tc.minReplicas {
			t.Errorf("%s: replicas %v, want at least %d", ss.Name, *ss.Spec.Replicas, tc.minReplicas)
		}
		if !selects(ss.Spec.Selector.MatchLabels, ss.Spec.Template.Labels) {
			t.Errorf("%s: selector %v does not select %v", ss.Name, ss.Spec.Selector.MatchLabels, ss.Spec.Template.Labels)
		}
		svc := l.service(ss.Spec.ServiceName)
		if svc == nil {
			t.Errorf("%s: no governing Service %q", ss.Name, ss.Spec.ServiceName)
			continue
		}
		if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses || !selects(svc.Spec.Selector, ss.Spec.Template.Labels) {
			t.Errorf("Service %s: clusterIP %q, publishNotReadyAddresses %v, selector %v; want headless, publishing every pod of %s",
				svc.Name, svc.Spec.ClusterIP, svc.Spec.PublishNotReadyAddresses, svc.Spec.Selector, ss.Name)
		}
		c := ss.Spec.Template.Spec.Containers[0]
		env := map[string]string{}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.FieldRef != nil {
				env[e.Name] = e.ValueFrom.FieldRef.FieldPath
			}
		}
		podName := ""
		for name, field := range env {
			if field == "metadata.name" {
				podName = name
			}
		}
		// The pod's own DNS name: <pod>.<service>.<namespace>.svc.
		endpoint, _ := arg(c.Args, "endpoint")
		want := fmt.Sprintf("%s://$(%s).%s.%s.svc:%d/mcp", scheme, podName, svc.Name, svc.Namespace, c.Ports[0].ContainerPort)
		if podName == "" || endpoint != want || svc.Spec.Ports[0].Port != c.Ports[0].ContainerPort {
			t.Errorf("%s: -endpoint %q, env %v: want %s with %s from metadata.name", ss.Name, endpoint, env, want, podName)
		}
		// Replicas need distinct display names, the same after a restart:
		// the pod name.
		if name, _ := arg(c.Args, "name"); name != "$("+podName+")" {
			t.Errorf("%s: -name %q, want the pod name from the downward API", ss.Name, name)
		}
		// The data root is a claim of the pod's own, kept when the set
		// scales in or is deleted: a pod that comes back finds its
		// registration and its history.
		data, _ := arg(c.Args, "data")
		m := mount(c, data)
		if data == "" || m == nil || m.ReadOnly {
			t.Errorf("%s: -data %q is not a writable volume", ss.Name, data)
			continue
		}
		claim := false
		for _, pvc := range ss.Spec.VolumeClaimTemplates {
			claim = claim || (pvc.Name == m.Name && slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteOnce) && !pvc.Spec.Resources.Requests.Storage().IsZero())
		}
		for _, v := range ss.Spec.Template.Spec.Volumes {
			if v.Name == m.Name {
				claim = false // a volume of the template would shadow the claim
			}
		}
		if !claim {
			t.Errorf("%s: the data root %s (volume %s) is not a volume claim template", ss.Name, data, m.Name)
		}
		if p := ss.Spec.PersistentVolumeClaimRetentionPolicy; p == nil || p.WhenScaled != appsv1.RetainPersistentVolumeClaimRetentionPolicyType ||
			p.WhenDeleted != appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
			t.Errorf("%s: claim retention %+v; a pod scaled in and out again must find its data", ss.Name, p)
		}
	}
}

func TestRefereesDrainWithinTheirTerminationGrace(t *testing.T) {
	checkDrain(t, loadLeague(t))
}

// checkDrain checks that a referee told to stop has the time to finish its
// matches: -grace covers the longest match its timeouts allow, and the
// pod's termination grace covers -grace with time to spare for the last
// report and the server's shutdown.
func checkDrain(t *testing.T, l *league) {
	t.Helper()
	ref := l.statefulSet(t, "league-referee")
	args := ref.Spec.Template.Spec.Containers[0].Args
	flag := func(name, def string) time.Duration {
		v, ok := arg(args, name)
		if !ok {
			v = def
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("referee -%s=%s: %v", name, v, err)
		}
		return d
	}
	retries := 3
	if v, ok := arg(args, "retries"); ok {
		retries, _ = strconv.Atoi(v)
	}
	// The referee's defaults (referee.Config, leaguesdk): join 5 s, move
	// 30 s, 3 retries 2 s apart, GAME_OVER 5 s, the report 10 s.
	tries := time.Duration(retries + 1)
	longest := tries*flag("join-timeout", "5s") + tries*flag("move-timeout", "30s") +
		2*time.Duration(retries)*flag("retry-delay", "2s") + 5*time.Second + 10*time.Second
	grace := flag("grace", "30s")
	if grace < longest {
		t.Errorf("referee -grace %v is shorter than the longest match its timeouts allow, %v", grace, longest)
	}
	g := ref.Spec.Template.Spec.TerminationGracePeriodSeconds
	if g == nil || time.Duration(*g)*time.Second < grace+15*time.Second {
		t.Errorf("referee terminationGracePeriodSeconds %v, want at least -grace %v + 15 s", g, grace)
	}
}

func TestDisruptionBudgets(t *testing.T) {
	checkBudgets(t, loadLeague(t))
}

// checkBudgets checks the PodDisruptionBudgets: the manager is never
// evicted while healthy, referees and players one at a time, and each
// budget selects exactly its component's pods.
func checkBudgets(t *testing.T, l *league) {
	t.Helper()
	want := map[string]int{"manager": 0, "referee": 1, "player": 1}
	seen := map[string]bool{}
	for _, b := range l.budgets {
		var selected []string
		for _, w := range l.workloads() {
			if matches(b.Spec.Selector, w.template.Labels) {
				selected = append(selected, component(w.template))
			}
		}
		if len(selected) != 1 {
			t.Errorf("PodDisruptionBudget %s selects %v, want one component", b.Name, selected)
			continue
		}
		comp := selected[0]
		seen[comp] = true
		limit, ok := want[comp]
		if !ok || b.Spec.MaxUnavailable == nil || b.Spec.MaxUnavailable.IntValue() != limit || b.Spec.MinAvailable != nil {
			t.Errorf("PodDisruptionBudget %s (%s): maxUnavailable %v, minAvailable %v; want maxUnavailable %d", b.Name, comp, b.Spec.MaxUnavailable, b.Spec.MinAvailable, limit)
		}
		if p := b.Spec.UnhealthyPodEvictionPolicy; p == nil || *p != policyv1.AlwaysAllow {
			t.Errorf("PodDisruptionBudget %s: an unhealthy pod must not block a drain (unhealthyPodEvictionPolicy %v)", b.Name, p)
		}
	}
	for comp := range want {
		if !seen[comp] {
			t.Errorf("no PodDisruptionBudget for the %s", comp)
		}
	}
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
		// Every peer is called by a DNS name its certificate holds (the
		// guide issues them): none at an IP address, so no -tls-peer-name.
		if _, ok := arg(c.Args, "tls-peer-name"); ok {
			t.Errorf("%s: -tls-peer-name, though no peer is called at an IP address", w.name)
		}
		for _, flag := range []string{"endpoint", "league", "start-league"} {
			if u, ok := arg(c.Args, flag); ok {
				if p, err := url.Parse(strings.ReplaceAll(u, "$(POD_NAME)", "pod")); err != nil || net.ParseIP(p.Hostname()) != nil || strings.Contains(u, "POD_IP") {
					t.Errorf("%s: -%s %q is not a DNS name", w.name, flag, u)
				}
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
	bin := programDir(t)
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
