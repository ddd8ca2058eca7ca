package web

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// The web chat under an access file: its channel is "web" and its policy
// applies; a question reaching outside it gets the reason as its reply.
func TestAccessFileOnTheWeb(t *testing.T) {
	t.Parallel()
	path := accessFile(t, `
access:
  channels: [web]
policies:
  - name: web
    channels: [web]
    tables: ["analytics.apps"]
    deny_columns: ["analytics.apps.price"]
default: none
`)
	b := newTestBot(t, "", func(c *bot.Config) { c.AccessFile = path })
	srv := newTestServer(t, b, Config{})

	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	require.NotNil(t, end.Reply)
	assert.Equal(t, answer.KindAnswer, end.Reply.Kind, "apps is the web's to read")

	end = lastMessageEnd(t, chat(t, srv, "", "Which publishers released the most games?", nil).all(t))
	require.NotNil(t, end.Reply)
	assert.Equal(t, answer.KindError, end.Reply.Kind)
	assert.Contains(t, end.Reply.Text.Plain(), "I can't answer that: you may not read analytics.", "the reason, in the reply")
	assert.Equal(t, string(nodes.ErrAccessDenied), end.Debug.ErrorKind)

}

// Named API tokens: each asks as its own user ("token:<name>"), whose
// policy applies and whom the query log records; a request without one of
// them is refused.
func TestNamedTokens(t *testing.T) {
	path := accessFile(t, `
tokens:
  - name: dashboards
    env: ABT_TEST_TOKEN_DASHBOARDS
policies:
  - name: dashboards
    users: ["token:dashboards"]
    tables: ["analytics.apps"]
default: none
`)
	const secret = "dashboards-secret-0123456789"
	t.Setenv("ABT_TEST_TOKEN_DASHBOARDS", secret) // read once, when the bot starts
	b := newTestBot(t, "", func(c *bot.Config) { c.AccessFile = path })
	tokens, err := b.APITokens()
	require.NoError(t, err)
	assert.Equal(t, map[string]string{secret: "token:dashboards"}, tokens)
	srv := newTestServer(t, b, Config{Tokens: tokens})

	resp, _ := doJSON(t, srv, http.MethodGet, "/api/examples", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "no token")
	resp, _ = doJSON(t, srv, http.MethodGet, "/api/examples", nil, http.Header{"Authorization": {"Bearer wrong-secret-0123456789"}})
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "another secret")

	end := lastMessageEnd(t, chat(t, srv, "", q2018, http.Header{"Authorization": {"Bearer " + secret}}).all(t))
	require.NotNil(t, end.Reply)
	assert.Equal(t, answer.KindAnswer, end.Reply.Kind, "answered under the dashboards policy")
	logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: end.ThreadID})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	assert.Equal(t, "token:dashboards", logs[0].UserID, "the query log says who asked")
	assert.Equal(t, "dashboards", logs[0].Policy)

	// So does feedback.
	resp, body := doJSON(t, srv, http.MethodPost, "/api/actions", map[string]string{"thread_id": end.ThreadID,
		"action": "feedback_up", "value": end.QueryID}, http.Header{"Authorization": {"Bearer " + secret}})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	var rater string
	require.NoError(t, b.DB().Pool().QueryRow(t.Context(),
		`SELECT user_id FROM feedback WHERE thread_id = $1 AND query_id = $2`, end.ThreadID, end.QueryID).Scan(&rater))
	assert.Equal(t, "token:dashboards", rater, "the feedback says who rated")
}

// The access matrix through the web API: the web chat's user under each
// policy in turn (the file's default), every case answered or refused as
// the policy says, over real Postgres: with the guard, and again with the
// guard taken out and each policy's database role alone holding it.
func TestAccessMatrixOnTheWeb(t *testing.T) {
	t.Parallel()
	for _, guard := range []bool{true, false} {
		for p, policy := range bottest.AccessPolicies {
			name := policy
			if !guard {
				name += " without the guard"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				path := accessFile(t, bottest.AccessFile(policy))
				var b *bot.Bot
				if guard {
					b = newTestBot(t, bottest.DemoScript(bottest.AccessRules()), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })
				} else {
					cfg := bottest.Config(t, testDB.URL, bottest.DemoScript(bottest.AccessRules()))
					cfg.AccessFile, cfg.Postgres.Schemas = path, bottest.AccessSchemas
					b = bottest.StartWithoutGuard(t, cfg, bottest.Discard())
				}
				srv := newTestServer(t, b, Config{})
				for i, c := range bottest.AccessCases {
					want := c.Want[p]
					if !guard {
						want = c.Alone[p]
					}
					end := lastMessageEnd(t, chat(t, srv, "", c.Question(i), nil).all(t))
					require.NotNil(t, end.Reply, c.Name)
					assert.Equal(t, string(want), end.Debug.ErrorKind, "%s as %s", c.Name, name)
					if want == "" {
						assert.Equal(t, answer.KindAnswer, end.Reply.Kind, c.Name)
					} else {
						assert.Equal(t, answer.KindError, end.Reply.Kind, c.Name)
					}
					if want == nodes.ErrAccessDenied {
						assert.Contains(t, end.Reply.Text.Plain(), "you may not read", c.Name)
					}
				}
			})
		}
	}
}

// docs/access.md: the web chat's channel is web, so an access.channels
// list that leaves it out leaves the web chat out, before any model call;
// the refusal is in the query log.
func TestAccessChannelsWithoutWeb(t *testing.T) {
	t.Parallel()
	path := accessFile(t, `
access:
  channels: [C0DATA]
policies:
  - name: everyone
    tables: ["analytics.*"]
default: everyone
`)
	b := newTestBot(t, "", func(c *bot.Config) { c.AccessFile = path })
	srv := newTestServer(t, b, Config{})

	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	require.NotNil(t, end.Reply)
	assert.Contains(t, end.Reply.Text.Plain(), "I don't answer in this channel")
	assert.Empty(t, b.Scripted.Calls(), "no model call for a channel the file leaves out")

	// Refusals are logged too (not_admitted).
	logs, err := b.DB().QueryLogs(t.Context(), store.QueryLogFilter{ThreadID: end.ThreadID})
	require.NoError(t, err)
	require.Len(t, logs, 1, "the refusal is in the query log")
	assert.Equal(t, "not_admitted", logs[0].ErrorKind)
	assert.Equal(t, "web", logs[0].ChannelID)
	assert.Equal(t, q2018, logs[0].Question)
}

// accessFile writes text as an access file of the test's own and returns
// its path.
func accessFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}
