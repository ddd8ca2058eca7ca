package store_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// planNode is what TestRetentionFindsOldScheduleRunsByIndex reads of an
// EXPLAIN (FORMAT JSON) plan.
type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Plans    []planNode `json:"Plans"`
}

// scans lists the scans of relation in the plan under n: their node type
// and index, if any.
func (n planNode) scans(relation string) [][2]string {
	var out [][2]string
	if n.Relation == relation {
		out = append(out, [2]string{n.NodeType, n.Index})
	}
	for _, p := range n.Plans {
		out = append(out, p.scans(relation)...)
	}
	return out
}

// TestRetentionFindsOldScheduleRunsByIndex: a batch of retention's delete
// of schedule runs finds its rows through an index on finished_at, not by
// reading and sorting the whole table (docs/observability.md: indexes keep
// each batch from scanning the tables). The plan is read with EXPLAIN, on a
// table of 20,000 analyzed runs of which 1% are older than the age.
func TestRetentionFindsOldScheduleRunsByIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	for _, sql := range []string{
		`INSERT INTO schedules (id, state, owner_id, surface, source_thread, source_channel, backend, query, query_id,
			question, spec, time_zone, dest_kind, dest_channel, format)
		 SELECT 's' || i, 'active', 'U1', 'slack', 'T' || i, 'C1', 'postgres', 'SELECT 1', 'q', 'q', '*/5 * * * *',
			'UTC', 'channel', 'C1', 'answer' FROM generate_series(1, 100) i`,
		`INSERT INTO schedule_runs (schedule_id, due_at, attempt, runner, started_at, finished_at, outcome)
		 SELECT 's' || (i % 100 + 1), now() - make_interval(mins => i), 1, 'r', now() - make_interval(mins => i),
			CASE WHEN i % 500 <> 0 THEN now() - make_interval(mins => i) + interval '2 seconds' END,
			CASE WHEN i % 500 <> 0 THEN 'posted' ELSE 'running' END
		 FROM generate_series(1, 20000) i`,
		// 1% of the runs finished a year ago.
		`UPDATE schedule_runs SET finished_at = finished_at - interval '365 days' WHERE id % 100 = 0`,
		`ANALYZE schedule_runs`,
	} {
		_, err := db.Pool().Exec(ctx, sql)
		require.NoError(t, err)
	}
	var plan []struct {
		Plan planNode `json:"Plan"`
	}
	var raw []byte
	err := db.Pool().QueryRow(ctx, `EXPLAIN (FORMAT JSON) `+store.DeleteScheduleRunsSQL,
		(90 * 24 * time.Hour).Seconds(), store.DefaultRetentionBatch).Scan(&raw)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &plan))
	require.Len(t, plan, 1)

	scans := plan[0].Plan.scans("schedule_runs")
	var byFinished bool
	for _, s := range scans {
		if s[1] == "" {
			continue
		}
		var def string
		require.NoError(t, db.Pool().QueryRow(ctx, `SELECT pg_get_indexdef(to_regclass($1))`, s[1]).Scan(&def))
		byFinished = byFinished || s[0] != "Seq Scan" && keyedOn(def, "finished_at")
	}
	if !byFinished {
		t.Errorf("the scans of schedule_runs in a retention batch's plan: %v; want one through an index on finished_at", scans)
	}
}

// keyedOn reports whether the index definition def (pg_get_indexdef) has
// column alone as its key.
func keyedOn(def, column string) bool {
	return strings.Contains(def, "("+column+")")
}
