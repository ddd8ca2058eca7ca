package bot_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// testCubePolicyNames: under a policy that reads the Apps cube but not
// its total_negative_ratings, a query's refusal names only what the policy
// reads (docs/access.md), in the generator's retry prompt and in what
// run_query (MCP) returns: no "did you mean" of the denied member, no
// list of every cube. The denied member named exactly is still refused as
// access_denied.
func testCubePolicyNames(t *testing.T, ce *cubeEnv) {
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
policies:
  - name: apps
    tables: ["cube.Apps"]
    deny_columns: ["cube.Apps.total_negative_ratings"]
default: apps
`), 0o600))
	forbidden := []string{"total_negative_ratings", "AppTags", "Publishers", "Genres"}
	misspelt := `{"measures": ["Apps.total_negative_rating"]}`
	b := cubeBot(t, ce, script(cubeRule("", 1, misspelt), yearRules), func(c *bot.Config) { c.AccessFile = path })

	t.Run("the retry prompt", func(t *testing.T) {
		s, _ := ask(t, b, bot.NewThreadID(), "How many games were released in 2018?")
		require.Empty(t, s.ErrorKind, "got error %s (%s), want an answer", s.ErrorKind, s.ErrorDetail)
		var prompts []string
		for _, c := range b.Scripted.Calls() {
			if c.Step == llm.StepGenerateCube {
				prompts = append(prompts, c.Prompt)
			}
		}
		require.Len(t, prompts, 2, "generate_cube calls")
		_, retry, ok := strings.Cut(prompts[1], "Your previous attempt failed")
		require.True(t, ok, "the second prompt is a retry")
		assert.Contains(t, retry, "'Apps.total_negative_rating' is not a member; did you mean 'Apps.total_positive_ratings'?")
		assert.NotContains(t, retry, "total_negative_ratings", "the retry prompt offers no denied member")
	})

	runQuery := func(query string) bot.QueryReply {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r, err := b.RunQuery(ctx, bot.Message{UserID: "U1", ChannelID: "C1"}, query)
		require.NoError(t, err, "run_query %s", query)
		return r
	}
	for _, tt := range []struct{ query, want string }{
		{misspelt, "did you mean 'Apps.total_positive_ratings'?"},
		{`{"measures": ["AppTag.count"]}`, "there is no cube 'AppTag'; the cubes are 'Apps'"},
		{`{"measures": ["Sales.count"]}`, "there is no cube 'Sales'; the cubes are 'Apps'"},
	} {
		r := runQuery(tt.query)
		assert.Equal(t, string(nodes.ErrInvalidQuery), r.Outcome.Kind, "run_query %s: %s", tt.query, r.Reason)
		assert.Contains(t, r.Reason, tt.want, "what an MCP client reads")
		for _, f := range forbidden {
			assert.NotContains(t, r.Reason, f, "run_query %s: a name the policy keeps from the caller", tt.query)
		}
	}
	r := runQuery(`{"measures": ["Apps.total_negative_ratings"]}`)
	assert.Equal(t, string(nodes.ErrAccessDenied), r.Outcome.Kind, "the denied member named exactly: %s", r.Reason)
	assert.Contains(t, r.Reason, "you may not read Apps.total_negative_ratings")
}
