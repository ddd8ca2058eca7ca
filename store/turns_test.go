package store_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestQueryID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, sql, want string
	}{
		{name: "select 1", sql: "SELECT 1", want: "b1698e52"},
		{name: "revenue", sql: "SELECT month, sum(revenue) FROM analytics.orders GROUP BY 1", want: "a409d50c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := warehouse.QueryID(tt.sql); got != tt.want {
				t.Errorf("QueryID(%q) = %q, want %q", tt.sql, got, tt.want)
			}
		})
	}
}

func addTurns(t *testing.T, db *store.DB, turns ...store.Turn) []store.Turn {
	t.Helper()
	out := make([]store.Turn, 0, len(turns))
	for _, turn := range turns {
		got, err := db.AddTurn(context.Background(), turn)
		require.NoError(t, err)
		out = append(out, got)
	}
	return out
}

func TestRecentTurnsOldestFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	var a []store.Turn
	for _, msg := range []string{"q1", "q2", "q3", "q4", "q5"} {
		a = append(a, store.Turn{ThreadID: "A", UserID: "U1", ChannelID: "C1", UserMessage: msg, Intent: "new_query"})
	}
	added := addTurns(t, db, a...)
	addTurns(t, db, store.Turn{ThreadID: "B", UserMessage: "other thread"})

	for i, turn := range added {
		assert.NotZero(t, turn.ID, "turn %d ID", i)
		assert.False(t, turn.CreatedAt.IsZero(), "turn %d CreatedAt", i)
	}

	tests := []struct {
		name   string
		thread string
		limit  int
		want   []string
	}{
		{name: "last three", thread: "A", limit: 3, want: []string{"q3", "q4", "q5"}},
		{name: "more than stored", thread: "A", limit: 10, want: []string{"q1", "q2", "q3", "q4", "q5"}},
		{name: "other thread", thread: "B", limit: 10, want: []string{"other thread"}},
		{name: "unknown thread", thread: "Z", limit: 10, want: nil},
		{name: "zero limit", thread: "A", limit: 0, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turns, err := db.RecentTurns(ctx, tt.thread, tt.limit)
			require.NoError(t, err)
			var got []string
			for _, turn := range turns {
				got = append(got, turn.UserMessage)
			}
			assert.Equal(t, tt.want, got, "RecentTurns(%q, %d)", tt.thread, tt.limit)
		})
	}

	turns, err := db.RecentTurns(ctx, "A", 1)
	require.NoError(t, err)
	require.Len(t, turns, 1)
	assert.Equal(t, added[4].ID, turns[0].ID, "ID")
	assert.Equal(t, "U1", turns[0].UserID, "UserID")
	assert.Equal(t, "C1", turns[0].ChannelID, "ChannelID")
	assert.Equal(t, "new_query", turns[0].Intent, "Intent")
	assert.True(t, added[4].CreatedAt.Equal(turns[0].CreatedAt), "CreatedAt got %v want %v", turns[0].CreatedAt, added[4].CreatedAt)
}

func TestAddTurnTruncatesBotResponse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	tests := []struct {
		name     string
		response string
		want     string
	}{
		{name: "short kept", response: "Revenue was $1.2M.", want: "Revenue was $1.2M."},
		{name: "exactly 500", response: strings.Repeat("a", 500), want: strings.Repeat("a", 500)},
		{name: "ascii cut", response: strings.Repeat("a", 501), want: strings.Repeat("a", 500)},
		{name: "two-byte runes", response: strings.Repeat("é", 600), want: strings.Repeat("é", 500)},
		{name: "emoji at the cut", response: strings.Repeat("a", 499) + "📈📉", want: strings.Repeat("a", 499) + "📈"},
		{name: "NUL bytes dropped", response: "a\x00b", want: "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			thread := "T-" + tt.name
			got, err := db.AddTurn(ctx, store.Turn{ThreadID: thread, BotResponse: tt.response})
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.BotResponse, "returned turn")
			stored, err := db.RecentTurns(ctx, thread, 1)
			require.NoError(t, err)
			require.Len(t, stored, 1)
			assert.Equal(t, tt.want, stored[0].BotResponse, "stored turn")
			assert.True(t, utf8.ValidString(stored[0].BotResponse), "valid UTF-8")
			assert.LessOrEqual(t, utf8.RuneCountInString(stored[0].BotResponse), 500, "characters")
		})
	}
}

// A turn keeps its reply for showing the thread again; the history the
// workflow reads each message does not carry it.
func TestThreadReplies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	const thread = "T-replies"
	reply := `{"kind":"answer","text":[{"text":"a \u0000 NUL and é"}]}`
	_, err := db.AddTurn(ctx, store.Turn{ThreadID: thread, UserMessage: "q1", BotResponse: "a1", Reply: []byte(reply)})
	require.NoError(t, err)
	_, err = db.AddTurn(ctx, store.Turn{ThreadID: thread, UserMessage: "q2", BotResponse: "a2"})
	require.NoError(t, err)

	got, err := db.ThreadReplies(ctx, thread, 10)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "q1", got[0].UserMessage, "oldest first")
	assert.JSONEq(t, reply, string(got[0].Reply), "the reply as it was stored, any character kept")
	assert.Nil(t, got[1].Reply, "a turn without a reply")

	history, err := db.RecentTurns(ctx, thread, 10)
	require.NoError(t, err)
	require.Len(t, history, 2)
	assert.Nil(t, history[0].Reply, "the history leaves replies out")

	_, err = db.AddTurn(ctx, store.Turn{ThreadID: thread, Reply: []byte("{not json")})
	assert.Error(t, err, "a reply that is not JSON is refused")
}

func TestMostRecentQueryAndTurnByQueryID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	const first, second = "SELECT 1", "SELECT 2"
	added := addTurns(t, db,
		store.Turn{ThreadID: "A", UserMessage: "one", Query: pgQuery(first), QueryID: warehouse.QueryID(first)},
		store.Turn{ThreadID: "A", UserMessage: "two", Query: pgQuery(second), QueryID: warehouse.QueryID(second)},
		store.Turn{ThreadID: "A", UserMessage: "thanks!"}, // chit-chat, no SQL
		store.Turn{ThreadID: "B", UserMessage: "hello"},
	)

	got, err := db.MostRecentQuery(ctx, "A")
	require.NoError(t, err)
	assert.Equal(t, added[1].ID, got.ID, "latest turn with SQL, got %q", got.UserMessage)
	assert.Equal(t, second, got.Query.Text)

	_, err = db.MostRecentQuery(ctx, "B")
	assert.ErrorIs(t, err, store.ErrNotFound, "thread without SQL")

	got, err = db.TurnByQueryID(ctx, "A", warehouse.QueryID(first))
	require.NoError(t, err)
	assert.Equal(t, added[0].ID, got.ID, "turn by query id, got %q", got.UserMessage)

	_, err = db.TurnByQueryID(ctx, "B", warehouse.QueryID(first))
	assert.ErrorIs(t, err, store.ErrNotFound, "query id of another thread")
}

func TestFindQueryByKeyword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	added := addTurns(t, db,
		store.Turn{ThreadID: "A", UserMessage: "revenue by month", Query: pgQuery("SELECT month, sum(amount) FROM orders GROUP BY 1")},
		store.Turn{ThreadID: "A", UserMessage: "top customers by revenue", Query: pgQuery("SELECT customer, sum(amount) FROM orders GROUP BY 1")},
		store.Turn{ThreadID: "A", UserMessage: "refund rate", Query: pgQuery("SELECT avg(refund_rate) FROM refunds")},
		store.Turn{ThreadID: "A", UserMessage: "customers are great"}, // no Query: pgQuery(never) found
		store.Turn{ThreadID: "B", UserMessage: "churn", Query: pgQuery("SELECT churn FROM churn")},
	)
	tests := []struct {
		name     string
		thread   string
		keywords []string
		wantID   int64 // 0: ErrNotFound
	}{
		{name: "latest of two matches", thread: "A", keywords: []string{"revenue"}, wantID: added[1].ID},
		{name: "most keywords wins over latest", thread: "A", keywords: []string{"month", "revenue"}, wantID: added[0].ID},
		{name: "case-insensitive, matches sql text", thread: "A", keywords: []string{"REFUNDS"}, wantID: added[2].ID},
		{name: "underscore is literal", thread: "A", keywords: []string{"refund_rate"}, wantID: added[2].ID},
		{name: "underscore does not match any char", thread: "A", keywords: []string{"by_month"}},
		{name: "percent is literal", thread: "A", keywords: []string{"%"}},
		{name: "no match", thread: "A", keywords: []string{"inventory"}},
		{name: "blank keywords", thread: "A", keywords: []string{" ", ""}},
		{name: "other thread's turn not found", thread: "B", keywords: []string{"revenue"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.FindQueryByKeyword(ctx, tt.thread, tt.keywords)
			if tt.wantID == 0 {
				assert.ErrorIs(t, err, store.ErrNotFound, "got turn %q", got.UserMessage)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantID, got.ID, "got turn %q", got.UserMessage)
		})
	}
}

func TestDeleteTurnsOlderThan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	added := addTurns(t, db,
		store.Turn{ThreadID: "A", UserMessage: "old 1"},
		store.Turn{ThreadID: "B", UserMessage: "old 2"},
		store.Turn{ThreadID: "A", UserMessage: "fresh"},
	)
	_, err := db.Pool().Exec(ctx,
		`UPDATE conversation_turns SET created_at = now() - interval '40 days' WHERE id = ANY($1)`,
		[]int64{added[0].ID, added[1].ID})
	require.NoError(t, err)

	n, err := db.DeleteTurnsOlderThan(ctx, 30*24*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, int64(2), n, "deleted")

	turns, err := db.RecentTurns(ctx, "A", 10)
	require.NoError(t, err)
	require.Len(t, turns, 1)
	assert.Equal(t, "fresh", turns[0].UserMessage)

	n, err = db.DeleteTurnsOlderThan(ctx, 30*24*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, int64(0), n, "second cleanup deletes nothing")
}
