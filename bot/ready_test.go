package bot_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// testReadiness (docs/observability.md, Probes): while the bot's database
// does not answer, the readiness probe names it and nothing of why; the
// log says why, in `not ready: database does not answer` with the error.
func testReadiness(t *testing.T, e *testEnv) {
	p := storetest.NewProxy(t, e.url)
	watch := bottest.NewLogWatch("not ready")
	cfg := testConfig(t, e, script())
	cfg.DatabaseURL = p.URL()
	b := bottest.Start(t, cfg, slog.New(watch))

	p.Stop()
	r := b.Ready(context.Background())
	require.Contains(t, r.Down, "database", "the probe names the bot's database")
	var logged []slog.Record
	for _, rec := range watch.Records() {
		if strings.HasPrefix(rec.Message, "not ready") {
			logged = append(logged, rec)
		}
	}
	require.NotEmpty(t, logged, "the log says what is not ready: %q", watch.Messages())
	assert.Equal(t, "not ready: database does not answer", logged[0].Message)
	why := attr(logged[0], "err")
	require.NotEmpty(t, why, "with the error")

	w := httptest.NewRecorder()
	bot.ServeReady(w, r)
	assert.Equal(t, 503, w.Code)
	assert.Contains(t, w.Body.String(), `"down":["database"`, "the answer names the database")
	assert.NotContains(t, w.Body.String(), why, "and nothing of why")
}

// testReadinessBounds (docs/observability.md, docs/scaling.md): a probe
// waits at most 800 ms for each check, so a database that holds every byte
// is reported down well before DATABASE_TIMEOUT (10 s) would end a round
// trip; and an outcome answers the probes of the next 2 s without asking
// again, so a database that comes back is seen once that outcome has aged.
func testReadinessBounds(t *testing.T, e *testEnv) {
	p := storetest.NewProxy(t, e.url)
	cfg := testConfig(t, e, script())
	cfg.DatabaseURL = p.URL()
	b := bottest.Start(t, cfg, nil)
	ctx := context.Background()

	first := b.Ready(ctx)
	require.Empty(t, first.Down, "while the database answers")
	p.BlackHole()
	if r := b.Ready(ctx); time.Since(first.At) < 1900*time.Millisecond {
		assert.Equal(t, first, r, "within 2 s the last outcome answers, without asking the database")
	}

	require.Eventually(t, func() bool { return time.Since(first.At) > 2*time.Second }, 5*time.Second, 50*time.Millisecond)
	start := time.Now()
	silent := b.Ready(ctx)
	took := time.Since(start)
	assert.Equal(t, []string{"database", "backend"}, silent.Down, "a silent server is down: the bot's database, and the reader's on it")
	assert.Less(t, took, 3*time.Second, "the probe gave up after its 800 ms, not DATABASE_TIMEOUT's %s", cfg.DatabaseTimeout)
	assert.GreaterOrEqual(t, took, 700*time.Millisecond, "and waited for it")

	p.Restore()
	p.Cut() // what the black hole held is stale
	if r := b.Ready(ctx); time.Since(silent.At) < 1900*time.Millisecond {
		assert.Equal(t, silent, r, "the outcome stands for 2 s after it")
	}
	require.Eventually(t, func() bool { return len(b.Ready(ctx).Down) == 0 }, 10*time.Second, 100*time.Millisecond,
		"ready again once the outcome has aged")
	assert.GreaterOrEqual(t, time.Since(silent.At), 2*time.Second, "not before the outcome aged")
}
