package main

import (
	"os"
	"strings"
	"testing"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/slackapp"
)

// The defaults the docs give in their prose rather than in a settings
// table (TestDocumentedSettingDefaults holds those): each phrase is in its
// doc, and the setting's default in the code is the one it states.
func TestProseDefaults(t *testing.T) {
	defaults := map[string]string{}
	for _, cfg := range []any{&bot.Config{}, &slackapp.Config{}} {
		params, err := env.GetFieldParams(cfg)
		require.NoError(t, err)
		for _, p := range params {
			if p.HasDefaultValue {
				defaults[p.Key] = p.DefaultValue
			}
		}
	}
	tests := []struct {
		doc, says, setting, want string
	}{
		{"observability.md", "`QUERY_LOG_RETENTION` (default `168h`)", "QUERY_LOG_RETENTION", "168h"},
		{"observability.md", "| `chat_query_logs` | 7 days |", "QUERY_LOG_RETENTION", "168h"},
		{"observability.md", "`TURN_RETENTION` (default `2160h`)", "TURN_RETENTION", "2160h"},
		{"observability.md", "| `conversation_turns` | 90 days |", "TURN_RETENTION", "2160h"},
		{"observability.md", "`RESULT_RETENTION` (default `720h`)", "RESULT_RETENTION", "720h"},
		{"observability.md", "30 days | `RESULT_RETENTION`", "RESULT_RETENTION", "720h"},
		{"scaling.md", "`SLACK_SHUTDOWN_GRACE` (25 s)", "SLACK_SHUTDOWN_GRACE", "25s"},
		{"scaling.md", "else `DATABASE_TIMEOUT` (10 s)", "DATABASE_TIMEOUT", "10s"},
		{"scaling.md", "`STATEMENT_TIMEOUT` + `DATABASE_TIMEOUT` (40 s)", "STATEMENT_TIMEOUT", "30s"},
		{"scaling.md", "`RESULT_CACHE_BYTES` (64 MiB) and `CACHE_LRU_SIZE` (256)", "RESULT_CACHE_BYTES", "67108864"},
		{"scaling.md", "`RESULT_CACHE_BYTES` (64 MiB) and `CACHE_LRU_SIZE` (256)", "CACHE_LRU_SIZE", "256"},
		{"scaling.md", "**Schedules** (`SCHEDULE_POLL`, 30 s)", "SCHEDULE_POLL", "30s"},
		{"scaling.md", "(`SCHEDULE_LEASE`, 2 minutes)", "SCHEDULE_LEASE", "2m"},
		{"scaling.md", "(`VALUE_INDEX_REFRESH`, 24 h by default)", "VALUE_INDEX_REFRESH", "24h"},
		{"scaling.md", "(`EXAMPLES_REFINGERPRINT`, 1 minute by default)", "EXAMPLES_REFINGERPRINT", "1m"},
		{"examples.md", "`EXAMPLES_REFINGERPRINT`, and so does `analyticsbot mcp`, which an AI\nclient keeps running for its whole session (a minute by default", "EXAMPLES_REFINGERPRINT", "1m"},
		{"examples.md", "the first `EXAMPLES_K` (default 3; `0` shows\nnone)", "EXAMPLES_K", "3"},
		{"examples.md", "verified once N different users gave\nits answers a 👍 (it is then \"verified by N users' 👍\"). Off by default", "EXAMPLES_AUTO_VERIFY", "0"},
		{"eval.md", "With `ASK_BACK=values` (the default)", "ASK_BACK", "values"},
		{"scripted-model.md", "| `LLM_TIMEOUT` | the per-call timeout, such as `30s` (default `60s`) |", "LLM_TIMEOUT", "60s"},
		{"scripted-model.md", "timeout (60s by default) and up to two retries", "LLM_TIMEOUT", "60s"},
		{"scripted-model.md", "| `LLM_RETRIES` | retries of transient failures (default `2`) |", "LLM_RETRIES", "2"},
		{"scripted-model.md", "timeout (60s by default) and up to two retries", "LLM_RETRIES", "2"},
		{"scripted-model.md", "| `LLM_MAX_TOKENS` | the most tokens of each reply (default `0`:", "LLM_MAX_TOKENS", "0"},
	}
	docs := map[string]string{}
	for _, tt := range tests {
		if _, ok := docs[tt.doc]; !ok {
			b, err := os.ReadFile("../../docs/" + tt.doc)
			require.NoError(t, err)
			docs[tt.doc] = string(b)
		}
		assert.True(t, strings.Contains(docs[tt.doc], tt.says), "docs/%s says %q", tt.doc, tt.says)
		assert.Equal(t, tt.want, defaults[tt.setting], "%s's default, which docs/%s gives as %q", tt.setting, tt.doc, tt.says)
	}
}
