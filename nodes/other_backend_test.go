package nodes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// cubeSQL is a stored query said to be written for Cube whose text
// PostgreSQL would run: only the backend it names keeps it from running.
const (
	cubeSQL = "SELECT 'ran on postgres' AS source"
	cubeID  = "c0be0001"
)

// A stored query written for another backend than the bot answers from
// (BACKEND changed since the answer) is refused, not run
// (docs/workflow.md, export_csv and show_sql): Export CSV says the data
// source changed and runs nothing, whether the cache lost the result or
// holds a cut one; Show SQL shows the query as it was stored.
func TestStoredQueryOfAnotherBackend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cube := warehouse.Query{Backend: "cube", Text: cubeSQL}
	addCubeTurn := func(t *testing.T, thread string) {
		_, err := requireDB(t).AddTurn(ctx, store.Turn{ThreadID: thread, UserID: "U1", ChannelID: "C1", UserMessage: valveQuestion,
			BotResponse: "an answer", Intent: string(IntentAnalytics), Query: cube, QueryID: cubeID})
		require.NoError(t, err, "add turn")
	}
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, n *Nodes, thread string)
	}{
		{name: "the result is no longer cached", setup: func(t *testing.T, _ *Nodes, thread string) { addCubeTurn(t, thread) }},
		{name: "the cached result was cut", setup: func(t *testing.T, n *Nodes, thread string) {
			addCubeTurn(t, thread)
			res := oneCell("from the cache")
			res.Truncated = true
			require.NoError(t, n.Cache.Put(ctx, store.CachedResult{ThreadID: thread, QueryID: cubeID, Query: cube, Question: valveQuestion, Result: res}))
		}},
	} {
		t.Run("export: "+tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, nil)
			thread := threadID(t)
			tt.setup(t, n, thread)

			s := State{UserQuery: "[button] export_csv", UserID: "U1", ThreadTS: thread, Intent: IntentExportCSV, ReferencedQueryID: cubeID}
			require.NoError(t, n.ExportCSV(ctx, &s))
			assert.Empty(t, model.Calls(), "model calls")
			assert.Equal(t, ErrInvalidQuery, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			assert.Contains(t, s.ErrorDetail, `written for the "cube" backend; this bot answers from "postgres"`)
			assert.Zero(t, s.DBTime, "the database ran nothing")
			assert.Empty(t, s.CSVContent, "no CSV")
			assert.Empty(t, s.CSVFile, "no CSV file")
			assert.Empty(t, s.Result.Rows, "no rows")

			require.NoError(t, n.HandleError(ctx, &s))
			seen := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
			assert.Contains(t, seen, "The query behind that answer was written for another data source than the one I answer from now",
				"what the user sees")
			assert.NotContains(t, seen, "tables may have changed", "the tables are not what changed")
		})
	}

	t.Run("show SQL", func(t *testing.T) {
		t.Parallel()
		n, _ := newNodes(t, nil)
		thread := threadID(t)
		addCubeTurn(t, thread)

		s := State{UserQuery: "[button] show_sql", UserID: "U1", ThreadTS: thread, Intent: IntentShowSQL, ReferencedQueryID: cubeID}
		require.NoError(t, n.ShowSQL(ctx, &s))
		require.Empty(t, s.ErrorKind, "error detail %q", s.ErrorDetail)
		assert.Zero(t, s.DBTime, "the database ran nothing")
		shown := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
		assert.Contains(t, shown, "*Query for:* "+valveQuestion, "not called SQL: the backend was not asked to lay it out")
		assert.Contains(t, shown, cubeSQL, "the query as it was stored")
	})

	// Under an access file nothing can check the stored text against the
	// presser's policy (the current backend's guard does not read Cube's
	// queries), so Show SQL and Explain refuse it, saying why.
	t.Run("show SQL and explain under an access policy", func(t *testing.T) {
		t.Parallel()
		n, _ := newNodes(t, nil)
		thread := threadID(t)
		addCubeTurn(t, thread)
		pctx := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "U1", Access: everything{}})
		for _, tt := range []struct {
			intent Intent
			run    func(context.Context, *State) error
		}{{IntentShowSQL, n.ShowSQL}, {IntentExplain, n.Explain}} {
			s := State{UserQuery: "[button] " + string(tt.intent), UserID: "U1", ThreadTS: thread, Intent: tt.intent, ReferencedQueryID: cubeID}
			require.NoError(t, tt.run(pctx, &s))
			assert.Equal(t, ErrInvalidQuery, s.ErrorKind, "%s: error kind (detail %q)", tt.intent, s.ErrorDetail)
			require.NoError(t, n.HandleError(pctx, &s))
			seen := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
			assert.NotContains(t, seen, cubeSQL, "%s: the stored query", tt.intent)
			assert.Contains(t, seen, "was written for another data source than the one I answer from now, so I can't check that you may see it", "%s: what the user sees", tt.intent)
		}
	})
}
