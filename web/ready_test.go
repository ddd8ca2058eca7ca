package web

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// readyz is what GET /readyz answered: its status code and body.
type readyz struct {
	Code   int
	Status string   `json:"status"`
	Down   []string `json:"down"`
}

// getReadyz asks url's /readyz with a client that gives up long before a
// hung connection would.
func getReadyz(t *testing.T, url string) readyz {
	t.Helper()
	r, err := fetchReadyz(url)
	require.NoError(t, err, "GET /readyz must answer, whatever the database does")
	return r
}

// answers reports whether url's /readyz answers with code.
func answers(url string, code int, got *readyz) func() bool {
	return func() bool {
		r, err := fetchReadyz(url)
		*got = r
		return err == nil && r.Code == code
	}
}

func fetchReadyz(url string) (readyz, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url + "/readyz")
	if err != nil {
		return readyz{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return readyz{}, err
	}
	r := readyz{Code: resp.StatusCode}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		return r, fmt.Errorf("content type %q, body %s", ct, body)
	}
	return r, json.Unmarshal(body, &r)
}

// GET /readyz says the bot cannot answer while its database does not
// answer (a proxy that holds every byte), and ready again once it does;
// /healthz, the liveness probe, stays ok throughout.
func TestReadyz(t *testing.T) {
	t.Parallel()
	needDB(t)
	p := storetest.NewProxy(t, testDB.URL)
	b := newTestBot(t, "", func(c *bot.Config) { c.DatabaseURL = p.URL() })
	srv := newTestServer(t, b, Config{})

	assert.Equal(t, readyz{Code: http.StatusOK, Status: "ready"}, getReadyz(t, srv.URL), "while the database answers")

	p.BlackHole()
	var got readyz
	require.Eventually(t, answers(srv.URL, http.StatusServiceUnavailable, &got), 30*time.Second, 100*time.Millisecond, "/readyz must report the database once the last outcome has aged")
	assert.Equal(t, readyz{Code: http.StatusServiceUnavailable, Status: "unavailable", Down: []string{"database", "backend"}}, got,
		"the bot's database and the reader's are the same server here")
	resp, err := http.Get(srv.URL + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "liveness does not depend on the database")

	p.Restore()
	p.Cut() // what the black hole held is stale
	require.Eventually(t, answers(srv.URL, http.StatusOK, &got), 30*time.Second, 100*time.Millisecond, "/readyz must say ready again once the database answers")
	assert.Equal(t, readyz{Code: http.StatusOK, Status: "ready"}, got)
}
