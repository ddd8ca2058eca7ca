package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// storedValues returns the values the index keeps for col, each with the
// physical address of its row.
func storedValues(t *testing.T, db *store.DB, col store.ValueColumn) map[string]string {
	t.Helper()
	rows, err := db.Pool().Query(context.Background(), `SELECT value, ctid::text FROM value_index
		WHERE backend = $1 AND schema_name = $2 AND table_name = $3 AND column_name = $4`,
		col.Backend, col.Schema, col.Table, col.Column)
	require.NoError(t, err)
	out := map[string]string{}
	for rows.Next() {
		var v, ctid string
		require.NoError(t, rows.Scan(&v, &ctid))
		_, dup := out[v]
		require.False(t, dup, "%q is stored twice", v)
		out[v] = ctid
	}
	require.NoError(t, rows.Err())
	return out
}

// A refresh writes only what changed: values gone are deleted, new ones
// added, and the others stay where they are, so the table and its trigram
// index do not churn at every refresh.
func TestReplaceValuesWritesOnlyChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	require.NoError(t, db.PrepareValueIndex(ctx), "migrate installs pg_trgm")
	col := store.ValueColumn{Backend: "postgres", Schema: "shop", Table: "stores", Column: "city"}
	other := store.ValueColumn{Backend: "postgres", Schema: "shop", Table: "customers", Column: "city"}
	require.NoError(t, db.ReplaceValues(ctx, other, 1, -1, []string{"Lyon"}))
	require.NoError(t, db.ReplaceValues(ctx, col, 3, -1, []string{"Lyon", "Paris", "Nice"}))
	first := storedValues(t, db, col)
	assert.Len(t, first, 3)

	require.NoError(t, db.ReplaceValues(ctx, col, 4, -1, []string{"Paris", "Nice", "Lille", "Lille\x00"}))
	second := storedValues(t, db, col)
	assert.ElementsMatch(t, []string{"Paris", "Nice", "Lille"}, keys(second), "the text cleaned, each value once")
	assert.Equal(t, first["Paris"], second["Paris"], "an unchanged value is not rewritten")
	assert.Equal(t, first["Nice"], second["Nice"])
	assert.Equal(t, []string{"Lyon"}, keys(storedValues(t, db, other)), "another column keeps its values")

	// Too many values: the column is counted, its values dropped.
	require.NoError(t, db.ReplaceValues(ctx, col, 60_000, -1, nil))
	assert.Empty(t, storedValues(t, db, col))
	st, err := db.ValueIndexStats(ctx, "postgres")
	require.NoError(t, err)
	assert.Equal(t, 2, st.Columns)
	assert.Equal(t, 1, st.Indexed)
	assert.Equal(t, 1, st.Values)
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestProcessesStartingAtOnceCreateTheTrigramIndexes prepares the examples'
// and the value index's trigram indexes from two processes at the same
// moment, as replicas starting together do: none fails on the other's
// index (PostgreSQL's "duplicate key value violates unique constraint
// pg_class_relname_nsp_index" without a lock), and both indexes exist.
func TestProcessesStartingAtOnceCreateTheTrigramIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	other, err := store.Open(ctx, url)
	require.NoError(t, err)
	t.Cleanup(other.Close)

	var wg sync.WaitGroup
	for i := range 8 {
		d := []*store.DB{db, other}[i%2]
		wg.Go(func() {
			assert.NoError(t, d.PrepareExamples(ctx), "examples, caller %d", i)
			assert.NoError(t, d.PrepareValueIndex(ctx), "value index, caller %d", i)
		})
	}
	wg.Wait()

	var indexes []string
	err = db.Pool().QueryRow(ctx, `SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes
		WHERE schemaname = $1 AND indexname LIKE '%trgm%'`, db.Schema()).Scan(&indexes)
	require.NoError(t, err)
	assert.Equal(t, []string{"examples_question_trgm_idx", "value_index_trgm_idx"}, indexes)
}
