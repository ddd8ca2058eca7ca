package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestModelKeyNeverKept: a provider that refuses the configured key and
// repeats it, a key of no known shape (an Azure key), leaves it in neither
// the turn's error detail, the query log nor the "answer failed" log line.
func TestModelKeyNeverKept(t *testing.T) {
	t.Parallel()
	const key = "0123456789abcdef0123456789abcdef"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, `{"error":{"message":"key %s is not valid","type":"auth_error"}}`,
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	}))
	t.Cleanup(srv.Close)
	db, dbURL := storetest.NewWithURL(t)
	cfg := bottest.Config(t, dbURL, "")
	cfg.LLMProvider, cfg.LLMBaseURL, cfg.OpenAIAPIKey, cfg.LLMRetries = "openai", srv.URL, key, 0
	var out syncBuffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b, err := bot.New(ctx, cfg, slog.New(slog.NewTextHandler(&out, nil)))
	require.NoError(t, err, "new bot")
	t.Cleanup(b.Close)

	s, _, err := b.AskState(ctx, bot.Message{ThreadID: "T-key", UserID: "U1", ChannelID: "C1", Text: "How many games were released in 2018?"})
	require.NoError(t, err)
	require.NotEmpty(t, s.ErrorKind, "the model refused the key: the turn fails")
	logs, err := db.QueryLogs(ctx, store.QueryLogFilter{ThreadID: "T-key"})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	for where, text := range map[string]string{
		"the error detail": s.ErrorDetail,
		"the query log":    logs[0].ErrorDetail,
		"the bot's log":    out.String(),
	} {
		assert.Contains(t, text, "key [masked] is not valid", "%s keeps the provider's words", where)
		assert.NotContains(t, text, key, "%s holds no key", where)
	}
}
