package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/migrations"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

const (
	webThreadA = "web-0123456789abcdef0123456789abcdef"
	webThreadB = "web-fedcba9876543210fedcba9876543210"
	webThreadC = "web-00000000000000000000000000000001"
)

// A thread's owner is recorded once; an id is never given twice, and an
// unrecorded one has no owner.
func TestThreadOwner(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	require.NoError(t, db.AddThread(ctx, webThreadA, "token:ana"))
	owner, err := db.ThreadOwner(ctx, webThreadA)
	require.NoError(t, err)
	assert.Equal(t, "token:ana", owner)

	assert.Error(t, db.AddThread(ctx, webThreadA, "web"), "an id is issued once")
	owner, err = db.ThreadOwner(ctx, webThreadA)
	require.NoError(t, err)
	assert.Equal(t, "token:ana", owner, "the first owner stays")

	_, err = db.ThreadOwner(ctx, webThreadB)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

// Migration 00019 gives existing web threads to whoever asked first in
// them, and threads only a schedule posts to, to its owner; Slack's and
// the terminal's threads get no owner.
func TestMigrationThreadOwners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	sqlDB := stdlib.OpenDBFromPool(db.Pool())
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, migrations.FS)
	require.NoError(t, err)
	_, err = provider.DownTo(ctx, 18)
	require.NoError(t, err, "down to 18")

	_, err = db.Pool().Exec(ctx, `
		INSERT INTO conversation_turns (thread_id, user_id, channel_id, user_message, created_at) VALUES
			($1, 'token:ana', 'web', 'first', now() - interval '2 minutes'),
			($1, 'web', 'web', 'someone else, later', now() - interval '1 minute'),
			('C1:1700000000.000100', 'U1', 'C1', 'a Slack thread', now()),
			('local-0a1b2c3d4e5f', 'terminal', 'terminal', 'the terminal', now())`, webThreadA)
	require.NoError(t, err)
	// The schedules table as migration 18 made it: the code's own
	// AddSchedule writes the columns of later migrations.
	_, err = db.Pool().Exec(ctx, `
		INSERT INTO schedules (id, state, owner_id, surface, source_thread, source_channel, backend, query, query_id,
			question, spec, time_zone, dest_kind, dest_channel, dest_thread, format)
		VALUES ('s-zed', 'pending', 'token:zed', 'web', $1, 'web', 'postgres', 'SELECT 1', '', 'How many?', '0 9 * * 1',
			'UTC', 'thread', 'web', $1, 'csv')`, webThreadB)
	require.NoError(t, err)
	require.NoError(t, db.Migrate(ctx), "up")

	owners := map[string]string{}
	rows, err := db.Pool().Query(ctx, `SELECT id, owner_id FROM threads`)
	require.NoError(t, err)
	for rows.Next() {
		var id, owner string
		require.NoError(t, rows.Scan(&id, &owner))
		owners[id] = owner
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, map[string]string{webThreadA: "token:ana", webThreadB: "token:zed"}, owners)

	_, err = provider.DownTo(ctx, 18)
	require.NoError(t, err, "down again")
	require.NoError(t, db.Migrate(ctx), "up again")
}

// Retention forgets the owner of an old thread once it has no turn left
// and no schedule; a thread with turns or a schedule, or a fresh one, keeps
// its owner.
func TestThreadRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	const (
		fresh   = "web-0000000000000000000000000000000f"
		emptied = "web-0000000000000000000000000000000e"
	)
	for _, id := range []string{webThreadA, webThreadB, webThreadC, fresh, emptied} {
		require.NoError(t, db.AddThread(ctx, id, "web"))
	}
	_, err := db.Pool().Exec(ctx, `UPDATE threads SET created_at = now() - interval '100 days' WHERE id <> $1`, fresh)
	require.NoError(t, err)
	_, err = db.Pool().Exec(ctx, `
		INSERT INTO conversation_turns (thread_id, user_id, created_at) VALUES
			($1, 'web', now() - interval '1 day'),
			($2, 'web', now() - interval '95 days')`, webThreadA, emptied)
	require.NoError(t, err)
	_, err = db.AddSchedule(ctx, store.Schedule{OwnerID: "web", Surface: "web", SourceThread: webThreadB, SourceChannel: "web",
		Query: warehouse.Query{Backend: "postgres", Text: "SELECT 1"}, Question: "How many?", Spec: "0 9 * * 1",
		TimeZone: "UTC", DestKind: "thread", DestChannel: "web", DestThread: webThreadB, Format: "csv"})
	require.NoError(t, err)

	n, err := db.ApplyRetention(ctx, store.RetentionPolicy{})
	require.NoError(t, err)
	assert.EqualValues(t, 2, n.Threads, "the thread never written in and the one retention emptied")
	for id, want := range map[string]bool{webThreadA: true, webThreadB: true, fresh: true, webThreadC: false, emptied: false} {
		_, err := db.ThreadOwner(ctx, id)
		if want {
			assert.NoError(t, err, "%s keeps its owner", id)
		} else {
			assert.ErrorIs(t, err, store.ErrNotFound, "%s is forgotten", id)
		}
	}
}

// A Slack thread the bot is asked in is known from the moment the question
// is taken, before any turn is saved, and its first question is pending
// until a turn is; a second question in it is not the first. Retention
// forgets it as it forgets turns.
func TestAskedIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	const (
		asked  = "C1:1700000000.000100"
		never  = "C1:1700000000.000999"
		stale  = "C1:1600000000.000100"
		within = time.Minute
	)
	first, err := db.AskedIn(ctx, asked, "U1")
	require.NoError(t, err)
	assert.True(t, first, "the thread's first question")
	first, err = db.AskedIn(ctx, asked, "U2")
	require.NoError(t, err)
	assert.False(t, first, "a second question in the thread")

	for id, want := range map[string]bool{asked: true, never: false} {
		got, err := db.HasThread(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, got, "HasThread(%s) before any turn", id)
	}
	pending, err := db.FirstTurnPending(ctx, asked, within)
	require.NoError(t, err)
	assert.True(t, pending, "no turn yet: the first answer is under way")
	pending, err = db.FirstTurnPending(ctx, never, within)
	require.NoError(t, err)
	assert.False(t, pending, "nothing is pending in a thread never asked in")

	addTurns(t, db, store.Turn{ThreadID: asked, UserMessage: "How many games were released in 2018?", Intent: "analytics_query"})
	pending, err = db.FirstTurnPending(ctx, asked, within)
	require.NoError(t, err)
	assert.False(t, pending, "the first turn is saved")

	// A first question whose path saves no turn (a schedule's list) keeps
	// nobody waiting once it is answered.
	const aside = "C1:1700000001.000100"
	_, err = db.AskedIn(ctx, aside, "U1")
	require.NoError(t, err)
	require.NoError(t, db.FirstAnswered(ctx, aside))
	pending, err = db.FirstTurnPending(ctx, aside, within)
	require.NoError(t, err)
	assert.False(t, pending, "the first question was answered without a turn")

	// A question taken long ago whose answer never saved a turn is not
	// waited for, and retention forgets its thread like the turns of old.
	_, err = db.AskedIn(ctx, stale, "U1")
	require.NoError(t, err)
	_, err = db.Pool().Exec(ctx, `UPDATE threads SET created_at = now() - interval '100 days' WHERE id = $1`, stale)
	require.NoError(t, err)
	pending, err = db.FirstTurnPending(ctx, stale, within)
	require.NoError(t, err)
	assert.False(t, pending, "a first question taken longer ago than within is not waited for")
	n, err := db.ApplyRetention(ctx, store.RetentionPolicy{})
	require.NoError(t, err)
	assert.EqualValues(t, 1, n.Threads, "the old thread without turns is forgotten")
	for id, want := range map[string]bool{asked: true, stale: false} {
		got, err := db.HasThread(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, want, got, "HasThread(%s) after retention", id)
	}
}
