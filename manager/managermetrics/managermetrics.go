// Package managermetrics adds the league manager's progress to a
// [metrics.Metrics]: the gauges of matches, rounds, agents and referee
// capacity listed in package metrics, read from [manager.Manager.Progress]
// at each scrape. It lives beside the manager so that package metrics, and
// the player programs that use it, import no manager.
//
//	mtr := metrics.New()
//	mgr, err := manager.New(manager.Config{Observer: mtr, Routes: map[string]http.Handler{"GET /metrics": mtr.Handler()}})
//	...
//	managermetrics.Watch(mtr, mgr)
package managermetrics

import (
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentleague/league/manager"
	"github.com/agentleague/league/metrics"
)

// Watch adds to m the gauges of mgr's progress, read at each scrape.
func Watch(m *metrics.Metrics, mgr *manager.Manager) {
	m.Registry().MustRegister(progressCollector{mgr})
}

var (
	descRunning   = prometheus.NewDesc("league_matches_running", "Matches with a referee now.", nil, nil)
	descFinished  = prometheus.NewDesc("league_matches_finished", "Matches with a recorded result.", nil, nil)
	descScheduled = prometheus.NewDesc("league_matches_scheduled", "Matches in the schedule.", nil, nil)
	descRound     = prometheus.NewDesc("league_round_current", "The round being played.", nil, nil)
	descRounds    = prometheus.NewDesc("league_rounds_total", "Rounds in the schedule.", nil, nil)
	descPlayers   = prometheus.NewDesc("league_players_registered", "Players registered.", nil, nil)
	descReferees  = prometheus.NewDesc("league_referees_registered", "Referees registered.", nil, nil)
	descStatus    = prometheus.NewDesc("league_status", "1 for the league's current status.", []string{"status"}, nil)
	descWaiting   = prometheus.NewDesc("league_matches_waiting",
		"Matches of the current round waiting for a referee: neither finished nor with a referee.", nil, nil)
	descStalled = prometheus.NewDesc("league_matches_stalled",
		"Matches waiting that no referee can take: every referee able to play the game is SHUTDOWN (an alarm; 0 while the league goes on).", nil, nil)
	descCapacity = prometheus.NewDesc("league_referee_capacity",
		"Matches the referees able to take one may run at once (sum of their max_concurrent_matches).", nil, nil)
	descFree = prometheus.NewDesc("league_referee_free_capacity",
		"Matches the referees able to take one can take now, beyond those they run.", nil, nil)
	descAgents = prometheus.NewDesc("league_agents",
		"Registered agents by kind (player, referee) and lifecycle state.", []string{"kind", "state"}, nil)
)

// agentStates are the lifecycle states league_agents always reports, so
// that a state nobody is in reads 0 rather than absent.
var agentStates = []manager.AgentState{manager.StateRegistered, manager.StateActive,
	manager.StateSuspended, manager.StateShutdown}

// progressCollector reads Manager.Progress once per scrape.
type progressCollector struct{ mgr *manager.Manager }

func (c progressCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRunning, descFinished, descScheduled, descRound, descRounds,
		descPlayers, descReferees, descStatus, descWaiting, descStalled, descCapacity, descFree, descAgents} {
		ch <- d
	}
}

func (c progressCollector) Collect(ch chan<- prometheus.Metric) {
	p := c.mgr.Progress()
	for d, v := range map[*prometheus.Desc]int{descRunning: p.Running, descFinished: p.Finished,
		descScheduled: p.Matches, descRound: p.CurrentRound, descRounds: p.TotalRounds,
		descPlayers: p.Players, descReferees: p.Referees, descWaiting: p.Waiting, descStalled: p.Stalled,
		descCapacity: p.Capacity, descFree: p.FreeCapacity} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	for kind, states := range map[string]map[manager.AgentState]int{"player": p.PlayerStates, "referee": p.RefereeStates} {
		for _, st := range agentStates {
			ch <- prometheus.MustNewConstMetric(descAgents, prometheus.GaugeValue, float64(states[st]), kind, string(st))
		}
		for st, n := range states {
			if !slices.Contains(agentStates, st) {
				ch <- prometheus.MustNewConstMetric(descAgents, prometheus.GaugeValue, float64(n), kind, string(st))
			}
		}
	}
	ch <- prometheus.MustNewConstMetric(descStatus, prometheus.GaugeValue, 1, string(p.Status))
}
