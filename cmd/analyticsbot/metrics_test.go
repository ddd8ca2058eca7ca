package main

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/telemetry"
)

// docs/observability.md: METRICS_ADDR moves /metrics, and METRICS_ADDR=off
// turns it off: serve listens nowhere for it, not even at the default
// address, which a bot that did would find taken here.
func TestServeMetricsAddr(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tel, err := telemetry.Setup(ctx, "analyticsbot-test")
	require.NoError(t, err)
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })

	// The default address, held: by this test, or by whatever already had it.
	if ln, err := net.Listen("tcp", defaultMetricsAddr); err == nil {
		t.Cleanup(func() { ln.Close() })
	}
	t.Setenv("METRICS_ADDR", "")
	_, err = serveMetrics(ctx, tel)
	assert.ErrorContains(t, err, "listen on METRICS_ADDR "+defaultMetricsAddr, "unset, serve listens at the default address")
	t.Setenv("METRICS_ADDR", "off")
	addr, err := serveMetrics(ctx, tel)
	assert.NoError(t, err)
	assert.Nil(t, addr, "off: serve does not listen for metrics at all")

	t.Setenv("METRICS_ADDR", "127.0.0.1:0")
	addr, err = serveMetrics(ctx, tel)
	require.NoError(t, err)
	status, body := get(t, "http://"+addr.String()+"/metrics", "")
	assert.Equal(t, http.StatusOK, status, "GET /metrics at METRICS_ADDR: %s", body)
}
