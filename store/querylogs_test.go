package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// addLogs stores logs in order and returns them as stored.
func addLogs(t *testing.T, db *store.DB, logs ...store.QueryLog) []store.QueryLog {
	t.Helper()
	out := make([]store.QueryLog, len(logs))
	for i, l := range logs {
		var err error
		out[i], err = db.AddQueryLog(context.Background(), l)
		require.NoError(t, err, "add query log %d", i)
	}
	return out
}

// ageLogs moves the logs' creation back by age, as if written that long ago.
func ageLogs(t *testing.T, db *store.DB, age time.Duration, logs ...store.QueryLog) {
	t.Helper()
	ids := make([]int64, len(logs))
	for i, l := range logs {
		ids[i] = l.ID
	}
	_, err := db.Pool().Exec(context.Background(),
		`UPDATE chat_query_logs SET created_at = created_at - make_interval(secs => $1) WHERE id = ANY($2)`,
		age.Seconds(), ids)
	require.NoError(t, err, "age query logs")
}

func TestAddQueryLogReadBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	want := store.QueryLog{
		Question: "How many games were released in 2018?", ThreadID: "C1:1700000000.000100",
		UserID: "U1", ChannelID: "C1", Intent: "analytics_query",
		Path:       []string{"route_intent", "generate_sql", "validate_sql", "generate_sql", "validate_sql", "save_turn"},
		ModelCalls: 3, PromptTokens: 1200, CompletionTokens: 85, RowCount: 1, ResponseChars: 47,
		Backend: "sql", ModelTime: 812345 * time.Microsecond, DBTime: 12500 * time.Microsecond,
		Total: 901234 * time.Microsecond,
		NodeTime: map[string]time.Duration{
			"route_intent": 100 * time.Millisecond, "generate_sql": 700 * time.Millisecond,
			"validate_sql": 1500 * time.Microsecond, "save_turn": 2 * time.Millisecond,
		},
	}
	added := addLogs(t, db, want)[0]
	assert.NotZero(t, added.ID, "id")
	assert.WithinDuration(t, time.Now(), added.CreatedAt, time.Minute, "created_at is the database's now")

	got, err := db.QueryLogs(ctx, store.QueryLogFilter{ThreadID: want.ThreadID})
	require.NoError(t, err)
	require.Len(t, got, 1)
	want.ID, want.CreatedAt = added.ID, got[0].CreatedAt
	assert.Equal(t, want, got[0], "read back")
	assert.True(t, added.CreatedAt.Equal(got[0].CreatedAt), "created_at: got %s, want %s", got[0].CreatedAt, added.CreatedAt)
}

func TestAddQueryLogCleansInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	long := strings.Repeat("é", 4100)
	// Four characters of one, two, three and four bytes: a cut by bytes
	// would split one.
	mixed := strings.Repeat("aé€😀", 600)
	tests := []struct {
		name                     string
		in                       store.QueryLog
		wantQuestion, wantDetail string
	}{
		{name: "zero log", in: store.QueryLog{}, wantQuestion: ""},
		{name: "long question truncated to 4000 characters", in: store.QueryLog{Question: long}, wantQuestion: long[:2*4000]},
		{name: "NUL and invalid UTF-8", in: store.QueryLog{Question: "a\x00b\xffc"}, wantQuestion: "ab\uFFFDc"},
		{name: "long error detail cut to 2000 characters", in: store.QueryLog{ErrorDetail: mixed},
			wantDetail: strings.Repeat("aé€😀", 500)},
		{name: "error detail of 2000 characters kept whole", in: store.QueryLog{ErrorDetail: strings.Repeat("aé€😀", 500)},
			wantDetail: strings.Repeat("aé€😀", 500)},
		// Masked before the cut: cut first, the key's start would be kept
		// too short to look like a key.
		{name: "a key at the cut is masked", in: store.QueryLog{ErrorDetail: strings.Repeat("é", 1995) + " sk-abcdefghij"},
			wantDetail: strings.Repeat("é", 1995) + " [mas"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.ThreadID = t.Name()
			_, err := db.AddQueryLog(ctx, tt.in)
			require.NoError(t, err, "add")
			got, err := db.QueryLogs(ctx, store.QueryLogFilter{ThreadID: t.Name()})
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, tt.wantQuestion, got[0].Question, "question")
			assert.Equal(t, tt.wantDetail, got[0].ErrorDetail, "error detail")
			assert.Equal(t, []string{}, got[0].Path, "a missing path reads back empty, not nil")
			assert.Equal(t, map[string]time.Duration{}, got[0].NodeTime, "node times")
		})
	}
}

func TestQueryLogsFilter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	added := addLogs(t, db,
		store.QueryLog{ThreadID: "A", Question: "a old"},
		store.QueryLog{ThreadID: "A", Question: "a 1"},
		store.QueryLog{ThreadID: "B", Question: "b 1"},
		store.QueryLog{ThreadID: "A", Question: "a 2"},
	)
	ageLogs(t, db, 48*time.Hour, added[0])

	tests := []struct {
		name   string
		filter store.QueryLogFilter
		want   []string
	}{
		{name: "everything, newest first", want: []string{"a 2", "b 1", "a 1", "a old"}},
		{name: "last day", filter: store.QueryLogFilter{Since: 24 * time.Hour}, want: []string{"a 2", "b 1", "a 1"}},
		{name: "one thread", filter: store.QueryLogFilter{ThreadID: "A"}, want: []string{"a 2", "a 1", "a old"}},
		{name: "limit", filter: store.QueryLogFilter{Limit: 2}, want: []string{"a 2", "b 1"}},
		{name: "all three", filter: store.QueryLogFilter{Since: 24 * time.Hour, ThreadID: "A", Limit: 1}, want: []string{"a 2"}},
		{name: "unknown thread", filter: store.QueryLogFilter{ThreadID: "C"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs, err := db.QueryLogs(ctx, tt.filter)
			require.NoError(t, err)
			var got []string
			for _, l := range logs {
				got = append(got, l.Question)
			}
			assert.Equal(t, tt.want, got, "questions")
		})
	}
}

func TestSummarizeQueryLogs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	ms := func(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }
	added := addLogs(t, db,
		store.QueryLog{Question: "q100", Intent: "analytics_query", Total: ms(100), ModelTime: ms(60), DBTime: ms(10),
			ModelCalls: 3, PromptTokens: 1000, CompletionTokens: 50,
			NodeTime: map[string]time.Duration{"generate_sql": ms(40), "execute_sql": ms(10)}},
		store.QueryLog{Question: "q200", Intent: "analytics_query", Total: ms(200), ModelTime: ms(150), DBTime: ms(20),
			ModelCalls: 3, PromptTokens: 1100, CompletionTokens: 60,
			NodeTime: map[string]time.Duration{"generate_sql": ms(120), "execute_sql": ms(20)}},
		store.QueryLog{Question: "q300 timeout", Intent: "analytics_query", ErrorKind: "query_timeout", Total: ms(300),
			ModelCalls: 2, PromptTokens: 900, CompletionTokens: 40,
			NodeTime: map[string]time.Duration{"generate_sql": ms(80), "execute_sql": ms(200)}},
		store.QueryLog{Question: "q400 joke", Intent: "off_topic", Total: ms(400), ModelCalls: 1, PromptTokens: 300},
		store.QueryLog{Question: "q1000 timeout", Intent: "follow_up", ErrorKind: "query_timeout", Total: ms(1000),
			ModelCalls: 2, PromptTokens: 800, CompletionTokens: 30,
			NodeTime: map[string]time.Duration{"generate_sql": ms(160), "execute_sql": ms(800)}},
		store.QueryLog{Question: "q50 unsafe", Intent: "analytics_query", ErrorKind: "unsafe_query", Total: ms(50), ModelCalls: 2},
		// Outside the window: must count nowhere.
		store.QueryLog{Question: "old", Intent: "export_csv", ErrorKind: "internal", Total: ms(99999), ModelCalls: 9,
			NodeTime: map[string]time.Duration{"export_csv": ms(99999)}},
	)
	ageLogs(t, db, 48*time.Hour, added[len(added)-1])

	got, err := db.SummarizeQueryLogs(ctx, 24*time.Hour, 2)
	require.NoError(t, err)

	assert.WithinDuration(t, time.Now().Add(-24*time.Hour), got.From, time.Minute, "window start")
	assert.Equal(t, 6, got.Turns, "turns")
	assert.Equal(t, []store.LabelCount{{Label: "analytics_query", Turns: 4}, {Label: "follow_up", Turns: 1}, {Label: "off_topic", Turns: 1}}, got.ByIntent, "by intent")
	assert.Equal(t, []store.LabelCount{{Label: "ok", Turns: 3}, {Label: "query_timeout", Turns: 2}, {Label: "unsafe_query", Turns: 1}}, got.ByOutcome, "by outcome")
	// Totals 50, 100, 200, 300, 400, 1000: the median interpolates 200 and
	// 300; p95 sits at rank 4.75, between 400 and 1000.
	assert.Equal(t, store.Percentiles{P50: ms(250), P95: ms(850)}, got.Total, "total percentiles")
	// Model times 0, 0, 0, 0, 60, 150.
	assert.Equal(t, store.Percentiles{P50: 0, P95: ms(127.5)}, got.Model, "model percentiles")
	assert.Equal(t, []store.NodeLatency{
		// execute_sql 10, 20, 200, 800 (sum 1030): p50 110, p95 at rank 2.85 = 200 + 0.85*600.
		{Node: "execute_sql", Turns: 4, Percentiles: store.Percentiles{P50: ms(110), P95: ms(710)}},
		// generate_sql 40, 80, 120, 160 (sum 400): p50 100, p95 = 120 + 0.85*40.
		{Node: "generate_sql", Turns: 4, Percentiles: store.Percentiles{P50: ms(100), P95: ms(154)}},
	}, got.Nodes, "per node, most time first")
	assert.Equal(t, int64(13), got.ModelCalls, "model calls")
	assert.Equal(t, int64(4100), got.PromptTokens, "prompt tokens")
	assert.Equal(t, int64(180), got.CompletionTokens, "completion tokens")

	var slowest []string
	for _, l := range got.Slowest {
		slowest = append(slowest, l.Question)
	}
	assert.Equal(t, []string{"q1000 timeout", "q400 joke"}, slowest, "slowest, up to the limit")

	require.Len(t, got.Errors, 2, "errors: %+v", got.Errors)
	assert.Equal(t, "query_timeout", got.Errors[0].Kind, "most frequent error")
	assert.Equal(t, 2, got.Errors[0].Turns, "timeouts")
	assert.Equal(t, "q1000 timeout", got.Errors[0].LatestQuestion, "latest timeout")
	assert.True(t, got.Errors[0].LatestAt.Equal(added[4].CreatedAt), "latest at: got %s, want %s", got.Errors[0].LatestAt, added[4].CreatedAt)
	assert.Equal(t, store.ErrorCount{Kind: "unsafe_query", Turns: 1, LatestQuestion: "q50 unsafe", LatestAt: got.Errors[1].LatestAt}, got.Errors[1])

	all, err := db.SummarizeQueryLogs(ctx, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, 7, all.Turns, "a window of zero takes every log")
	assert.True(t, all.From.IsZero(), "unbounded window start: got %s", all.From)
}

func TestSummarizeQueryLogsEmpty(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	got, err := db.SummarizeQueryLogs(context.Background(), time.Hour, 10)
	require.NoError(t, err)
	assert.Zero(t, got.Turns, "turns")
	assert.Empty(t, got.ByIntent, "by intent")
	assert.Empty(t, got.Nodes, "nodes")
	assert.Empty(t, got.Slowest, "slowest")
	assert.Empty(t, got.Errors, "errors")
	assert.Equal(t, store.Percentiles{}, got.Total, "no turns: zero percentiles, not an error")
}

func TestQueryLogsWithoutTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	_, err := db.Pool().Exec(ctx, `DROP TABLE chat_query_logs CASCADE`)
	require.NoError(t, err)

	_, err = db.AddQueryLog(ctx, store.QueryLog{Question: "q"})
	assert.ErrorIs(t, err, store.ErrNoQueryLogs, "add")
	_, err = db.SummarizeQueryLogs(ctx, time.Hour, 10)
	assert.ErrorIs(t, err, store.ErrNoQueryLogs, "summarize")
	assert.Contains(t, err.Error(), "analyticsbot migrate", "the error says what to do")
}
