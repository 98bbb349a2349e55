package deploy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
)

func TestAutoscalingComponents(t *testing.T) {
	l := loadLeague(t)
	for _, c := range []string{"autoscaling-cpu", "autoscaling-queue"} {
		t.Run(c, func(t *testing.T) { checkAutoscaling(t, l.with(c)) })
	}
}

// checkAutoscaling checks every autoscaler of l (HorizontalPodAutoscalers
// and KEDA ScaledObjects): it scales the referees' StatefulSet, which has
// no replicas of its own then (rendered) and one autoscaler only; it
// keeps two referees at least, so that a drain, which the budget lets
// take one, leaves one; it scales in one referee at a time, no more often
// than a referee's termination grace; and it scales on the referees' CPU,
// which the referee requests, or on the matches that need a referee.
func checkAutoscaling(t *testing.T, l *league) {
	t.Helper()
	type scaler struct {
		what                     string
		apiVersion, kind, target string
		min, max                 int32
		behavior                 *autoscalingv2.HorizontalPodAutoscalerBehavior
	}
	var scalers []scaler
	ref := l.statefulSet(t, "league-referee")
	c := ref.Spec.Template.Spec.Containers[0]
	capacity, _ := arg(c.Args, "max-concurrent")
	for _, h := range l.autoscalers {
		s := scaler{"HorizontalPodAutoscaler " + h.Name, h.Spec.ScaleTargetRef.APIVersion, h.Spec.ScaleTargetRef.Kind,
			h.Spec.ScaleTargetRef.Name, 0, h.Spec.MaxReplicas, h.Spec.Behavior}
		if h.Spec.MinReplicas != nil {
			s.min = *h.Spec.MinReplicas
		}
		scalers = append(scalers, s)
		cpu := slices.ContainsFunc(h.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
			return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource.Name == corev1.ResourceCPU &&
				m.Resource.Target.Type == autoscalingv2.UtilizationMetricType && m.Resource.Target.AverageUtilization != nil
		})
		if !cpu || len(h.Spec.Metrics) != 1 {
			t.Errorf("%s: metrics %+v, want the CPU utilization only", s.what, h.Spec.Metrics)
		}
	}
	for _, o := range l.scaledObjects {
		s := scaler{what: "ScaledObject " + o.Name, apiVersion: o.Spec.ScaleTargetRef.APIVersion, kind: o.Spec.ScaleTargetRef.Kind,
			target: o.Spec.ScaleTargetRef.Name}
		if o.Spec.MinReplicaCount != nil && o.Spec.MaxReplicaCount != nil {
			s.min, s.max = *o.Spec.MinReplicaCount, *o.Spec.MaxReplicaCount
		}
		if a := o.Spec.Advanced; a != nil && a.HorizontalPodAutoscalerConfig != nil {
			s.behavior = a.HorizontalPodAutoscalerConfig.Behavior
		}
		scalers = append(scalers, s)
		queue := false
		for _, tr := range o.Spec.Triggers {
			switch tr.Type {
			case "prometheus":
				q := tr.Metadata["query"]
				queue = tr.MetricType == "AverageValue" && strings.Contains(q, "league_matches_waiting") &&
					strings.Contains(q, "league_matches_running") && tr.Metadata["threshold"] == capacity &&
					strings.HasPrefix(tr.Metadata["serverAddress"], "http")
			case "cpu":
			default:
				t.Errorf("%s: trigger %s", s.what, tr.Type)
			}
		}
		if !queue {
			t.Errorf("%s: no Prometheus trigger on the matches running and waiting, of threshold -max-concurrent %s: %+v", s.what, capacity, o.Spec.Triggers)
		}
		if f := o.Spec.Fallback; f == nil || f.Replicas < s.min {
			t.Errorf("%s: fallback %+v, want at least the minimum when Prometheus cannot be read", s.what, f)
		}
	}
	targets := map[string]int{}
	for _, s := range scalers {
		targets[s.target]++
		if s.apiVersion != "apps/v1" || s.kind != "StatefulSet" || s.target != ref.Name {
			t.Errorf("%s scales %s %s %s, want the referees' StatefulSet %s", s.what, s.apiVersion, s.kind, s.target, ref.Name)
		}
		if s.min < 2 || s.max < s.min {
			t.Errorf("%s: replicas %d to %d, want at least 2 (one drains, one plays)", s.what, s.min, s.max)
		}
		grace := int32(0)
		if g := ref.Spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
			grace = int32(*g)
		}
		down := (*autoscalingv2.HPAScalingRules)(nil)
		if s.behavior != nil {
			down = s.behavior.ScaleDown
		}
		if down == nil || down.StabilizationWindowSeconds == nil || *down.StabilizationWindowSeconds < 60 || len(down.Policies) == 0 {
			t.Errorf("%s: scale-down %+v, want a stabilization window and policies", s.what, down)
			continue
		}
		for _, p := range down.Policies {
			if p.Type != autoscalingv2.PodsScalingPolicy || p.Value != 1 || p.PeriodSeconds < grace {
				t.Errorf("%s: scale-down policy %+v, want one pod per %d s (the termination grace) at most", s.what, p, grace)
			}
		}
	}
	for target, n := range targets {
		if n > 1 {
			t.Errorf("%d autoscalers scale %s", n, target)
		}
	}
	if len(scalers) > 0 && l.rendered != nil && ref.Spec.Replicas != nil {
		t.Errorf("the autoscaled StatefulSet %s sets replicas %d, which each apply would reset", ref.Name, *ref.Spec.Replicas)
	}
	if len(l.autoscalers) > 0 {
		if req, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok || req.IsZero() {
			t.Error("the referee requests no CPU: a utilization target has nothing to divide by")
		}
	}
}

func TestMonitoringComponent(t *testing.T) {
	checkMonitoring(t, loadLeague(t).with("monitoring"))
}

// checkMonitoring checks the Prometheus Operator's objects: each server's
// pods are scraped by exactly one PodMonitor, on their protocol port, over
// the scheme they serve, trusting the CA their own Secret holds; the alerts
// the guide describes exist; and Prometheus, from the monitoring
// namespace, may reach the pods while other namespaces still may not.
func checkMonitoring(t *testing.T, l *league) {
	t.Helper()
	scraped := map[string]int{}
	for _, w := range l.workloads() {
		comp := component(w.template)
		if !slices.Contains(servers, comp) {
			continue
		}
		c := w.template.Spec.Containers[0]
		for _, pm := range l.podMonitors {
			if !matches(&pm.Spec.Selector, w.template.Labels) {
				continue
			}
			scraped[comp]++
			for _, ep := range pm.Spec.PodMetricsEndpoints {
				scheme := ""
				if ep.Scheme != nil {
					scheme = strings.ToLower(ep.Scheme.String())
				}
				if ep.Port == nil || *ep.Port != c.Ports[0].Name || ep.Path != "/metrics" || scheme != w.template.Annotations["prometheus.io/scheme"] {
					t.Errorf("PodMonitor %s scrapes %s at port %v path %q scheme %q, want %s /metrics %s", pm.Name, w.name, ep.Port, ep.Path,
						scheme, c.Ports[0].Name, w.template.Annotations["prometheus.io/scheme"])
				}
				if scheme != "https" {
					continue
				}
				tc := ep.TLSConfig
				if tc == nil || tc.ServerName == nil || *tc.ServerName == "" || tc.CA.Secret == nil {
					t.Errorf("PodMonitor %s: TLS config %+v, want a server name and the league's CA", pm.Name, tc)
					continue
				}
				caFrom := ""
				for _, v := range w.template.Spec.Volumes {
					if v.Secret != nil {
						caFrom = v.Secret.SecretName
					}
				}
				if tc.CA.Secret.Name != caFrom || tc.CA.Secret.Key != "ca.crt" {
					t.Errorf("PodMonitor %s trusts %s/%s, want %s/ca.crt, the CA %s holds", pm.Name, tc.CA.Secret.Name, tc.CA.Secret.Key, caFrom, w.name)
				}
			}
		}
	}
	for _, comp := range servers {
		if scraped[comp] != 1 {
			t.Errorf("the %s pods are scraped by %d PodMonitors, want 1", comp, scraped[comp])
		}
	}

	alerts := map[string]string{}
	for _, r := range l.rules {
		for _, g := range r.Spec.Groups {
			for _, rule := range g.Rules {
				if rule.Alert != "" {
					alerts[rule.Alert] = rule.Expr.String()
					if rule.For == nil || rule.Labels["severity"] == "" || rule.Annotations["summary"] == "" {
						t.Errorf("alert %s: for %v, labels %v, annotations %v; want a duration, a severity and a summary", rule.Alert, rule.For, rule.Labels, rule.Annotations)
					}
				}
			}
		}
	}
	for alert, series := range map[string]string{
		"LeagueStalled":          "league_matches_finished",
		"LeagueRefereeFailing":   `league_agents{namespace="agent-league", kind="referee", state="SUSPENDED"}`,
		"LeaguePlayersSuspended": `league_agents{namespace="agent-league", kind="player", state="SUSPENDED"}`,
	} {
		if !strings.Contains(alerts[alert], series) {
			t.Errorf("alert %s: %q, want an expression on %s", alert, alerts[alert], series)
		}
	}

	prometheus := peer{namespace: "monitoring", nsLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"},
		labels: map[string]string{"app.kubernetes.io/name": "prometheus"}}
	for comp, port := range programPorts {
		if !allowed(l.policies, prometheus, leaguePod(comp), port, corev1.ProtocolTCP) {
			t.Errorf("Prometheus may not scrape the %s on port %d", comp, port)
		}
		if allowed(l.policies, foreignPod, leaguePod(comp), port, corev1.ProtocolTCP) {
			t.Errorf("another namespace may call the %s on port %d", comp, port)
		}
	}
}

// TestDashboard decodes the Grafana dashboard: every panel queries the
// league's series through the dashboard's Prometheus data source.
func TestDashboard(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(componentsRoot, "monitoring", "league-dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Title, UID string
		Templating struct {
			List []struct{ Name, Type string }
		}
		Panels []struct {
			Title      string
			Datasource struct{ UID string }
			Targets    []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" || len(d.Templating.List) == 0 || d.Templating.List[0].Type != "datasource" {
		t.Errorf("dashboard %q (uid %q) without its data source variable", d.Title, d.UID)
	}
	want := []string{"league_matches_finished", "league_matches_waiting", "league_referee_free_capacity",
		"league_calls_served_total", "league_call_duration_seconds_bucket", "league_agents"}
	var exprs []string
	for _, p := range d.Panels {
		if p.Datasource.UID != "${datasource}" || len(p.Targets) == 0 {
			t.Errorf("panel %q: data source %q, %d queries", p.Title, p.Datasource.UID, len(p.Targets))
		}
		for _, q := range p.Targets {
			exprs = append(exprs, q.Expr)
		}
	}
	all := strings.Join(exprs, "\n")
	for _, s := range want {
		if !strings.Contains(all, s) {
			t.Errorf("no panel shows %s", s)
		}
	}
}
