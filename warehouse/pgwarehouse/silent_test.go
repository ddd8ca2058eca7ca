package pgwarehouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// A reader whose server stops answering without closing the connection (a
// black-holing proxy in front of it) gives up on every call, the query
// check and the value lookup included, with warehouse.NoAnswer, whatever
// the caller's context; and answers again once the server does.
func TestExecutorSilentServer(t *testing.T) {
	t.Parallel()
	_, url := newAnalyticsDB(t)
	p := storetest.NewProxy(t, url)
	exec := newExec(t, "", pgwarehouse.ExecConfig{DatabaseURL: p.URL(), Timeout: time.Second, StatementTimeout: 2 * time.Second})
	ctx := context.Background() // no deadline of the caller's
	_, err := exec.Query(ctx, "SELECT 1")
	require.NoError(t, err, "through the proxy")

	calls := []struct {
		name string
		call func() error
	}{
		{"the query check", func() error { return exec.Explain(ctx, "SELECT 1") }},
		{"a query", func() error { _, err := exec.Query(ctx, "SELECT 1"); return err }},
		{"the catalog", func() error { _, err := exec.Describe(ctx, []string{"analytics"}); return err }},
		{"a ping", func() error { return exec.Ping(ctx) }},
	}
	for _, c := range calls {
		p.BlackHole()
		done := make(chan error, 1)
		go func() { done <- c.call() }()
		select {
		case err := <-done:
			assertKind(t, warehouse.NoAnswer, err, c.name)
		case <-time.After(time.Minute):
			t.Fatalf("%s: no answer after a minute: the round trip has no deadline", c.name)
		}
		p.Restore()
		p.Cut() // what the black hole held is stale
	}
	_, err = exec.Query(ctx, "SELECT 1")
	assert.NoError(t, err, "once the server answers")
}
