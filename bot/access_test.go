package bot_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// testAccessPoliciesAlone asks every case as a user of each policy with
// the guard taken out, each answered as its policy's role: PostgreSQL
// alone refuses what the policy does not allow, and the asker reads what
// they may not read, as from the guard. A narrower user's Export CSV of
// another's answer is refused by the database too.
func testAccessPoliciesAlone(t *testing.T, e *testEnv) {
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
	cfg := testConfig(t, e, script(bottest.AccessRules()))
	cfg.AccessFile, cfg.Postgres.Schemas = path, bottest.AccessSchemas
	b := bottest.StartWithoutGuard(t, cfg, discardLogger())
	askAs := func(user, thread, text string) *nodes.State {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: user, ChannelID: "CDATA", Text: text})
		require.NoError(t, err)
		return s
	}
	for i, c := range bottest.AccessCases {
		for p, user := range bottest.AccessUsers {
			t.Run(c.Name+"/"+bottest.AccessPolicies[p], func(t *testing.T) {
				s := askAs(user, bot.NewThreadID(), c.Question(i))
				assert.Equal(t, c.Alone[p], s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
				if c.Alone[p] == nodes.ErrAccessDenied {
					assert.Regexp(t, `^I can't answer that: you may not read \S.*\. If you need it, ask whoever runs this bot for access\.`, s.ResponseText)
					assert.NotContains(t, s.ResponseText, "GRANT", "no grant to run: the policy says no")
					assert.Zero(t, s.RetryCount, "never retried")
				}
				if c.Alone[p] == "" {
					assert.NotEmpty(t, s.Result.Columns, "an answer")
				}
			})
		}
	}
	t.Run("a narrower user's export", func(t *testing.T) {
		thread := bot.NewThreadID()
		admin := askAs("UADMIN", thread, "case 2")
		require.Empty(t, admin.ErrorKind)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "UZED", ChannelID: "CDATA"}, string(nodes.IntentExportCSV), admin.QueryID)
		require.NoError(t, err)
		assert.Equal(t, nodes.ErrAccessDenied, s.ErrorKind, "detail %s", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "you may not read analytics.developers")
		assert.False(t, s.HasCSV(), "no file")
	})
}

// testAccessPolicies asks every case as a user of each policy, through the
// workflow and the real guard and database, then presses another user's
// buttons as a narrower one, and is refused where the file does not admit.
func testAccessPolicies(t *testing.T, e *testEnv) {
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
	b := newBot(t, e, script(bottest.AccessRules()), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })
	askAs := func(user, channel, thread, text string) *nodes.State {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: user, ChannelID: channel, Text: text})
		require.NoError(t, err)
		return s
	}
	for i, c := range bottest.AccessCases {
		for p, user := range bottest.AccessUsers {
			t.Run(c.Name+"/"+bottest.AccessPolicies[p], func(t *testing.T) {
				s := askAs(user, "CDATA", bot.NewThreadID(), c.Question(i))
				assert.Equal(t, c.Want[p], s.ErrorKind, "error kind (detail %s)", s.ErrorDetail)
				assert.Equal(t, bottest.AccessPolicies[p], s.Policy, "the policy asked under")
				if c.Want[p] == nodes.ErrAccessDenied {
					assert.Contains(t, s.ResponseText, "I can't answer that: you may not read ", "the user is told what they may not read")
					assert.Zero(t, s.RetryCount, "never retried")
				}
				if c.Want[p] == "" {
					assert.NotEmpty(t, s.Result.Columns, "an answer")
				}
			})
		}
	}

	t.Run("the model sees only the policy's tables and columns", func(t *testing.T) {
		askAs("UZED", "CDATA", bot.NewThreadID(), "case 1")
		calls := b.Scripted.Calls()
		var prompt string
		for _, c := range calls {
			if c.Step == llm.StepGenerateSQL {
				prompt = c.Prompt
			}
		}
		require.NotEmpty(t, prompt)
		assert.Contains(t, prompt, "analytics.apps")
		for _, hidden := range []string{"analytics.developers", "analytics.publishers", "\n  price "} {
			assert.NotContains(t, prompt, hidden, "outside the policy")
		}
	})

	t.Run("examples outside the policy are not shown", func(t *testing.T) {
		lastPrompt := func() string {
			calls := b.Scripted.Calls()
			for i := len(calls) - 1; i >= 0; i-- {
				if calls[i].Step == llm.StepGenerateSQL {
					return calls[i].Prompt
				}
			}
			return ""
		}
		const q = "What is the average price of RPG games by release year since 2015?"
		askAs("UADMIN", "CDATA", bot.NewThreadID(), q)
		assert.Contains(t, lastPrompt(), "avg(a.price)", "the full policy gets the example about prices")
		askAs("UZED", "CDATA", bot.NewThreadID(), q)
		assert.NotContains(t, lastPrompt(), "avg(a.price)", "a policy without prices does not")
	})

	t.Run("suggestions within the policy", func(t *testing.T) {
		const free, publishers, prices = "How many games are free to play?",
			"Which 5 publishers released the most games in 2017?",
			"What is the average price of RPG games by release year since 2015?"
		ctx := context.Background()
		admin := b.SuggestedQuestions(ctx, bot.Message{UserID: "UADMIN", ChannelID: "CDATA"}, 10)
		assert.Subset(t, admin, []string{free, publishers, prices}, "the full policy may run them all")
		zed := b.SuggestedQuestions(ctx, bot.Message{UserID: "UZED", ChannelID: "CDATA"}, 10)
		assert.Contains(t, zed, free)
		assert.NotContains(t, zed, publishers, "publishers are outside the policy")
		assert.NotContains(t, zed, prices, "prices are outside the policy")
		assert.Empty(t, b.SuggestedQuestions(ctx, bot.Message{UserID: "UZED", ChannelID: "CRANDOM"}, 10), "none where the bot does not answer")

		s := askAs("UZED", "CDATA", bot.NewThreadID(), "tell me a joke")
		require.Equal(t, nodes.IntentOffTopic, s.Intent)
		assert.Equal(t, []string{free}, s.Reply.Questions, "a decline suggests only what the user may ask")
		assert.Equal(t, b.SuggestedQuestions(ctx, bot.Message{UserID: "UZED", ChannelID: "CDATA"}, nodes.QuestionsToTry), s.Reply.Questions,
			"the welcome's questions")
		s = askAs("UADMIN", "CDATA", bot.NewThreadID(), "tell me a joke")
		assert.Equal(t, b.SuggestedQuestions(ctx, bot.Message{UserID: "UADMIN", ChannelID: "CDATA"}, nodes.QuestionsToTry), s.Reply.Questions,
			"the welcome's questions, for the full policy too")
	})

	t.Run("a narrower user's presses", func(t *testing.T) {
		thread := bot.NewThreadID()
		admin := askAs("UADMIN", "CDATA", thread, "case 2")
		require.Empty(t, admin.ErrorKind)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, action := range []nodes.Intent{nodes.IntentExportCSV, nodes.IntentShowSQL, nodes.IntentRefresh} {
			s, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "UZED", ChannelID: "CDATA"}, string(action), admin.QueryID)
			require.NoError(t, err)
			assert.Equal(t, nodes.ErrAccessDenied, s.ErrorKind, "%s by a narrower user (detail %s)", action, s.ErrorDetail)
			assert.False(t, s.HasCSV(), "%s: no file", action)
			assert.NotContains(t, s.ResponseText, "SELECT", "%s: no SQL shown", action)
			assert.Empty(t, s.Result.Rows, "%s: no rows", action)
		}
		s, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "UADMIN", ChannelID: "CDATA"}, string(nodes.IntentExportCSV), admin.QueryID)
		require.NoError(t, err)
		assert.Empty(t, s.ErrorKind, "the asker's own export")
		assert.True(t, s.HasCSV())
		s.RemoveCSVFile()
	})

	t.Run("the asker's own export once the file no longer lets them read it", func(t *testing.T) {
		thread := bot.NewThreadID()
		admin := askAs("UADMIN", "CDATA", thread, "case 2")
		require.Empty(t, admin.ErrorKind)
		// The bot restarts with a file that no longer names them: the
		// default policy, which may not read the developers.
		narrower := filepath.Join(t.TempDir(), "access.yaml")
		file := strings.Replace(bottest.AccessFile("everyone"), "users: [UADMIN]", "users: [UNOBODY]", 1)
		require.NoError(t, os.WriteFile(narrower, []byte(file), 0o600))
		after := newBot(t, e, script(bottest.AccessRules()), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = narrower, bottest.AccessSchemas })
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		s, _, err := after.PressState(ctx, bot.Message{ThreadID: thread, UserID: "UADMIN", ChannelID: "CDATA"}, string(nodes.IntentExportCSV), admin.QueryID)
		require.NoError(t, err)
		defer s.RemoveCSVFile()
		assert.Equal(t, nodes.ErrAccessDenied, s.ErrorKind, "detail %s", s.ErrorDetail)
		assert.Contains(t, s.ResponseText, "you may not read analytics.developers")
		assert.False(t, s.HasCSV(), "no file of the rows cached under the policy they had")
		assert.Empty(t, s.Result.Rows, "no rows")
	})

	t.Run("not admitted", func(t *testing.T) {
		before := len(b.Scripted.Calls())
		for _, where := range []struct{ user, channel, want string }{
			{"UANA", "CRANDOM", "I don't answer in this channel"},
			{"UANA", "D0123", "I don't answer direct messages here"},
		} {
			s := askAs(where.user, where.channel, bot.NewThreadID(), "case 1")
			assert.Equal(t, nodes.ErrNotAdmitted, s.ErrorKind)
			assert.Contains(t, s.ResponseText, where.want)
			logs, err := b.DB().QueryLogs(context.Background(), store.QueryLogFilter{ThreadID: s.ThreadTS})
			require.NoError(t, err)
			require.Len(t, logs, 1, "the refusal is logged")
			assert.Equal(t, string(nodes.ErrNotAdmitted), logs[0].ErrorKind)
		}
		assert.Equal(t, before, len(b.Scripted.Calls()), "no model call for someone not admitted")
		s := askAs("cli", "cli", bot.NewThreadID(), "case 1")
		assert.Empty(t, s.ErrorKind, "the operator's command line is admitted, under the default policy")
		assert.Equal(t, "everyone", s.Policy)
	})
}

// testPolicyRoles: after `access apply`, the bot answers each person as
// their policy's database role (what current_user says), and the reader
// when the roles are missing.
func testPolicyRoles(t *testing.T, e *testEnv) {
	ctx := context.Background()
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_bot_reader_" + hex.EncodeToString(suffix[:])
	id := pgx.Identifier{reader}.Sanitize()
	storetest.SetupRoles(t, e.admin, "CREATE ROLE "+id+" LOGIN NOINHERIT; GRANT USAGE ON SCHEMA analytics TO "+id+
		"; GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO "+id)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
	rules, err := access.Load(path)
	require.NoError(t, err)
	policies := rules.List()
	t.Cleanup(func() {
		for _, r := range append(rules.Policies(), "") {
			role := reader
			if r != "" {
				role = pgwarehouse.PolicyRole(reader, r)
			}
			rid := pgx.Identifier{role}.Sanitize()
			_, _ = e.admin.Pool().Exec(context.Background(), "DROP OWNED BY "+rid+"; DROP ROLE "+rid)
		}
	})
	rule := `
  - step: generate_sql
    match: '(?im)^Question: who am i'
    reply: '{"sql": "SELECT current_user AS who", "assumptions": [], "explanation": "x"}'
`
	who := func(b *bot.Bot, user string) any {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: user, ChannelID: "CDATA", Text: "who am I"})
		require.NoError(t, err)
		require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
		logs, err := b.DB().QueryLogs(ctx, store.QueryLogFilter{ThreadID: s.ThreadTS})
		require.NoError(t, err)
		require.Len(t, logs, 1)
		assert.Equal(t, s.Result.Rows[0][0], logs[0].Role, "the query log names the role the query ran as")
		return s.Result.Rows[0][0]
	}
	adjust := func(c *bot.Config) { c.AccessFile, c.Postgres.ReaderRole = path, reader }

	before := newBot(t, e, script(rule), adjust)
	assert.Equal(t, reader, who(before, "UANA"), "no roles yet: the reader, and the guard alone")

	_, err = pgwarehouse.ApplyPolicies(ctx, e.admin.Pool(), reader, "", []string{"analytics"}, policies)
	require.NoError(t, err)
	after := newBot(t, e, script(rule), adjust)
	assert.Equal(t, pgwarehouse.PolicyRole(reader, "analysts"), who(after, "UANA"))
	assert.Equal(t, pgwarehouse.PolicyRole(reader, "full"), who(after, "UADMIN"))
	assert.Equal(t, pgwarehouse.PolicyRole(reader, "everyone"), who(after, "UZED"))

	// A policy whose role is missing (added to the file since the last
	// apply) is answered as the reader, with a warning naming its role;
	// the policies that have roles keep them.
	missing := pgwarehouse.PolicyRole(reader, "everyone")
	mid := pgx.Identifier{missing}.Sanitize()
	// Beside the other tests applying policies to these roles.
	err = pgx.BeginFunc(ctx, e.admin.Pool(), func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", pgwarehouse.ApplyLockKey)
		if err == nil {
			_, err = tx.Exec(ctx, "DROP OWNED BY "+mid+"; DROP ROLE "+mid)
		}
		return err
	})
	require.NoError(t, err)
	watch := bottest.NewLogWatch("have no database role yet")
	cfg := testConfig(t, e, script(rule))
	adjust(&cfg)
	partly := bottest.Start(t, cfg, slog.New(watch))
	assert.Equal(t, pgwarehouse.PolicyRole(reader, "analysts"), who(partly, "UANA"), "a policy with its role keeps it")
	assert.Equal(t, reader, who(partly, "UZED"), "a policy without one: the reader, and the guard alone")
	var warned []string
	for _, rec := range watch.Records() {
		if strings.Contains(rec.Message, "have no database role yet") {
			warned = append(warned, rec.Message+" "+attr(rec, "missing"))
		}
	}
	require.Len(t, warned, 1, "the start says which policies lack a role: %q", watch.Messages())
	assert.Contains(t, warned[0], missing)
	assert.NotContains(t, warned[0], pgwarehouse.PolicyRole(reader, "analysts"))
}
