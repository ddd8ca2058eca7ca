package store_test

import (
	"context"
	"fmt"
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

// When the backend's fingerprint changes form, the stored examples take
// the new one and are found by it; an example of another backend, one
// whose query no longer fingerprints and one whose new fingerprint the
// same question has already are left as they are.
func TestRefingerprint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	add := func(e store.Example) store.Example {
		t.Helper()
		out, added, err := db.AddExample(ctx, e)
		require.NoError(t, err)
		require.True(t, added)
		return out
	}
	games := add(example("How many games?", "SELECT count(*) FROM games", store.StatusVerified))
	broken := add(example("Broken?", "SELECT broken", store.StatusVerified))
	kept := add(example("How many games?", "SELECT count(*) FROM games -- again", store.StatusVerified))
	cube := example("How many games?", "SELECT count(*) FROM games", store.StatusVerified)
	cube.Backend = "cube"
	cube = add(cube)
	newForm := func(query string) (string, error) {
		switch query {
		case "SELECT broken":
			return "", fmt.Errorf("does not parse")
		case "SELECT count(*) FROM games -- again":
			return "v2-SELECT count(*) FROM games", nil
		}
		return "v2-" + query, nil
	}

	n, err := db.RefingerprintEarlier(ctx, "postgres", "pg-2", newForm)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	got, ok, err := db.VerifiedExample(ctx, "postgres", "v2-SELECT count(*) FROM games")
	require.NoError(t, err)
	require.True(t, ok, "found by the new fingerprint")
	assert.Equal(t, games.ID, got.ID)
	assert.Equal(t, "pg-2", got.FingerprintForm)
	for _, e := range []store.Example{broken, kept, cube} {
		again, err := db.Example(ctx, e.ID)
		require.NoError(t, err)
		assert.Equal(t, e.Fingerprint, again.Fingerprint, "%s %s", e.Backend, e.Query)
		assert.Empty(t, again.FingerprintForm, "%s %s: still to be brought to the new form", e.Backend, e.Query)
	}
	_, added, err := db.AddExample(ctx, store.Example{Backend: "postgres", Question: "how many games?", Query: "select count(*) from games",
		Fingerprint: "v2-SELECT count(*) FROM games", Source: store.SourceFile, Status: store.StatusVerified, ProposedBy: "file"})
	require.NoError(t, err)
	assert.False(t, added, "the same example is not stored again under its new fingerprint")

	n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-2", newForm)
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to change")

	_, err = db.RefingerprintEarlier(ctx, "postgres", "", newForm)
	assert.Error(t, err, "a backend that names no form")
}

// Stored examples carry their fingerprint's form: a start whose backend
// has the same form reads none of them; one with a new form brings every
// example to it; an example added without a form (by a replica of a
// version before forms, during a rolling upgrade) or of an earlier form is
// brought to the form at the next start, alone. A start of the earlier
// version again (a desktop mcp lagging the servers) reads none of the
// later form's examples and writes none: they never go back.
func TestRefingerprintByForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	calls := 0
	form := func(prefix string) func(string) (string, error) {
		return func(query string) (string, error) {
			calls++
			return prefix + query, nil
		}
	}
	add := func(question, query, fp, form string) store.Example {
		t.Helper()
		e := example(question, query, store.StatusVerified)
		e.Fingerprint, e.FingerprintForm = fp, form
		out, added, err := db.AddExample(ctx, e)
		require.NoError(t, err)
		require.True(t, added)
		return out
	}
	games := add("How many games?", "SELECT count(*) FROM games", "v1-SELECT count(*) FROM games", "pg-1")
	apps := add("How many apps?", "SELECT count(*) FROM apps", "v1-SELECT count(*) FROM apps", "pg-1")
	assert.Equal(t, "pg-1", games.FingerprintForm)
	fingerprints := func() map[int64][2]string {
		t.Helper()
		es, err := db.ListExamples(ctx, store.ExampleFilter{Backend: "postgres"})
		require.NoError(t, err)
		out := map[int64][2]string{}
		for _, e := range es {
			out[e.ID] = [2]string{e.Fingerprint, e.FingerprintForm}
		}
		return out
	}

	before := fingerprints()
	n, err := db.RefingerprintEarlier(ctx, "postgres", "pg-1", form("v1-"))
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, calls, "no example of the backend's form is fingerprinted again")
	assert.Equal(t, before, fingerprints())

	// A replica of a version before forms adds an example (no form), one
	// of an earlier form another.
	unknown := add("How many users?", "SELECT count(*) FROM users", "v1-SELECT count(*) FROM users", "")
	assert.Empty(t, unknown.FingerprintForm)
	earlier := add("How many sales?", "SELECT count(*) FROM sales", "v0-SELECT count(*) FROM sales", "pg-0")
	n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-1", form("v1-"))
	require.NoError(t, err)
	assert.Equal(t, 1, n, "the earlier form's fingerprint changed; the unknown one was right")
	assert.Equal(t, 2, calls, "only the two examples not of the form")
	after := fingerprints()
	assert.Equal(t, [2]string{"v1-SELECT count(*) FROM users", "pg-1"}, after[unknown.ID])
	assert.Equal(t, [2]string{"v1-SELECT count(*) FROM sales", "pg-1"}, after[earlier.ID])
	assert.Equal(t, before[games.ID], after[games.ID])
	assert.Equal(t, before[apps.ID], after[apps.ID])

	calls = 0
	n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-2", form("v2-"))
	require.NoError(t, err)
	assert.Equal(t, 4, n, "a new form: every example")
	assert.Equal(t, 4, calls)
	for id, fp := range fingerprints() {
		assert.Equal(t, "pg-2", fp[1], "example %d", id)
	}
	got, ok, err := db.VerifiedExample(ctx, "postgres", "v2-SELECT count(*) FROM games")
	require.NoError(t, err)
	require.True(t, ok, "found by the new form's fingerprint")
	assert.Equal(t, games.ID, got.ID)

	calls = 0
	n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-2", form("v2-"))
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, calls, "the next start reads none")

	rows := storetest.ExampleRowVersions(t, db)
	n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-1", form("v1-"))
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, calls, "a start of the earlier version reads none")
	assert.Equal(t, rows, storetest.ExampleRowVersions(t, db), "and writes none")
	for id, fp := range fingerprints() {
		assert.Equal(t, "pg-2", fp[1], "example %d", id)
	}
}

// A start or a serving bot's pass (RefingerprintEarlier, at pg-2) brings
// forward the examples of no form or of an earlier one (pg-1, pg-0), as a
// replica of an earlier version adds them during a rolling upgrade; it
// leaves those of a later form (a newer version's: taking them back would
// undo its work each time), of another name (pgx-1) and of a form not
// numbered. When every example is of today's form, it writes no row and
// fingerprints no query.
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
	before := storetest.ExampleRowVersions(t, db)
	n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-2", v2)
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, calls, "no query fingerprinted again")
	assert.Equal(t, before, storetest.ExampleRowVersions(t, db), "no row written")

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
		before = storetest.ExampleRowVersions(t, db)
		n, err = db.RefingerprintEarlier(ctx, "postgres", "pg-2", v2same)
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, 1, calls, "the earlier one is read again")
		assert.Equal(t, before, storetest.ExampleRowVersions(t, db), "and not written")
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

// Two replicas' passes (or starts) at once (their reads done, their
// UPDATEs waiting on the same rows) bring each example to the form once:
// neither fails, the second writes none of the rows the first wrote, and
// their counts add up to the fingerprints that changed, so the log says
// what happened.
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
	// A third transaction holds the rows, so both passes read them and
	// then wait on them with their UPDATEs.
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
			counts[i], errs[i] = db.RefingerprintEarlier(ctx, "postgres", "pg-2", v2)
		}()
	}
	require.Eventually(t, func() bool {
		var waiting int
		err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'WITH updated AS (UPDATE examples%'`).Scan(&waiting)
		return err == nil && waiting == 2
	}, time.Minute, 10*time.Millisecond, "both passes wait on the rows")
	require.NoError(t, tx.Rollback(ctx))
	wg.Wait()

	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, 2, counts[0]+counts[1], "the fingerprints of games and apps changed, once")
	for _, e := range es {
		got, err := db.Example(ctx, e.ID)
		require.NoError(t, err)
		assert.Equal(t, [2]string{"v2-" + e.Query, "pg-2"}, [2]string{got.Fingerprint, got.FingerprintForm}, e.Question)
	}
}
