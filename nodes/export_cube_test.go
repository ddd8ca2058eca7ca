package nodes

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
)

// numbersCube is a Cube model of 10,001 rows.
const numbersCube = `cubes:
  - name: Numbers
    sql_table: shop.numbers
    measures:
      - name: count
        type: count
    dimensions:
      - name: n
        sql: n
        type: number
        primary_key: true
        public: true
`

// docs/cube.md: a Cube whose CUBEJS_DB_QUERY_LIMIT (here 30) is below the
// rows an export asks for gives the rows it allows, and Export CSV says
// how many it wrote of how many the query has, as Cube counted them,
// thousands separated; a CSV schedule of the query says it in the same
// words (docs/schedules.md).
func TestExportCSVWithinCubeQueryLimit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA shop;
		CREATE TABLE shop.numbers AS SELECT n FROM generate_series(1, 10001) n`)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "numbers.yml"), []byte(numbersCube), 0o600))
	srv := cubetest.Start(t, url, cubetest.WithModelDir(dir), cubetest.WithEnv("CUBEJS_DB_QUERY_LIMIT", "30"))
	client, err := cube.New(cube.Config{APIURL: srv.URL, Secret: srv.Secret})
	require.NoError(t, err)

	n, model := newNodes(t, nil)
	n.Warehouse = cubewarehouse.New(client, cubewarehouse.Config{})
	n.MaxRows = 3
	thread := threadID(t)
	q := warehouse.Query{Backend: cubewarehouse.Name, Text: `{"dimensions": ["Numbers.n"], "order": {"Numbers.n": "asc"}}`}
	ask := State{UserQuery: "list the numbers", Query: q, ThreadTS: thread}
	require.NoError(t, n.ValidateQuery(ctx, &ask))
	require.NoError(t, n.ExecuteQuery(ctx, &ask))
	require.Empty(t, ask.ErrorKind, ask.ErrorDetail)
	require.True(t, ask.Result.Truncated, "the answer shows 3 rows of more")

	s := State{UserQuery: "[button] export_csv", ThreadTS: thread, Intent: IntentExportCSV, ReferencedQueryID: ask.QueryID}
	require.NoError(t, n.ExportCSV(ctx, &s))
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	t.Cleanup(s.RemoveCSVFile)
	assert.Equal(t, 30, s.CSVRows, "rows exported")
	assert.Equal(t, "Here is the CSV of “list the numbers”: 30 rows. The export was limited to 30 of the query's 10,001 rows.", s.ResponseText)

	sch := store.Schedule{Question: "list the numbers", Query: q, Format: "csv", Spec: "0 9 * * *", TimeZone: "UTC"}
	run := State{Intent: IntentScheduledRun, ThreadTS: thread, Scheduled: &ScheduledRun{Schedule: sch, Due: fixedNow}}
	require.NoError(t, n.RunSchedule(ctx, &run))
	require.Empty(t, run.ErrorKind, run.ErrorDetail)
	t.Cleanup(run.RemoveCSVFile)
	require.NoError(t, n.FormatAnswer(ctx, &run))
	assert.Equal(t, 30, run.CSVRows, "rows the run attached")
	assert.Equal(t, "📅 list the numbers (every day at 09:00)\nHere are the first 3 rows. The export was limited to 30 of the query's 10,001 rows.",
		run.ResponseText, "the run's message says how many of how many, as Export CSV does")
	assert.Empty(t, model.Calls(), "no model call")
}
