package bot_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

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
