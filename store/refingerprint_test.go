package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// formExamples adds examples of backend postgres with the fingerprints
// and forms given, and returns them.
func formExamples(t *testing.T, db *store.DB, rows ...[4]string) []store.Example {
	t.Helper()
	var out []store.Example
	for _, r := range rows { // question, query, fingerprint, form
		e := example(r[0], r[1], store.StatusVerified)
		e.Fingerprint, e.FingerprintForm = r[2], r[3]
		got, added, err := db.AddExample(context.Background(), e)
		require.NoError(t, err)
		require.True(t, added, r[0])
		out = append(out, got)
	}
	return out
}

// rowVersions are the examples' row versions (xmin, ctid): an UPDATE of a
// row, even one writing the same values, gives it a new one.
func rowVersions(t *testing.T, db *store.DB) map[int64]string {
	t.Helper()
	rows, err := db.Pool().Query(context.Background(), `SELECT id, xmin::text || ctid::text FROM examples`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var v string
		require.NoError(t, rows.Scan(&id, &v))
		out[id] = v
	}
	require.NoError(t, rows.Err())
	return out
}

// A serving bot's pass (RefingerprintEarlier, at pg-2) brings forward the
// examples of no form or of an earlier one (pg-1, pg-0), as a replica of
// an earlier version adds them during a rolling upgrade; it leaves those of
// a later form (a newer replica's: taking them back would undo its work at
// each pass), of another name (pgx-1) and of a form not numbered. When every example is of today's
// form, it writes no row and fingerprints no query.
func TestRefingerprintEarlier(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	es := formExamples(t, db,
		[4]string{"How many games?", "SELECT count(*) FROM games", "v2-SELECT count(*) FROM games", "pg-2"},
		[4]string{"How many apps?", "SELECT count(*) FROM apps", "v1-SELECT count(*) FROM apps", "pg-1"},
		[4]string{"How many users?", "SELECT count(*) FROM users", "v1-SELECT count(*) FROM users", ""},
		[4]string{"How many sales?", "SELECT count(*) FROM sales", "v0-SELECT count(*) FROM sales", "pg-0"},
		[4]string{"How many tags?", "SELECT count(*) FROM tags", "v3-SELECT count(*) FROM tags", "pg-3"},
		[4]string{"How many devs?", "SELECT count(*) FROM devs", "x-SELECT count(*) FROM devs", "custom"},
		[4]string{"How many bundles?", "SELECT count(*) FROM bundles", "o-SELECT count(*) FROM bundles", "pgx-1"},
	)
	calls := 0
	v2 := func(query string) (string, error) {
		calls++
		return "v2-" + query, nil
	}

	n, err := db.RefingerprintEarlier(ctx, "postgres", "pg-2", v2)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "pg-1's and pg-0's fingerprints changed, and the unknown form's")
	assert.Equal(t, 3, calls, "only the examples of an earlier form or none")
	want := map[int64][2]string{
		es[0].ID: {"v2-SELECT count(*) FROM games", "pg-2"},
		es[1].ID: {"v2-SELECT count(*) FROM apps", "pg-2"},
		es[2].ID: {"v2-SELECT count(*) FROM users", "pg-2"},
		es[3].ID: {"v2-SELECT count(*) FROM sales", "pg-2"},
		es[4].ID: {"v3-SELECT count(*) FROM tags", "pg-3"},
		es[5].ID: {"x-SELECT count(*) FROM devs", "custom"},
		es[6].ID: {"o-SELECT count(*) FROM bundles", "pgx-1"},
	}
	for id, w := range want {
		got, err := db.Example(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, w, [2]string{got.Fingerprint, got.FingerprintForm}, got.Question)
	}

	calls = 0
	before := rowVersions(t, db)
	n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-2", v2)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, calls, "no query fingerprinted again")
	assert.Equal(t, before, rowVersions(t, db), "no row written")

	// An example of an earlier form, and the same question and query added
	// under today's fingerprint before a pass (a 👍 on a new replica):
	// both are kept, the question stored twice; the earlier one keeps its
	// fingerprint and form, and each pass reads it again, writing nothing.
	twice := formExamples(t, db,
		[4]string{"How many genres?", "SELECT count(*) FROM genres", "v1-SELECT count(*) FROM genres", "pg-1"},
		[4]string{"How many genres?", "select count(*) from genres", "v2-SELECT count(*) FROM genres", "pg-2"},
	)
	v2same := func(query string) (string, error) {
		calls++
		return "v2-" + strings.ToUpper(query[:6]) + query[6:], nil
	}
	for range 2 {
		calls = 0
		before = rowVersions(t, db)
		n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-2", v2same)
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, 1, calls, "the earlier one is read again")
		assert.Equal(t, before, rowVersions(t, db), "and not written")
	}
	got, err := db.Example(ctx, twice[0].ID)
	require.NoError(t, err)
	assert.Equal(t, [2]string{"v1-SELECT count(*) FROM genres", "pg-1"}, [2]string{got.Fingerprint, got.FingerprintForm})

	// A form not numbered has no earlier one: only unknown forms are
	// taken.
	formExamples(t, db, [4]string{"How many reviews?", "SELECT count(*) FROM reviews", "v1-SELECT count(*) FROM reviews", ""})
	n, err = db.RefingerprintEarlier(ctx, "postgres", "custom", func(q string) (string, error) { return "x-" + q, nil })
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the unknown form's example alone")
}

func TestFormNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		form, name string
		number     int
		ok         bool
	}{
		{form: "pg-1", name: "pg", number: 1, ok: true},
		{form: "cube-12", name: "cube", number: 12, ok: true},
		{form: "my-pg-3", name: "my-pg", number: 3, ok: true},
		{form: "v2"},
		{form: "pg-"},
		{form: "-1"},
		{form: "pg-1234567890"},
	} {
		name, number, ok := store.FormNumber(tc.form)
		assert.Equal(t, tc.ok, ok, tc.form)
		assert.Equal(t, tc.name, name, tc.form)
		assert.Equal(t, tc.number, number, tc.form)
	}
}

// Two replicas' passes at once (their reads done, their UPDATEs waiting on
// the same rows) bring each example to the form once: neither fails, the
// second writes none of the rows the first wrote, and their counts add up
// to the fingerprints that changed, so the log says what happened.
func TestRefingerprintConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	es := formExamples(t, db,
		[4]string{"How many games?", "SELECT count(*) FROM games", "v1-SELECT count(*) FROM games", "pg-1"},
		[4]string{"How many apps?", "SELECT count(*) FROM apps", "v1-SELECT count(*) FROM apps", ""},
		[4]string{"How many users?", "SELECT count(*) FROM users", "v2-SELECT count(*) FROM users", ""},
	)
	v2 := func(query string) (string, error) { return "v2-" + query, nil }
	for _, pass := range []struct {
		name string
		run  func(context.Context, string, string, func(string) (string, error)) (int, error)
	}{
		{"at start", db.Refingerprint},
		{"while serving", db.RefingerprintEarlier},
	} {
		_, err := db.Pool().Exec(ctx, `UPDATE examples SET fingerprint = 'v1-' || query,
			fingerprint_form = CASE WHEN id = $1 THEN 'pg-1' END WHERE id <> $2`, es[0].ID, es[2].ID)
		require.NoError(t, err)
		_, err = db.Pool().Exec(ctx, `UPDATE examples SET fingerprint_form = NULL WHERE id = $1`, es[2].ID)
		require.NoError(t, err)

		// A third transaction holds the rows, so both passes read them
		// and then wait on them with their UPDATEs.
		tx, err := db.Pool().Begin(ctx)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, `SELECT 1 FROM examples FOR UPDATE`)
		require.NoError(t, err)
		var wg sync.WaitGroup
		counts, errs := make([]int, 2), make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], errs[i] = pass.run(ctx, "postgres", "pg-2", v2)
			}()
		}
		require.Eventually(t, func() bool {
			var waiting int
			err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH updated AS (UPDATE examples%'`).Scan(&waiting)
			return err == nil && waiting == 2
		}, time.Minute, 10*time.Millisecond, "%s: both passes wait on the rows", pass.name)
		require.NoError(t, tx.Rollback(ctx))
		wg.Wait()

		require.NoError(t, errs[0], pass.name)
		require.NoError(t, errs[1], pass.name)
		assert.Equal(t, 2, counts[0]+counts[1], "%s: the fingerprints of games and apps changed, once", pass.name)
		for _, e := range es {
			got, err := db.Example(ctx, e.ID)
			require.NoError(t, err)
			assert.Equal(t, [2]string{"v2-" + e.Query, "pg-2"}, [2]string{got.Fingerprint, got.FingerprintForm}, "%s: %s", pass.name, e.Question)
		}
	}
}
