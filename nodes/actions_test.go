package nodes

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

const (
	valveQuestion = "When were Valve's first games released?"
	valveSQL      = "SELECT app_id, name, release_date FROM analytics.apps WHERE app_id IN (10, 20) ORDER BY app_id"
	valveCSV      = "app_id,name,release_date\n10,Counter-Strike,2000-11-01\n20,Team Fortress Classic,1999-04-01\n"
	priceQuestion = "What is the average price of RPG games?"
	priceSQL      = "SELECT round(avg(a.price), 2) AS avg_price FROM analytics.apps a JOIN analytics.app_genres ag ON ag.app_id = a.app_id JOIN analytics.genres g ON g.genre_id = ag.genre_id WHERE g.name = 'RPG'"
	freeQuestion  = "How many games are free to play?"
	freeSQL       = "SELECT count(*) AS free_games FROM analytics.apps WHERE is_free"
)

// addTurn stores a turn of the test's thread, as SaveTurn would have.
func addTurn(t *testing.T, thread, question, sql string) {
	t.Helper()
	turn := store.Turn{ThreadID: thread, UserID: "U1", ChannelID: "C1", UserMessage: question,
		BotResponse: "an answer", Intent: string(IntentAnalytics), Query: pgQuery(sql)}
	if sql != "" {
		turn.QueryID = pgID(sql)
	}
	_, err := requireDB(t).AddTurn(context.Background(), turn)
	require.NoError(t, err, "add turn")
}

// u1Email is U1's address, which row-level security reads.
const u1Email = "ana@example.com"

// putResult stores a cached result of the test's thread, run for U1, and
// the turn of U1 that asked for it.
func putResult(t *testing.T, n *Nodes, thread, question, sql string, res warehouse.Result) {
	t.Helper()
	putResultFor(t, n, thread, question, sql, res, store.Asker{UserID: "U1", Email: u1Email})
}

// putResultFor is putResult with the rows run for runFor, whoever asked
// (U1).
func putResultFor(t *testing.T, n *Nodes, thread, question, sql string, res warehouse.Result, runFor store.Asker) {
	t.Helper()
	addTurn(t, thread, question, sql)
	err := n.Cache.Put(context.Background(), store.CachedResult{
		ThreadID: thread, QueryID: pgID(sql), Query: pgQuery(sql), Question: question, Result: res, RunFor: runFor})
	require.NoError(t, err, "cache result")
}

// oneCell is a result whose only value says where it came from, so a test
// can tell a cached result from one the SQL produces.
func oneCell(v string) warehouse.Result {
	return warehouse.Result{Columns: []warehouse.Column{{Name: "source", Type: "text"}}, Rows: [][]any{{v}}, RowCount: 1}
}

func TestExportCSV(t *testing.T) {
	t.Parallel()
	requireDB(t)
	t.Cleanup(func() { assertAppsIntact(t) })
	tests := []struct {
		name       string
		setup      func(t *testing.T, n *Nodes, thread string)
		referenced string

		wantKind  ErrorKind
		wantCSV   string
		wantTitle string
		wantFile  string
		wantText  string
		wantRerun bool
		// wantStreamed: the file is run for the presser and streamed,
		// and nothing of it is cached under the query.
		wantStreamed bool
		wantQueryID  string
		wantSQL      string
		wantDetailed string
	}{
		{
			name: "cache hit for the button's query",
			setup: func(t *testing.T, n *Nodes, thread string) {
				putResult(t, n, thread, valveQuestion, valveSQL, oneCell("from the cache"))
				putResult(t, n, thread, freeQuestion, freeSQL, oneCell("newer, not asked for"))
			},
			referenced:  pgID(valveSQL),
			wantCSV:     "source\nfrom the cache\n",
			wantTitle:   valveQuestion,
			wantFile:    "when-were-valve-s-first-games-released-" + pgID(valveSQL) + ".csv",
			wantText:    "Here is the CSV of “" + valveQuestion + "”: 1 row.",
			wantQueryID: pgID(valveSQL),
			wantSQL:     valveSQL,
		},
		{
			// The thread's latest turn of the query is the presser's, but
			// its cached rows ran for someone else (their run of the same
			// SQL stored its rows, and its turn was never kept, or was
			// kept before the presser's): they are never the presser's.
			name: "cache hit run for someone else",
			setup: func(t *testing.T, n *Nodes, thread string) {
				putResultFor(t, n, thread, valveQuestion, valveSQL, oneCell("someone else's rows"), store.Asker{UserID: "U2"})
			},
			referenced:   pgID(valveSQL),
			wantCSV:      valveCSV,
			wantTitle:    valveQuestion,
			wantFile:     "when-were-valve-s-first-games-released-" + pgID(valveSQL) + ".csv",
			wantText:     "Here is the CSV of “" + valveQuestion + "”: 2 rows.",
			wantRerun:    true,
			wantStreamed: true,
			wantQueryID:  pgID(valveSQL),
			wantSQL:      valveSQL,
		},
		{
			// Row-level security reads the signed address: rows run for
			// the presser under an address they no longer have are
			// someone else's.
			name: "cache hit run for the presser under another address",
			setup: func(t *testing.T, n *Nodes, thread string) {
				putResultFor(t, n, thread, valveQuestion, valveSQL, oneCell("rows for the old address"),
					store.Asker{UserID: "U1", Email: "ana@old.example"})
			},
			referenced:   pgID(valveSQL),
			wantCSV:      valveCSV,
			wantTitle:    valveQuestion,
			wantFile:     "when-were-valve-s-first-games-released-" + pgID(valveSQL) + ".csv",
			wantText:     "Here is the CSV of “" + valveQuestion + "”: 2 rows.",
			wantRerun:    true,
			wantStreamed: true,
			wantQueryID:  pgID(valveSQL),
			wantSQL:      valveSQL,
		},
		{
			name: "cache hit for the latest result",
			setup: func(t *testing.T, n *Nodes, thread string) {
				putResult(t, n, thread, valveQuestion, valveSQL, oneCell("older"))
				putResult(t, n, thread, freeQuestion, freeSQL, oneCell("latest"))
			},
			wantCSV:     "source\nlatest\n",
			wantTitle:   freeQuestion,
			wantFile:    "how-many-games-are-free-to-play-" + pgID(freeSQL) + ".csv",
			wantText:    "Here is the CSV of “" + freeQuestion + "”: 1 row.",
			wantQueryID: pgID(freeSQL),
			wantSQL:     freeSQL,
		},
		{
			name: "cache miss re-runs the button's query from the turns",
			setup: func(t *testing.T, n *Nodes, thread string) {
				addTurn(t, thread, valveQuestion, valveSQL)
				addTurn(t, thread, freeQuestion, freeSQL)
			},
			referenced:  pgID(valveSQL),
			wantCSV:     valveCSV,
			wantTitle:   valveQuestion,
			wantFile:    "when-were-valve-s-first-games-released-" + pgID(valveSQL) + ".csv",
			wantText:    "Here is the CSV of “" + valveQuestion + "”: 2 rows.",
			wantRerun:   true,
			wantQueryID: pgID(valveSQL),
			wantSQL:     valveSQL,
		},
		{
			name: "cache miss re-runs the latest query",
			setup: func(t *testing.T, n *Nodes, thread string) {
				addTurn(t, thread, freeQuestion, freeSQL)
				addTurn(t, thread, valveQuestion, valveSQL)
				addTurn(t, thread, "export that", "")
			},
			wantCSV:     valveCSV,
			wantTitle:   valveQuestion,
			wantFile:    "when-were-valve-s-first-games-released-" + pgID(valveSQL) + ".csv",
			wantText:    "Here is the CSV of “" + valveQuestion + "”: 2 rows.",
			wantRerun:   true,
			wantQueryID: pgID(valveSQL),
			wantSQL:     valveSQL,
		},
		{
			name:     "nothing in the thread",
			wantKind: ErrNoPreviousQuery,
		},
		{
			name: "button of a query the thread never ran",
			setup: func(t *testing.T, n *Nodes, thread string) {
				addTurn(t, thread, freeQuestion, freeSQL)
				putResult(t, n, "some-other-thread-"+thread, valveQuestion, valveSQL, oneCell("not yours"))
			},
			referenced: pgID(valveSQL),
			wantKind:   ErrNoPreviousQuery,
		},
		{
			name: "stored SQL that writes is refused",
			setup: func(t *testing.T, n *Nodes, thread string) {
				addTurn(t, thread, "delete everything", "DELETE FROM analytics.apps")
			},
			wantKind:     ErrUnsafeQuery,
			wantDetailed: "write: only SELECT may run",
		},
		{
			name: "stored SQL the schema no longer fits",
			setup: func(t *testing.T, n *Nodes, thread string) {
				addTurn(t, thread, "old question", "SELECT removed_column FROM analytics.apps")
			},
			wantKind:     ErrInvalidQuery,
			wantDetailed: `column "removed_column" does not exist`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			n, model := newNodes(t, nil)
			thread := threadID(t)
			if tt.setup != nil {
				tt.setup(t, n, thread)
			}
			s := State{UserQuery: "[button] export_csv", UserID: "U1", UserEmail: u1Email, ThreadTS: thread, Intent: IntentExportCSV, ReferencedQueryID: tt.referenced}
			require.NoError(t, n.ExportCSV(ctx, &s))
			assert.Empty(t, model.Calls(), "model calls")

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			if tt.wantKind != "" {
				assert.Contains(t, s.ErrorDetail, tt.wantDetailed, "error detail")
				assert.Empty(t, s.CSVContent, "CSV of a failed export")
				assert.Nil(t, s.Reply, "blocks of a failed export: handle_error writes the reply")
				return
			}
			csv, _, err := s.OpenCSV()
			require.NoError(t, err)
			content, err := io.ReadAll(csv)
			require.NoError(t, err)
			_ = csv.Close()
			s.RemoveCSVFile()
			assert.Equal(t, tt.wantCSV, string(content), "CSV")
			assert.Equal(t, tt.wantStreamed, len(s.CSVContent) == 0, "streamed rather than from a result")
			assert.Equal(t, tt.wantTitle, s.CSVTitle, "CSV title")
			assert.Equal(t, tt.wantFile, s.CSVFilename, "CSV file name")
			assert.Equal(t, tt.wantText, s.ResponseText, "notification text")
			assert.Equal(t, FormatSimple, s.ResponseFormat, "response format")
			assert.Contains(t, blockkit.PlainText(blockkit.Reply(s.Reply).Blocks), tt.wantText, "what the user sees")
			assert.Equal(t, tt.wantQueryID, s.QueryID, "query id")
			assert.Equal(t, tt.wantSQL, s.Query.Text, "SQL")
			assert.Equal(t, tt.wantRerun, s.DBTime > 0, "got database time %s; want a re-run: %v", s.DBTime, tt.wantRerun)
			if tt.wantRerun && !tt.wantStreamed { // the re-run result is cached for the next click
				other, err := store.NewCache(requireDB(t), store.CacheLimits{})
				require.NoError(t, err)
				cached, err := other.Get(ctx, thread, tt.wantQueryID)
				require.NoError(t, err, "cached re-run result")
				assert.Equal(t, s.Result.Rows, cached.Result.Rows, "cached rows")
			}
		})
	}
}

func TestExportCSVQuoting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, _ := newNodes(t, nil)
	thread := threadID(t)
	sql := `SELECT 'Half-Life, Episode Two' AS name, 'the "best" one' AS quote, E'line one\nline two' AS notes,` +
		` NULL::text AS missing, 42 AS n, 1.5::float8 AS f, 19.99::numeric AS price, true AS ok`
	s := State{UserQuery: "quote, please", UserID: "U1", ThreadTS: thread, Query: pgQuery(sql), Checked: unchecked(sql)}
	require.NoError(t, n.ExecuteQuery(ctx, &s))
	require.Empty(t, s.ErrorKind, "execute: error detail %q", s.ErrorDetail)

	addTurn(t, thread, "quote, please", sql)
	n.Cache.(*store.Cache).Forget() // read the result back from Postgres
	export := State{UserQuery: "[button] export_csv", UserID: "U1", ThreadTS: thread, Intent: IntentExportCSV, ReferencedQueryID: s.QueryID}
	require.NoError(t, n.ExportCSV(ctx, &export))
	require.Empty(t, export.ErrorKind, "export: error detail %q", export.ErrorDetail)

	want := "name,quote,notes,missing,n,f,price,ok\n" +
		"\"Half-Life, Episode Two\",\"the \"\"best\"\" one\",\"line one\nline two\",,42,1.5,19.99,true\n"
	assert.Equal(t, want, string(export.CSVContent), "CSV")
	assert.Equal(t, "quote-please-"+s.QueryID+".csv", export.CSVFilename, "CSV file name")
}

func TestShowSQL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		setup      func(t *testing.T, n *Nodes, thread string)
		message    string
		referenced string

		wantKind     ErrorKind
		wantSQL      string
		wantQuestion string
	}{
		{
			name:       "the button's query",
			setup:      threeQuestions,
			message:    "[button] show_sql",
			referenced: pgID(valveSQL),
			wantSQL:    valveSQL, wantQuestion: valveQuestion,
		},
		{
			name: "the button's query found in the cache only",
			setup: func(t *testing.T, n *Nodes, thread string) {
				addTurn(t, thread, freeQuestion, freeSQL)
				putResult(t, n, thread, valveQuestion, valveSQL, oneCell("cached"))
			},
			message:    "[button] show_sql",
			referenced: pgID(valveSQL),
			wantSQL:    valveSQL, wantQuestion: valveQuestion,
		},
		{
			name: "the button's query names the resolved question",
			setup: func(t *testing.T, n *Nodes, thread string) {
				addTurn(t, thread, "And for free ones?", freeSQL)
				putResult(t, n, thread, freeQuestion, freeSQL, oneCell("cached"))
			},
			message:    "[button] show_sql",
			referenced: pgID(freeSQL),
			wantSQL:    freeSQL, wantQuestion: freeQuestion,
		},
		{
			name:     "the button's query is not in the thread",
			setup:    threeQuestions,
			message:  "[button] show_sql",
			wantKind: ErrNoPreviousQuery, referenced: "0badc0de",
		},
		{
			name:    "a query named by keyword",
			setup:   threeQuestions,
			message: "show me the SQL for the price query",
			wantSQL: priceSQL, wantQuestion: priceQuestion,
		},
		{
			name:    "keywords that match nothing give the latest",
			setup:   threeQuestions,
			message: "show the SQL for the revenue query",
			wantSQL: freeSQL, wantQuestion: freeQuestion,
		},
		{
			name:    "the latest query",
			setup:   threeQuestions,
			message: "show sql",
			wantSQL: freeSQL, wantQuestion: freeQuestion,
		},
		{
			name:     "nothing in the thread",
			message:  "show sql",
			wantKind: ErrNoPreviousQuery,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, nil)
			thread := threadID(t)
			if tt.setup != nil {
				tt.setup(t, n, thread)
			}
			s := State{UserQuery: tt.message, ThreadTS: thread, Intent: IntentShowSQL, ReferencedQueryID: tt.referenced}
			require.NoError(t, n.ShowSQL(context.Background(), &s))
			assert.Empty(t, model.Calls(), "model calls")

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			if tt.wantKind != "" {
				assert.Nil(t, s.Reply, "blocks of a failed lookup: handle_error writes the reply")
				return
			}
			assert.Equal(t, tt.wantSQL, s.Query.Text, "SQL")
			assert.Equal(t, pgID(tt.wantSQL), s.QueryID, "query id")
			assert.Equal(t, "SQL for: "+tt.wantQuestion, s.ResponseText, "notification text")
			shown := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
			assert.Contains(t, strings.Join(strings.Fields(shown), " "), tt.wantSQL, "what the user sees")
			assert.Contains(t, shown, "\nFROM analytics.apps", "laid out a clause a line")
			assert.Contains(t, shown, "*SQL for:* "+tt.wantQuestion, "what the user sees")
		})
	}
}

// threeQuestions fills a thread with three answered questions; the free
// games one is the latest.
func threeQuestions(t *testing.T, n *Nodes, thread string) {
	addTurn(t, thread, valveQuestion, valveSQL)
	addTurn(t, thread, priceQuestion, priceSQL)
	addTurn(t, thread, "export that", "")
	addTurn(t, thread, freeQuestion, freeSQL)
}

// An answer shows the first MaxRows rows; its export streams all of them
// from the database into a file.
func TestExportCSVStreamsTheFullResult(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, model := newNodes(t, nil)
	n.MaxRows = 3
	thread := threadID(t)
	const sql = "SELECT name FROM analytics.genres ORDER BY name"
	ask := State{UserQuery: "list the genres", Query: pgQuery(sql), ThreadTS: thread}
	require.NoError(t, n.ValidateQuery(ctx, &ask))
	require.NoError(t, n.ExecuteQuery(ctx, &ask))
	require.True(t, ask.Result.Truncated, "the answer shows 3 rows of more")

	var want strings.Builder
	want.WriteString("name\n")
	rows, err := requireDB(t).Pool().Query(ctx, sql)
	require.NoError(t, err)
	total := 0
	for rows.Next() {
		var name string
		require.NoError(t, rows.Scan(&name))
		want.WriteString(name + "\n")
		total++
	}
	require.NoError(t, rows.Err())
	require.Greater(t, total, 3)

	s := State{UserQuery: "[button] export_csv", ThreadTS: thread, Intent: IntentExportCSV, ReferencedQueryID: ask.QueryID}
	require.NoError(t, n.ExportCSV(ctx, &s))
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	require.NotEmpty(t, s.CSVFile, "a full export goes to a file")
	t.Cleanup(s.RemoveCSVFile)
	assert.Equal(t, n.ExportDir, filepath.Dir(s.CSVFile), "the file is in ExportDir")
	r, size, err := s.OpenCSV()
	require.NoError(t, err)
	got, err := io.ReadAll(r)
	require.NoError(t, r.Close())
	require.NoError(t, err)
	assert.Equal(t, want.String(), string(got), "every row, not the 3 the answer showed")
	assert.Equal(t, int64(len(got)), size)
	assert.Equal(t, fmt.Sprintf("Here is the CSV of “list the genres”: %d rows.", total), s.ResponseText)
	assert.Empty(t, model.Calls(), "no model call")

	file := s.CSVFile
	s.RemoveCSVFile()
	_, err = os.Stat(file)
	assert.True(t, os.IsNotExist(err), "RemoveCSVFile deletes the file")

	n.ExportMaxRows = 5
	capped := State{UserQuery: "[button] export_csv", ThreadTS: thread, Intent: IntentExportCSV, ReferencedQueryID: ask.QueryID}
	require.NoError(t, n.ExportCSV(ctx, &capped))
	t.Cleanup(capped.RemoveCSVFile)
	assert.Equal(t, "Here is the CSV of “list the genres”: 5 rows. The export was limited to 5 rows.", capped.ResponseText)

	// EXPORT_MAX_BYTES: the file ends with the last whole row that fits,
	// and says so as a cut by rows does.
	n.ExportMaxRows, n.ExportMaxBytes = 1000, int64(len(strings.Join(strings.SplitAfter(want.String(), "\n")[:4], "")))
	full := State{UserQuery: "[button] export_csv", ThreadTS: thread, Intent: IntentExportCSV, ReferencedQueryID: ask.QueryID}
	require.NoError(t, n.ExportCSV(ctx, &full))
	t.Cleanup(full.RemoveCSVFile)
	r, size, err = full.OpenCSV()
	require.NoError(t, err)
	require.NoError(t, r.Close())
	assert.Equal(t, n.ExportMaxBytes, size, "a header and 3 rows: exactly the limit")
	assert.Equal(t, "Here is the CSV of “list the genres”: 3 rows. The export was limited to 3 rows: the rest did not fit in the file's size limit.", full.ResponseText)
}
