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
