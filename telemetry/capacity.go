package telemetry

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/metric"
)

// Capacity is what the capacity gauges read whenever metrics are
// collected: the turns under way and waiting for a place (MAX_TURNS,
// TURN_QUEUE), and what the result cache holds in memory
// (RESULT_CACHE_BYTES).
type Capacity struct {
	Turns func() (running, waiting int)
	Cache func() (results int, bytes int64)
}

// ObserveCapacity registers the capacity gauges on mp:
// analyticsbot.turns.running, analyticsbot.turns.waiting,
// analyticsbot.cache.results and analyticsbot.cache.bytes. stop
// unregisters them (a closed bot must not be read).
func ObserveCapacity(mp metric.MeterProvider, c Capacity) (stop func(), err error) {
	m := mp.Meter(MeterName)
	running, err1 := m.Int64ObservableGauge("analyticsbot.turns.running",
		metric.WithDescription("Turns being answered now, over every surface (at most MAX_TURNS)."), metric.WithUnit("{turn}"))
	waiting, err2 := m.Int64ObservableGauge("analyticsbot.turns.waiting",
		metric.WithDescription("Turns waiting for a place (at most TURN_QUEUE)."), metric.WithUnit("{turn}"))
	results, err3 := m.Int64ObservableGauge("analyticsbot.cache.results",
		metric.WithDescription("Results the result cache holds in memory."), metric.WithUnit("{result}"))
	size, err4 := m.Int64ObservableGauge("analyticsbot.cache.bytes",
		metric.WithDescription("Estimated size of the results the result cache holds in memory (at most RESULT_CACHE_BYTES)."), metric.WithUnit("By"))
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return nil, err
	}
	reg, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		if c.Turns != nil {
			r, w := c.Turns()
			o.ObserveInt64(running, int64(r))
			o.ObserveInt64(waiting, int64(w))
		}
		if c.Cache != nil {
			n, b := c.Cache()
			o.ObserveInt64(results, int64(n))
			o.ObserveInt64(size, b)
		}
		return nil
	}, running, waiting, results, size)
	if err != nil {
		return nil, err
	}
	return func() { _ = reg.Unregister() }, nil
}
