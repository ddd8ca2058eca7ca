package bot_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// Questions to try are one list wherever they are offered: the web's
// welcome and Slack's Messages tab (SuggestedQuestions) and a decline's
// "Try asking" show the same questions, the verified examples used most,
// a stored one that is not in the examples file too.
func TestQuestionsToTryAreTheSameEverywhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	b := newBot(t, e, script())
	const extra = "How many games were released in 2018?"
	ex, _, err := e.admin.AddExample(ctx, store.Example{Backend: "postgres", Question: extra,
		Query: "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018", Fingerprint: "fp-released-2018",
		Source: store.SourceAdmin, Status: store.StatusVerified, ProposedBy: "UADMIN", VerifiedBy: "UADMIN"})
	require.NoError(t, err)
	require.NoError(t, e.admin.MarkExamplesUsed(ctx, []int64{ex.ID}))

	welcome := b.SuggestedQuestions(ctx, bot.Message{UserID: "U1", ChannelID: "C1"}, nodes.QuestionsToTry)
	require.NotEmpty(t, welcome)
	assert.Equal(t, extra, welcome[0], "the example used most comes first")
	s := askAs(t, b, "U1", bot.NewThreadID(), "tell me a joke")
	require.Equal(t, nodes.IntentOffTopic, s.Intent)
	assert.Equal(t, welcome, s.Reply.Questions, "a decline offers the welcome's questions")
}

// A bot whose examples file is not stored (here a bot built on a backend
// of its own, which does not store it; in production a database not yet
// migrated) offers the file's questions, in its order, and only those
// whose query runs on this data.
func TestQuestionsToTryFromTheExamplesFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	cfg := bottest.Config(t, e.url, script())
	cfg.SQLExamples = filepath.Join(t.TempDir(), "examples.yaml")
	require.NoError(t, os.WriteFile(cfg.SQLExamples, []byte(`
- question: How many games are free to play?
  sql: SELECT count(*) AS free_games FROM analytics.apps WHERE is_free
- question: What were the sales by region last quarter?
  sql: SELECT region, sum(amount) FROM analytics.sales GROUP BY region
- question: How many games were released in 2018?
  sql: SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018
`), 0o600))
	pg := pgwarehouse.New(pgwarehouse.Config{ExecConfig: cfg.ReaderConfig()})
	t.Cleanup(pg.Close)
	b, err := bot.NewWithBackend(cfg, e.admin, pg, bottest.Logger(t))
	require.NoError(t, err)
	t.Cleanup(b.Close)

	want := []string{"How many games are free to play?", "How many games were released in 2018?"}
	assert.Equal(t, want, b.SuggestedQuestions(ctx, bot.Message{UserID: "U1", ChannelID: "C1"}, nodes.QuestionsToTry),
		"the welcome: the file's questions that run here")
	s := askAs(t, b, "U1", bot.NewThreadID(), "tell me a joke")
	require.Equal(t, nodes.IntentOffTopic, s.Intent)
	assert.Equal(t, want, s.Reply.Questions, "a decline: the same")
}

// downPermits stands for a data source that cannot be reached: each check
// of an example's query fails as unavailable, and is counted.
type downPermits struct {
	*pgwarehouse.Backend
	checks atomic.Int64
}

func (d *downPermits) Permits(context.Context, string) error {
	d.checks.Add(1)
	return warehouse.Errorf(warehouse.Unavailable, "database unavailable")
}

// With the data source down, questions to try cost at most one check: the
// first says it cannot tell, and the rest would each wait on it too.
func TestQuestionsToTryWithTheDataSourceDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	cfg := bottest.Config(t, e.url, script())
	pg := pgwarehouse.New(pgwarehouse.Config{ExecConfig: cfg.ReaderConfig()})
	t.Cleanup(pg.Close)
	down := &downPermits{Backend: pg}
	b, err := bot.NewWithBackend(cfg, e.admin, down, bottest.Logger(t))
	require.NoError(t, err)
	t.Cleanup(b.Close)
	require.NoError(t, bot.StoreExamples(b, ctx), "store the examples file, as New does")
	stored, err := e.admin.ListExamples(ctx, store.ExampleFilter{Status: store.StatusVerified})
	require.NoError(t, err)
	require.Greater(t, len(stored), 1, "examples to check")

	assert.Empty(t, b.SuggestedQuestions(ctx, bot.Message{UserID: "U1", ChannelID: "C1"}, nodes.QuestionsToTry), "none it could not check")
	assert.Equal(t, int64(1), down.checks.Load(), "checks asked of a data source that is down, for the welcome")

	down.checks.Store(0)
	s := askAs(t, b, "U1", bot.NewThreadID(), "tell me a joke")
	require.Equal(t, nodes.IntentOffTopic, s.Intent)
	assert.Empty(t, s.Reply.Questions, "none it could not check")
	assert.Equal(t, int64(1), down.checks.Load(), "checks asked of a data source that is down, for a decline")
}

// In the offline demo the questions to try are the demo's, which its
// script answers: the welcome's and a decline's alike.
func TestQuestionsToTryInTheDemo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBot(t, newEnv(t), "")
	require.True(t, b.Demo, "the demo")
	want := demo.Questions()[:nodes.QuestionsToTry]
	assert.Equal(t, want, b.SuggestedQuestions(ctx, bot.Message{UserID: "U1", ChannelID: "C1"}, nodes.QuestionsToTry), "the welcome")
	s := askAs(t, b, "U1", bot.NewThreadID(), "tell me a joke")
	require.Equal(t, nodes.IntentOffTopic, s.Intent)
	assert.Equal(t, want, s.Reply.Questions, "a decline")
}
