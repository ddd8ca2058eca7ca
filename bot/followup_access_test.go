package bot_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/llm"
)

// In a thread several people ask in, a follow-up's generator is shown an
// earlier answer's SQL only when the one following up may read what it
// reads, as Show SQL shows it them: UADMIN's query over hr.salaries,
// filtered on an address, is not shown to UZED, whose policy allows
// neither (nor to the model's assumptions, which UZED would read); UZED's
// own earlier query is.
func TestFollowUpShowsOnlyEarlierQueriesTheAskerMayRead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
	const paid = "SELECT count(*) AS n FROM hr.salaries s JOIN hr.employees e USING (employee_id) WHERE e.email = ''ann@corp.test'' AND s.amount > 91000"
	const own = "SELECT count(*) AS n FROM hr.employees WHERE country = ''DE''"
	const corp = "SELECT count(*) AS n FROM hr.employees WHERE email LIKE ''%@corp.test''"
	rules := `
  - step: classify
    match: '(?im)^Question: and since when'
    reply: '{"intent": "follow_up", "confidence": 0.9, "question": "And since when?"}'
  - step: generate_sql
    match: '(?im)^Question: how many are paid well'
    reply: '{"sql": "` + paid + `", "assumptions": [], "explanation": "x"}'
  - step: generate_sql
    match: '(?im)^Question: how many are at corp'
    reply: '{"sql": "` + corp + `", "assumptions": [], "explanation": "x"}'
  - step: generate_sql
    match: '(?im)^Question: how many work in germany'
    reply: '{"sql": "` + own + `", "assumptions": [], "explanation": "x"}'
  - step: generate_sql
    match: '(?im)^Question: and since when'
    reply: '{"sql": "SELECT count(*) AS n FROM hr.employees", "assumptions": [], "explanation": "x"}'
`
	b := newBot(t, e, script(rules), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })
	ask := func(user, thread, text string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: user, ChannelID: "CDATA", Text: text})
		require.NoError(t, err)
		require.Empty(t, s.ErrorKind, "%s: %s", text, s.ErrorDetail)
	}
	lastGenerate := func() string {
		calls := b.Scripted.Calls()
		for i := len(calls) - 1; i >= 0; i-- {
			if calls[i].Step == llm.StepGenerateSQL {
				return calls[i].Prompt
			}
		}
		return ""
	}

	thread := bot.NewThreadID()
	ask("UADMIN", thread, "How many are paid well?")
	ask("UZED", thread, "And since when?")
	prompt := lastGenerate()
	require.Contains(t, prompt, "Question: And since when?")
	for _, hidden := range []string{"ann@corp.test", "hr.salaries", "91000"} {
		assert.NotContains(t, prompt, hidden, "the earlier query UZED may not read")
	}

	mine := bot.NewThreadID()
	ask("UZED", mine, "How many work in Germany?")
	ask("UZED", mine, "And since when?")
	assert.Contains(t, lastGenerate(), "country = 'DE'", "UZED's own earlier query")

	// An analyst's own query filtered by an address, which the analysts
	// may filter by (masked), is theirs to build on.
	analysts := bot.NewThreadID()
	ask("UANA", analysts, "How many are at corp?")
	ask("UANA", analysts, "And since when?")
	assert.Contains(t, lastGenerate(), "LIKE '%@corp.test'", "UANA's own query, filtering by a column masked for them")

	admins := bot.NewThreadID()
	ask("UADMIN", admins, "How many are paid well?")
	ask("UADMIN", admins, "And since when?")
	assert.Contains(t, lastGenerate(), "ann@corp.test", "UADMIN's own, which UADMIN may read")
}

// In a channel whose ceiling caps the asker, a query that reaches beyond
// the ceiling and that the asker's own policy would have them fix (a
// masked column returned) stays with the asker: it is retried under their
// policy and answered to them alone. Before, it was refused in the
// channel, unretried, naming the table beyond the ceiling, which the
// channel may not even learn of (docs/access.md: the note holds no table
// name).
func TestCeilingRefusalStaysWithTheAsker(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path, ch := ceilingFile(t)
	const beyond = "SELECT e.email FROM hr.employees e WHERE e.employee_id IN (SELECT app_id FROM analytics.app_developers)"
	const fixed = "SELECT e.name FROM hr.employees e WHERE e.employee_id IN (SELECT app_id FROM analytics.app_developers)"
	rules := `
  - step: generate_sql
    match: '(?is)(never returned.*Question: who of us develops games|Question: who of us develops games.*never returned)'
    reply: '{"sql": "` + fixed + `", "assumptions": [], "explanation": "x"}'
  - step: generate_sql
    match: '(?im)^Question: who of us develops games'
    reply: '{"sql": "` + beyond + `", "assumptions": [], "explanation": "x"}'
`
	b := newBot(t, e, script(rules), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := b.StartThread(ctx, bot.Message{UserID: "UANA", ChannelID: ch, Text: "Who of us develops games?"})
	require.NoError(t, err)
	s, _, err := b.AskState(ctx, m)
	require.NoError(t, err)
	assert.Empty(t, s.ErrorKind, "answered after a retry: %s", s.ErrorDetail)
	assert.Equal(t, 1, s.RetryCount, "retried under the asker's policy")
	assert.True(t, s.Private(), "for the asker alone")
	public := recentTurns(t, e, s.ThreadTS)
	require.Len(t, public, 1)
	assert.Contains(t, public[0].BotResponse, "I replied to @UANA privately")
	assert.NotContains(t, public[0].BotResponse, "app_developers", "the channel reads no table beyond its ceiling")
}
