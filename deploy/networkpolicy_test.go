package deploy

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// peer is one end of a connection: a pod's namespace, its namespace's
// labels and its own labels.
type peer struct {
	namespace string
	nsLabels  map[string]string
	labels    map[string]string
}

func leaguePod(comp string) peer {
	return peer{namespace: namespace, nsLabels: map[string]string{"kubernetes.io/metadata.name": namespace},
		labels: map[string]string{"app.kubernetes.io/name": "agent-league", "app.kubernetes.io/component": comp}}
}

var (
	dnsPod     = peer{namespace: "kube-system", nsLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}, labels: map[string]string{"k8s-app": "kube-dns"}}
	foreignPod = peer{namespace: "default", nsLabels: map[string]string{"kubernetes.io/metadata.name": "default"}, labels: map[string]string{"app": "curious"}}
	// A pod of the league's namespace that is not part of the league.
	strayPod = peer{namespace: namespace, nsLabels: map[string]string{"kubernetes.io/metadata.name": namespace}, labels: map[string]string{"app": "debug"}}
)

// allowed evaluates the NetworkPolicies as Kubernetes does for a
// connection from src to dst on port/proto: the ingress side must allow it
// (no ingress policy selects dst, or one of those that do lets src in) and
// so must the egress side.
func allowed(policies []*networkingv1.NetworkPolicy, src, dst peer, port int32, proto corev1.Protocol) bool {
	return side(policies, dst, src, port, proto, networkingv1.PolicyTypeIngress) &&
		side(policies, src, dst, port, proto, networkingv1.PolicyTypeEgress)
}

// side evaluates one direction: the policies selecting subject of the given
// type, and whether any of their rules admits other on port/proto.
func side(policies []*networkingv1.NetworkPolicy, subject, other peer, port int32, proto corev1.Protocol, typ networkingv1.PolicyType) bool {
	isolated := false
	for _, p := range policies {
		if p.Namespace != subject.namespace || !matches(&p.Spec.PodSelector, subject.labels) || !hasType(p, typ) {
			continue
		}
		isolated = true
		if typ == networkingv1.PolicyTypeIngress {
			for _, r := range p.Spec.Ingress {
				if peersAdmit(r.From, p.Namespace, other) && portsAdmit(r.Ports, port, proto) {
					return true
				}
			}
		} else {
			for _, r := range p.Spec.Egress {
				if peersAdmit(r.To, p.Namespace, other) && portsAdmit(r.Ports, port, proto) {
					return true
				}
			}
		}
	}
	return !isolated
}

func hasType(p *networkingv1.NetworkPolicy, typ networkingv1.PolicyType) bool {
	if len(p.Spec.PolicyTypes) == 0 {
		return typ == networkingv1.PolicyTypeIngress || len(p.Spec.Egress) > 0
	}
	for _, t := range p.Spec.PolicyTypes {
		if t == typ {
			return true
		}
	}
	return false
}

func peersAdmit(peers []networkingv1.NetworkPolicyPeer, policyNS string, other peer) bool {
	if len(peers) == 0 {
		return true
	}
	for _, p := range peers {
		if p.IPBlock != nil {
			continue // the league's policies name pods, never addresses
		}
		nsOK := other.namespace == policyNS
		if p.NamespaceSelector != nil {
			nsOK = matches(p.NamespaceSelector, other.nsLabels)
		}
		podOK := p.PodSelector == nil || matches(p.PodSelector, other.labels)
		if nsOK && podOK {
			return true
		}
	}
	return false
}

func portsAdmit(ports []networkingv1.NetworkPolicyPort, port int32, proto corev1.Protocol) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		pr := corev1.ProtocolTCP
		if p.Protocol != nil {
			pr = *p.Protocol
		}
		if pr == proto && (p.Port == nil || p.Port.IntValue() == int(port)) {
			return true
		}
	}
	return false
}

func matches(sel *metav1.LabelSelector, labels map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false
	}
	return s.Matches(labelSet(labels))
}

type labelSet map[string]string

func (l labelSet) Has(k string) bool   { _, ok := l[k]; return ok }
func (l labelSet) Get(k string) string { return l[k] }
func (l labelSet) Lookup(k string) (string, bool) {
	v, ok := l[k]
	return v, ok
}

func TestNetworkPolicies(t *testing.T) {
	l := loadLeague(t)
	manager, referee, player, job := leaguePod("manager"), leaguePod("referee"), leaguePod("player"), leaguePod("start-league")
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	for _, c := range []struct {
		what     string
		src, dst peer
		port     int32
		proto    corev1.Protocol
		want     bool
	}{
		// Players accept calls only from the referees and the manager…
		{"manager calls a player", manager, player, 8101, tcp, true},
		{"a referee calls a player", referee, player, 8101, tcp, true},
		{"a player calls a player", player, player, 8101, tcp, false},
		{"the Job calls a player", job, player, 8101, tcp, false},
		{"a stray pod calls a player", strayPod, player, 8101, tcp, false},
		{"another namespace calls a player", foreignPod, player, 8101, tcp, false},
		{"a referee calls a player on another port", referee, player, 22, tcp, false},
		// …and call only them, plus DNS.
		{"a player calls the manager", player, manager, 8000, tcp, true},
		{"a player calls a referee", player, referee, 8001, tcp, true},
		{"a player resolves names", player, dnsPod, 53, udp, true},
		{"a player resolves names over TCP", player, dnsPod, 53, tcp, true},
		{"a player calls another namespace", player, foreignPod, 8080, tcp, false},
		{"a player calls a stray pod", player, strayPod, 8080, tcp, false},
		{"a player calls the manager on another port", player, manager, 9000, tcp, false},
		// The rest of the league works.
		{"a referee calls the manager", referee, manager, 8000, tcp, true},
		{"the Job calls the manager", job, manager, 8000, tcp, true},
		{"the manager calls a referee", manager, referee, 8001, tcp, true},
		{"the manager resolves names", manager, dnsPod, 53, udp, true},
		{"another namespace calls the manager", foreignPod, manager, 8000, tcp, false},
		{"another namespace calls a referee", foreignPod, referee, 8001, tcp, false},
		{"the Job calls a referee", job, referee, 8001, tcp, false},
	} {
		if got := allowed(l.policies, c.src, c.dst, c.port, c.proto); got != c.want {
			t.Errorf("%s (port %d/%s): allowed %v, want %v", c.what, c.port, c.proto, got, c.want)
		}
	}
	// Each side holds on its own: a player's ingress refuses other players
	// even if its egress were opened, and the reverse.
	if side(l.policies, player, player, 8101, tcp, networkingv1.PolicyTypeIngress) {
		t.Error("a player's ingress admits another player")
	}
	if side(l.policies, player, player, 8101, tcp, networkingv1.PolicyTypeEgress) {
		t.Error("a player's egress reaches another player")
	}
}
