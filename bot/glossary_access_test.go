package bot_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/llm"
)

// glossaryAccessFile names, in "big publisher"'s meaning, two tables the
// access matrix's everyone policy may not read, and in "genre tag"'s one
// it may.
const glossaryAccessFile = `terms:
  - term: big publisher
    synonyms: [major studio]
    means: a row of analytics.publishers joined through analytics.app_publishers to the games it published
  - term: genre tag
    synonyms: [category]
    means: a row of analytics.genres
`

// glossaryAccessQuestion names both terms by a synonym.
const glossaryAccessQuestion = "how many games did each major studio release in each category"

// testGlossaryAccess: a glossary entry whose meaning names a table outside
// the asker's policy reaches neither the generator's prompt nor the
// context report (`context`, MCP's get_context) of a user of that policy;
// one whose meaning names only tables they may read does, and a user who
// may read them all sees both.
func testGlossaryAccess(t *testing.T, e *testEnv) {
	dir := t.TempDir()
	accessPath, glossaryPath := filepath.Join(dir, "access.yaml"), filepath.Join(dir, "glossary.yaml")
	require.NoError(t, os.WriteFile(accessPath, []byte(bottest.AccessFile("everyone")), 0o600))
	require.NoError(t, os.WriteFile(glossaryPath, []byte(glossaryAccessFile), 0o600))
	rules := `
  - step: generate_sql
    match: '(?im)^Question: how many games did each major studio'
    reply: '{"sql": "SELECT count(*) AS games FROM analytics.apps", "assumptions": [], "explanation": "x"}'
`
	b := newBot(t, e, script(rules), func(c *bot.Config) {
		c.AccessFile, c.Postgres.Schemas, c.GlossaryFile = accessPath, bottest.AccessSchemas, glossaryPath
	})
	const (
		hidden = "- big publisher: a row of analytics.publishers"
		shown  = "- genre tag: a row of analytics.genres"
	)
	for _, tc := range []struct {
		name, user string
		seesHidden bool
	}{
		{name: "everyone", user: "UZED"},
		{name: "full", user: "UADMIN", seesHidden: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			m := bot.Message{ThreadID: bot.NewThreadID(), UserID: tc.user, ChannelID: "CDATA", Text: glossaryAccessQuestion}
			b.Scripted.Reset()
			_, _, err := b.AskState(ctx, m)
			require.NoError(t, err)
			var prompt string
			for _, c := range b.Scripted.Calls() {
				if c.Step == llm.StepGenerateSQL {
					prompt = c.Prompt
				}
			}
			require.NotEmpty(t, prompt, "the generator was asked")
			assert.Contains(t, prompt, shown, "a meaning of tables the user may read")

			m.ThreadID = ""
			gc, err := b.ContextFor(ctx, m)
			require.NoError(t, err)
			report, err := json.Marshal(gc.Report("", b.Backend().Name()))
			require.NoError(t, err)
			assert.Contains(t, gc.Prompt, shown)
			assert.Contains(t, string(report), "genre tag")
			for what, text := range map[string]string{"prompt": prompt, "context's prompt": gc.Prompt, "context report": string(report)} {
				if tc.seesHidden {
					assert.Contains(t, text, "analytics.publishers", "%s: a meaning of tables the user may read", what)
					continue
				}
				// The apps table's own comment speaks of publishers and
				// app_publishers; the denied tables are not named.
				for _, forbidden := range []string{"analytics.publishers", "analytics.app_publishers", "big publisher"} {
					assert.NotContains(t, strings.ToLower(text), forbidden, "%s: %q", what, forbidden)
				}
			}
			if tc.seesHidden {
				assert.Contains(t, prompt, hidden)
			}
		})
	}
}
