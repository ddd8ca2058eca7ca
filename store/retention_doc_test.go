package store_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// docs/observability.md's retention table says how long each table keeps
// people's words; feedback (its question and note) is kept forever, which
// an operator answering for what is stored must read there too.
func TestRetentionDocumentsFeedback(t *testing.T) {
	b, err := os.ReadFile("../docs/observability.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## Retention\n")
	require.True(t, ok, "docs/observability.md has a Retention section")
	section, _, _ = strings.Cut(section, "\n## ")
	var row string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| `feedback`") {
			row = line
		}
	}
	require.NotEmpty(t, row, "the retention table has a row for feedback")
	assert.Equal(t, "forever", strings.TrimSpace(strings.Split(row, "|")[2]), "feedback's row says how long it is kept")

	// And so it is: a pass that deletes every other table's rows older
	// than a millisecond leaves a year-old rating.
	db := storetest.New(t)
	ctx := context.Background()
	_, _, err = db.RecordFeedback(ctx, store.Feedback{ThreadID: "t1", QueryID: "0123abcd", UserID: "U1", Rating: store.RatingDown,
		Question: "How many games were released in 2018?", Note: "wrong year"})
	require.NoError(t, err)
	_, err = db.Pool().Exec(ctx, `UPDATE feedback SET created_at = now() - interval '1 year', updated_at = now() - interval '1 year'`)
	require.NoError(t, err)
	_, err = db.ApplyRetention(ctx, store.RetentionPolicy{QueryLogs: time.Millisecond, Turns: time.Millisecond,
		Results: time.Millisecond, Deliveries: time.Millisecond})
	require.NoError(t, err)
	var n int
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT count(*) FROM feedback`).Scan(&n))
	assert.Equal(t, 1, n, "feedback rows after a retention pass")
}
