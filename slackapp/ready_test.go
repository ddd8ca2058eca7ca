package slackapp

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// The Slack app's HTTP server answers GET /readyz for probes: 503 naming
// the database while it holds every byte (a black-holing proxy), ready
// again once it answers.
func TestReadyz(t *testing.T) {
	t.Parallel()
	p := storetest.NewProxy(t, needDB(t))
	h := start(t, overHTTP(), withBotConfig(func(c *bot.Config) {
		c.DatabaseURL = p.URL()
	}))
	type readyz struct {
		code   int
		Status string   `json:"status"`
		Down   []string `json:"down"`
	}
	var got readyz
	answers := func(code int) func() bool {
		return func() bool {
			resp, err := httpClient.Get(h.url + "/readyz")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			got = readyz{code: resp.StatusCode}
			return err == nil && json.Unmarshal(body, &got) == nil && got.code == code
		}
	}
	require.True(t, answers(http.StatusOK)(), "while the database answers: %+v", got)
	assert.Equal(t, "ready", got.Status)

	p.BlackHole()
	require.Eventually(t, answers(http.StatusServiceUnavailable), 30*time.Second, 100*time.Millisecond,
		"/readyz must report the database once the last outcome has aged: %+v", got)
	assert.Equal(t, readyz{code: http.StatusServiceUnavailable, Status: "unavailable", Down: []string{"database", "backend"}}, got)

	p.Restore()
	p.Cut() // what the black hole held is stale
	require.Eventually(t, answers(http.StatusOK), 30*time.Second, 100*time.Millisecond,
		"/readyz must say ready again once the database answers: %+v", got)
}
