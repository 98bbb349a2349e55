// Package metrics counts what the league's agents do, for Prometheus.
//
// The agents (player, referee, manager) and leaguesdk know nothing of
// Prometheus: they tell a [leaguesdk.Observer] about every call they serve
// and make, and the manager about its durable writes. A [*Metrics] is such
// an Observer; give it to an agent's Config.Observer, serve [Metrics.Handler] at
// GET /metrics (Config.Routes), and, for the manager and the referee, let
// it read their progress with managermetrics.Watch (package
// manager/managermetrics) and [Metrics.WatchReferee]. The package imports
// no agent: a player program that counts its calls links neither the
// manager nor the referee.
//
//	m := metrics.New()
//	ref, err := referee.New(referee.Config{
//		Name: "Referee Alpha", League: "http://127.0.0.1:8000/mcp", Addr: ":8001",
//		Observer: m, Routes: map[string]http.Handler{"GET /metrics": m.Handler()},
//	})
//	...
//	m.WatchReferee(ref)
//
// Series (all prefixed league_):
//
//	calls_served_total{method,outcome}      calls served, by tool and outcome ("ok", "E010", …)
//	calls_made_total{method,outcome}        calls made to other agents, after retries
//	call_duration_seconds{side,method}      latency histograms, side "served" or "made"
//	rate_limited_total                      calls refused by the rate limit (E010)
//	history_fills_total{cause,outcome}      a player's fills of its history from the manager, by cause
//	                                        ("behind", "differs", "restart") and outcome: none in a league without faults
//	history_filled_matches_total{cause}     the results those fills recorded
//	writes_total{file}, write_records_total{file}, write_duration_seconds{file}
//	                                        durable writes (fsyncs), the records they held, their time
//	matches_running, matches_finished, matches_scheduled, round_current, rounds_total,
//	players_registered, referees_registered  the manager's progress (managermetrics.Watch)
//	matches_waiting                         the current round's matches waiting for a referee (managermetrics.Watch)
//	referee_capacity, referee_free_capacity matches the referees able to take one may run at once,
//	                                        and how many more they can take now (managermetrics.Watch)
//	agents{kind,state}                      registered players and referees by lifecycle state (managermetrics.Watch)
//	status{status}                          1 for the league's status: REGISTERING, RUNNING, COMPLETED
//	referee_matches_running                 a referee's matches in play (WatchReferee)
//	heap_live_bytes                         the process's heap reachable at the last garbage collection
//	heap_live_peak_bytes                    the most heap_live_bytes has been since New, sampled at
//	                                        the end of every garbage collection
//
// plus the Go runtime and process collectors (go_memstats_heap_inuse_bytes
// and process_resident_memory_bytes among them). The live heap is what the
// process's data needs; between collections the heap holds garbage too,
// up to about twice the live heap under the default GOGC of 100.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentleague/league/leaguesdk"
)

// Metrics is a Prometheus registry with the league's series. It
// implements [leaguesdk.Observer], [leaguesdk.WriteObserver] and
// [leaguesdk.FillObserver] and is safe for
// concurrent use.
type Metrics struct {
	reg          *prometheus.Registry
	served, made *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	rateLimited  prometheus.Counter
	writes       *prometheus.CounterVec
	writeRecords *prometheus.CounterVec
	writeTime    *prometheus.HistogramVec
	fills        *prometheus.CounterVec
	filled       *prometheus.CounterVec
	heap         *heapWatch
}

// New returns a [Metrics] with its own registry, holding the league's
// series, the live heap and its peak, and the Go runtime and process
// collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		served: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "league_calls_served_total",
			Help: "Calls served, by tool and outcome (ok, or the protocol error code)."}, []string{"method", "outcome"}),
		made: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "league_calls_made_total",
			Help: "Calls made to other agents, after retries, by method and outcome."}, []string{"method", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "league_call_duration_seconds",
			Help:    "Call latency: side served (handled here) or made (to another agent, retries included).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}},
			[]string{"side", "method"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{Name: "league_rate_limited_total",
			Help: "Calls refused because their caller was over its rate limit (HTTP 429, E010)."}),
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "league_writes_total",
			Help: "Durable writes (each one fsync), by file."}, []string{"file"}),
		writeRecords: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "league_write_records_total",
			Help: "Records made durable, by file (records/writes is the group-commit batch size)."}, []string{"file"}),
		writeTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "league_write_duration_seconds",
			Help:    "Time of a durable write and its fsync, by file.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}}, []string{"file"}),
		fills: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "league_history_fills_total",
			Help: "A player's fills of its history from the manager, by cause (behind, differs, restart) and outcome."},
			[]string{"cause", "outcome"}),
		filled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "league_history_filled_matches_total",
			Help: "Results a player recorded from the manager's answer to a fill, by cause."}, []string{"cause"}),
		heap: newHeapWatch(),
	}
	reg.MustRegister(m.served, m.made, m.latency, m.rateLimited, m.writes, m.writeRecords, m.writeTime, m.fills, m.filled, m.heap,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry, to add series of your own.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveCall implements [leaguesdk.Observer].
func (m *Metrics) ObserveCall(e leaguesdk.CallEvent) {
	side, counter := "made", m.made
	if e.Served {
		side, counter = "served", m.served
		if e.Outcome == string(leaguesdk.CodeRateLimited) {
			m.rateLimited.Inc()
		}
	}
	counter.WithLabelValues(e.Method, e.Outcome).Inc()
	m.latency.WithLabelValues(side, e.Method).Observe(e.Took.Seconds())
}

// ObserveWrite implements [leaguesdk.WriteObserver].
func (m *Metrics) ObserveWrite(e leaguesdk.WriteEvent) {
	m.writes.WithLabelValues(e.File).Inc()
	m.writeRecords.WithLabelValues(e.File).Add(float64(e.Records))
	m.writeTime.WithLabelValues(e.File).Observe(e.Took.Seconds())
}

// ObserveFill implements [leaguesdk.FillObserver].
func (m *Metrics) ObserveFill(e leaguesdk.FillEvent) {
	m.fills.WithLabelValues(e.Cause, e.Outcome).Inc()
	m.filled.WithLabelValues(e.Cause).Add(float64(e.Matches))
}

// MatchCounter is what [Metrics.WatchReferee] reads: a *referee.Referee.
type MatchCounter interface {
	// ActiveMatches returns the matches in play.
	ActiveMatches() int
}

// WatchReferee adds a gauge of the referee's matches in play.
func (m *Metrics) WatchReferee(r MatchCounter) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "league_referee_matches_running",
		Help: "Matches this referee is playing now."}, func() float64 { return float64(r.ActiveMatches()) }))
}
