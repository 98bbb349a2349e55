package metrics

import (
	"runtime"
	rtmetrics "runtime/metrics"
	"sync/atomic"
	"weak"

	"github.com/prometheus/client_golang/prometheus"
)

// heapLiveMetric is the runtime's count of the heap bytes found reachable
// by the last garbage collection.
const heapLiveMetric = "/gc/heap/live:bytes"

var (
	descHeapLive = prometheus.NewDesc("league_heap_live_bytes",
		"Heap bytes reachable at the end of the last garbage collection (runtime/metrics "+heapLiveMetric+").", nil, nil)
	descHeapLivePeak = prometheus.NewDesc("league_heap_live_peak_bytes",
		"The most league_heap_live_bytes has been at the end of any garbage collection since the metrics were made.", nil, nil)
)

// heapWatch is the collector of the live heap and its peak. The peak is
// sampled at the end of every garbage collection, when the live heap
// changes, so a peak between two scrapes is not missed; it is sampled at
// each scrape too, so that it is never below the live figure shown beside
// it.
type heapWatch struct {
	peak atomic.Uint64
}

func newHeapWatch() *heapWatch {
	h := &heapWatch{}
	h.sample()
	armHeapSample(weak.Make(h))
	return h
}

// gcSentinel is allocated to become garbage: its cleanup runs once the
// next collection has found it unreachable. The pointer field keeps it out
// of the tiny allocator, whose blocks are freed late.
type gcSentinel struct{ _ *byte }

// armHeapSample samples the live heap after the next garbage collection,
// and arms itself again, for as long as the heapWatch is in use: the
// chain holds it weakly and ends once it is collected.
func armHeapSample(w weak.Pointer[heapWatch]) {
	runtime.AddCleanup(&gcSentinel{}, func(w weak.Pointer[heapWatch]) {
		if h := w.Value(); h != nil {
			h.sample()
			armHeapSample(w)
		}
	}, w)
}

// sample reads the live heap and raises the peak to it; it returns the
// live heap.
func (h *heapWatch) sample() uint64 {
	s := []rtmetrics.Sample{{Name: heapLiveMetric}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	live := s[0].Value.Uint64()
	for {
		p := h.peak.Load()
		if live <= p || h.peak.CompareAndSwap(p, live) {
			return live
		}
	}
}

func (h *heapWatch) Describe(ch chan<- *prometheus.Desc) {
	ch <- descHeapLive
	ch <- descHeapLivePeak
}

func (h *heapWatch) Collect(ch chan<- prometheus.Metric) {
	live := h.sample()
	ch <- prometheus.MustNewConstMetric(descHeapLive, prometheus.GaugeValue, float64(live))
	ch <- prometheus.MustNewConstMetric(descHeapLivePeak, prometheus.GaugeValue, float64(h.peak.Load()))
}
