package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// list_verified_queries without a limit lists 20 (docs/mcp.md), the most
// used first: of 25 verified examples, each used a different number of
// times, the 20 most used come back in that order, and a candidate used
// more than any of them is not listed.
func TestListVerifiedQueriesDefaultLimit(t *testing.T) {
	t.Parallel()
	// A database of its own: more verified examples in the package's
	// would change what the other tests' questions retrieve.
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA analytics; CREATE TABLE analytics.numbers (n int)`)
	require.NoError(t, err)
	require.NoError(t, pgwarehouse.Grant(ctx, db.Pool(), "", []string{"analytics"}), "the reader reads it: the guard checks each query")
	b := bottest.New(t, url, "")
	uses := map[int64]int64{}
	var want []string
	for i := 1; i <= 25; i++ {
		e, added, err := db.AddExample(ctx, store.Example{Backend: "postgres", Question: fmt.Sprintf("What is %d?", i),
			Query: fmt.Sprintf("SELECT %d AS n", i), Fingerprint: fmt.Sprintf("fp-%02d", i),
			Source: store.SourceAdmin, Status: store.StatusVerified, VerifiedBy: "UADMIN"})
		require.NoError(t, err)
		require.True(t, added)
		uses[e.ID] = int64(i)
		if i > 5 {
			want = append([]string{e.Question}, want...)
		}
	}
	candidate, _, err := db.AddExample(ctx, store.Example{Backend: "postgres", Question: "What is 100?",
		Query: "SELECT 100 AS n", Fingerprint: "fp-100", Source: store.SourceFeedback, Status: store.StatusCandidate})
	require.NoError(t, err)
	uses[candidate.ID] = 100
	require.NoError(t, db.AddExampleUses(ctx, uses))

	var verified VerifiedList
	decode(t, call(t, connect(t, b, Config{}, DefaultUser), "list_verified_queries", map[string]any{}), &verified)
	var got []string
	for _, q := range verified.Queries {
		got = append(got, q.Question)
	}
	assert.Equal(t, want, got, "the 20 most used verified queries, most used first")
}

// list_verified_queries lists only the verified queries the identity may
// run (docs/mcp.md): an example over a table one policy denies is listed
// to the identity whose policy reads that table, not to the other.
func TestListVerifiedQueriesUnderPolicy(t *testing.T) {
	t.Parallel()
	// A database of its own, as above.
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA analytics;
		CREATE TABLE analytics.apps (id int); CREATE TABLE analytics.secrets (id int)`)
	require.NoError(t, err)
	reader := pgx.Identifier{pgwarehouse.DefaultReaderRole}.Sanitize()
	storetest.SetupRoles(t, db, "GRANT USAGE ON SCHEMA analytics TO "+reader+"; GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO "+reader)
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
access:
  channels: [mcp]
policies:
  - name: all
    users: [UALL]
    tables: ["analytics.apps", "analytics.secrets"]
  - name: apps
    users: [UAPPS]
    tables: ["analytics.apps"]
default: none
`), 0o600))
	b := bottest.New(t, url, "", func(c *bot.Config) { c.AccessFile = path })
	// The bot's own seeded examples are listed too; the two added here
	// tell the policies apart.
	apps, secrets := "SELECT count(*) AS n FROM analytics.apps", "SELECT count(*) AS n FROM analytics.secrets"
	for i, q := range []string{apps, secrets} {
		_, added, err := db.AddExample(ctx, store.Example{Backend: "postgres", Question: q, Query: q,
			Fingerprint: fmt.Sprintf("fp-%d", i), Source: store.SourceAdmin, Status: store.StatusVerified, VerifiedBy: "UADMIN"})
		require.NoError(t, err)
		require.True(t, added)
	}

	for _, tc := range []struct {
		name, user  string
		wantSecrets bool
	}{
		{"a policy that reads both tables", "UALL", true},
		{"a policy that reads apps only", "UAPPS", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var verified VerifiedList
			decode(t, call(t, connect(t, b, Config{}, tc.user), "list_verified_queries", map[string]any{}), &verified)
			var got []string
			for _, q := range verified.Queries {
				got = append(got, q.Query)
			}
			assert.Contains(t, got, apps, "the apps query listed to %s", tc.user)
			assert.Equal(t, tc.wantSecrets, slices.Contains(got, secrets), "the secrets query listed to %s: %q", tc.user, got)
		})
	}
}

// Without an access file too, list_verified_queries lists only the
// verified queries the guard lets run here, as the questions to try are:
// one that writes (stored unchecked by an earlier version's examples file)
// or reads a table this data lacks is not offered to the client to copy.
func TestListVerifiedQueriesChecked(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA analytics; CREATE TABLE analytics.numbers (n int)`)
	require.NoError(t, err)
	require.NoError(t, pgwarehouse.Grant(ctx, db.Pool(), "", []string{"analytics"}), "the reader reads it: the guard checks each query")
	b := bottest.New(t, url, "")
	for i, q := range []string{"DELETE FROM analytics.numbers", "SELECT pg_sleep(600)", "SELECT n FROM analytics.gone", "SELECT n FROM analytics.numbers"} {
		_, _, err := db.AddExample(ctx, store.Example{Backend: "postgres", Question: fmt.Sprintf("Question %d?", i+1),
			Query: q, Fingerprint: fmt.Sprintf("fp-%d", i), Source: store.SourceFile, Status: store.StatusVerified, VerifiedBy: "file"})
		require.NoError(t, err)
	}
	var verified VerifiedList
	decode(t, call(t, connect(t, b, Config{}, DefaultUser), "list_verified_queries", map[string]any{}), &verified)
	var got []string
	for _, q := range verified.Queries {
		got = append(got, q.Question)
	}
	assert.Equal(t, []string{"Question 4?"}, got, "only the query that runs here")
}
