package bot_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// viewsQuestion names a person whom every view and table of the hr schema
// holds (Dan Dale is one of the secret staff), by name and by address.
const viewsQuestion = `Which country is "Dan Dale" in, and who is "dan@corp.test"?`

// testAccessViews: the generator's prompt for a policy holds neither a
// view the policy refuses (one over what it denies or masks) nor the
// parent of a partition or inheritance child it denies: not in the
// catalog it is shown, not among the values the lookup matches in the
// question, though the value index holds them all (for whoever may read
// them).
func testAccessViews(t *testing.T, e *testEnv) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
	// A bot schema of its own: the value index this test fills is no
	// other test's.
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	schema := "abt_views_" + hex.EncodeToString(suffix[:])
	t.Cleanup(func() {
		_, _ = e.admin.Pool().Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	})
	db, err := store.Open(ctx, e.url, store.WithSchema(schema))
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.Migrate(ctx))
	rules := `
  - step: generate_sql
    match: '(?im)^Question: which country is "dan dale"'
    reply: '{"sql": "SELECT name, country FROM hr.employees ORDER BY name", "assumptions": [], "explanation": "x"}'
`
	// The hr schema alone, so that the Steam data's names crowd no hr
	// column out of the prompt's values.
	b := newBot(t, e, script(rules), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas, c.BotSchema = path, []string{"hr"}, schema })
	_, err = b.RefreshValueIndex(ctx)
	require.NoError(t, err)
	accessRules, err := access.Load(path)
	require.NoError(t, err)

	// refused are the tables and views of hr whose values the analysts'
	// and everyone's generator may not see.
	refused := []string{"v_salaries", "mv_salaries", "v_emails", "payroll", "staff", "staff_secret"}
	for p, user := range bottest.AccessUsers {
		t.Run(bottest.AccessPolicies[p], func(t *testing.T) {
			// What the value lookup finds for the question, and what the
			// generator's prompt shows.
			policy, err := accessRules.Admit(t.Context(), access.Who{UserID: user, ChannelID: "CDATA"})
			require.NoError(t, err)
			ix := &grounding.ValueIndex{DB: b.DB(), Backend: b.Backend()}
			matches, err := ix.Lookup(warehouse.WithCaller(ctx, warehouse.Caller{UserID: user, Access: policy}), viewsQuestion)
			require.NoError(t, err)
			found := map[string]bool{}
			for _, m := range matches {
				found[m.Table] = true
			}
			s, _, err := b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: user, ChannelID: "CDATA", Text: viewsQuestion})
			require.NoError(t, err)
			require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
			prompt := lastGeneratorPrompt(t, b)

			if p == 0 {
				for _, table := range refused {
					// The payroll holds no name.
					assert.Equal(t, table != "payroll", found[table], "the full policy's lookup finds %s's values", table)
					assert.Contains(t, prompt, "TABLE hr."+table+"\n", "the full policy is shown %s", table)
				}
				assert.Regexp(t, `hr\.(v_salaries|mv_salaries|v_emails|staff)\.name: 'Dan Dale'`, prompt, "and its values")
				return
			}
			assert.True(t, found["v_people"], "a view over what the policy allows, and its values")
			assert.Contains(t, prompt, "hr.v_people.name: 'Dan Dale'")
			for _, table := range refused {
				assert.False(t, found[table], "no value of %s", table)
				assert.NotContains(t, prompt, "hr."+table+".", "no value of %s in the prompt", table)
				assert.NotContains(t, prompt, "TABLE hr."+table+"\n", "nor the table")
			}
		})
	}
}

// lastGeneratorPrompt is the prompt of b's last query generator call.
func lastGeneratorPrompt(t *testing.T, b *bot.Bot) string {
	t.Helper()
	calls := b.Scripted.Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Step == llm.StepGenerateSQL {
			return calls[i].Prompt
		}
	}
	t.Fatal("no generator call")
	return ""
}
