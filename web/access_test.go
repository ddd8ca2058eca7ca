package web

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// The web chat under an access file: its channel is "web" and its policy
// applies; a question reaching outside it gets the reason as its reply.
func TestAccessFileOnTheWeb(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
access:
  channels: [web]
policies:
  - name: web
    channels: [web]
    tables: ["analytics.apps"]
    deny_columns: ["analytics.apps.price"]
default: none
`), 0o600))
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
