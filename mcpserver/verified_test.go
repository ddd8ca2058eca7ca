package mcpserver

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
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
