package metrics

// HeapPeak returns the peak of the live heap m has seen, without sampling
// it as a scrape does.
func HeapPeak(m *Metrics) uint64 { return m.heap.peak.Load() }
