package bot_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
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
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// testExportAfterPolicyChange: cached rows are served to the person and
// policy they were run for alone. After `access apply`, each policy runs
// as its own role (what current_user says: rows the database may scope by
// role). Ana's answer is cached under her policy; once the access file
// moves her to another (a replica started with the new file, sharing the
// database), her Export CSV is run again as her new policy's role rather
// than served from the rows of the old one. Where her policy is still the
// one it ran for, her export comes from the cached rows, without a query.
func testExportAfterPolicyChange(t *testing.T, e *testEnv) {
	ctx := context.Background()
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_owner_reader_" + hex.EncodeToString(suffix[:])
	id := pgx.Identifier{reader}.Sanitize()
	storetest.SetupRoles(t, e.admin, "CREATE ROLE "+id+" LOGIN NOINHERIT; GRANT USAGE ON SCHEMA analytics TO "+id+
		"; GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO "+id)
	before := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(before, []byte(bottest.AccessFile("everyone")), 0o600))
	// The same policies; Ana is no longer among the analysts, so the
	// default (everyone) is hers.
	after := filepath.Join(t.TempDir(), "access.yaml")
	moved := strings.Replace(bottest.AccessFile("everyone"), "analysts: [UANA]", "analysts: [UNOBODY]", 1)
	require.NotEqual(t, bottest.AccessFile("everyone"), moved)
	require.NoError(t, os.WriteFile(after, []byte(moved), 0o600))
	rules, err := access.Load(before)
	require.NoError(t, err)
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
	_, err = pgwarehouse.ApplyPolicies(ctx, e.admin.Pool(), reader, "", []string{"analytics"}, rules.List())
	require.NoError(t, err)
	rule := script(`
  - step: generate_sql
    match: '(?im)^Question: who am i'
    reply: '{"sql": "SELECT current_user AS who", "assumptions": [], "explanation": "x"}'
`)
	analysts := newBot(t, e, rule, func(c *bot.Config) { c.AccessFile, c.Postgres.ReaderRole = before, reader })
	everyone := newBot(t, e, rule, func(c *bot.Config) { c.AccessFile, c.Postgres.ReaderRole = after, reader })

	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	ana := bot.Message{ThreadID: bot.NewThreadID(), UserID: "UANA", ChannelID: "CDATA"}
	asked := ana
	asked.Text = "who am I"
	s, _, err := analysts.AskState(cctx, asked)
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
	require.Equal(t, pgwarehouse.PolicyRole(reader, "analysts"), s.Result.Rows[0][0], "asked as the analysts' role")

	p, _, err := everyone.PressState(cctx, ana, string(nodes.IntentExportCSV), s.QueryID)
	require.NoError(t, err)
	require.Empty(t, p.ErrorKind, "detail %s", p.ErrorDetail)
	csv := exportedCSV(t, p)
	assert.Contains(t, csv, pgwarehouse.PolicyRole(reader, "everyone"), "run again as her new policy's role")
	assert.NotContains(t, csv, pgwarehouse.PolicyRole(reader, "analysts"), "never the rows of the policy she no longer has")

	p, _, err = analysts.PressState(cctx, ana, string(nodes.IntentExportCSV), s.QueryID)
	require.NoError(t, err)
	require.Empty(t, p.ErrorKind, "detail %s", p.ErrorDetail)
	assert.Zero(t, p.DBTime, "her own rows, under the policy they ran for: no query run")
	assert.Contains(t, exportedCSV(t, p), pgwarehouse.PolicyRole(reader, "analysts"))
}

// testScheduledRunRows: a scheduled run posted into the thread it was made
// in is kept there as run for its owner: the owner's Export CSV of it
// comes from its rows, without a query, and another member's is run for
// them.
func testScheduledRunRows(t *testing.T, e *testEnv) {
	b := newBot(t, e, script(""))
	thread := bot.NewThreadID()
	answer, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, answer.ErrorKind, "question: %s", answer.ErrorDetail)
	confirm, _ := ask(t, b, thread, "post this here every Monday at 9")
	require.NotEmpty(t, confirm.ScheduleID, "a pending schedule: %s", confirm.ResponseText)
	saved, _ := press(t, b, thread, nodes.ActionScheduleSave, confirm.ScheduleID)
	require.Contains(t, saved.ResponseText, "Saved:")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sch, err := b.DB().ScheduleByID(ctx, confirm.ScheduleID)
	require.NoError(t, err)
	slack := &recordingDeliverer{}
	sc := scheduler.New(b, scheduler.Options{Now: func() time.Time { return sch.NextRunAt.Add(time.Second) }, Only: sch.ID})
	sc.Handle(nodes.SurfaceSlack, slack)
	n, err := sc.Tick(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Len(t, slack.posts, 1)
	run := slack.posts[0]

	own, _ := press(t, b, thread, string(nodes.IntentExportCSV), run.QueryID)
	require.Empty(t, own.ErrorKind, "detail %s", own.ErrorDetail)
	assert.Zero(t, own.DBTime, "its owner's export: the run's rows, no query")
	assert.Equal(t, "games\n8160\n", string(own.CSVContent))
	other, _, err := b.PressState(ctx, bot.Message{ThreadID: thread, UserID: "U2", ChannelID: "C1"}, string(nodes.IntentExportCSV), run.QueryID)
	require.NoError(t, err)
	require.Empty(t, other.ErrorKind, "detail %s", other.ErrorDetail)
	assert.Positive(t, other.DBTime, "another member's export is run for them")
	assert.Equal(t, "games\n8160\n", exportedCSV(t, other))
}

// testExportAfterMask: the asker's own Export CSV of an answer whose rows
// hold a column their policy has masked since (the policy keeps its name)
// hands over no cached row, and says why; Show SQL still shows the query,
// whose names the policy may read.
func testExportAfterMask(t *testing.T, e *testEnv) {
	before := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(before, []byte(bottest.AccessFile("everyone")), 0o600))
	after := filepath.Join(t.TempDir(), "access.yaml")
	masked := strings.Replace(bottest.AccessFile("everyone"), `mask_columns: ["hr.employees.email"]`,
		`mask_columns: ["hr.employees.email", "analytics.apps.name"]`, 1)
	require.NotEqual(t, bottest.AccessFile("everyone"), masked)
	require.NoError(t, os.WriteFile(after, []byte(masked), 0o600))
	rules := script(bottest.AccessRules())
	analysts := newBot(t, e, rules, func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = before, bottest.AccessSchemas })
	since := newBot(t, e, rules, func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = after, bottest.AccessSchemas })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ana := bot.Message{ThreadID: bot.NewThreadID(), UserID: "UANA", ChannelID: "CDATA"}
	asked := ana
	asked.Text = bottest.AccessCases[0].Question(caseIndex(t, "masked column returned"))
	s, _, err := analysts.AskState(ctx, asked)
	require.NoError(t, err)
	require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
	require.NotEmpty(t, s.Result.Rows, "the titles, which the analysts may read")
	title := s.Result.Rows[0][0].(string)

	p, _, err := since.PressState(ctx, ana, string(nodes.IntentExportCSV), s.QueryID)
	require.NoError(t, err)
	assert.Equal(t, nodes.ErrInvalidQuery, p.ErrorKind, "detail %s", p.ErrorDetail)
	assert.False(t, p.HasCSV(), "no CSV")
	assert.Empty(t, p.Result.Rows, "no cached row")
	assert.Equal(t, "That answer returns a column you may not read in full, so I can't export it. Ask the question again for a fresh result.", p.ResponseText)
	assert.NotContains(t, p.ResponseText, title)

	p, _, err = since.PressState(ctx, ana, string(nodes.IntentShowSQL), s.QueryID)
	require.NoError(t, err)
	require.Empty(t, p.ErrorKind, "detail %s", p.ErrorDetail)
	require.NotNil(t, p.Reply.Query)
	assert.Contains(t, p.Reply.Query.Text, "analytics.apps")
}
