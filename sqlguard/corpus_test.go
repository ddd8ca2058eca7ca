package sqlguard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// The TPC corpora are legitimate analytics: the guard must accept every
// query, and the accepted text (and Guard's row-limited rewrite of it) must
// really run, which EXPLAIN against the benchmark's schema proves without
// data. These tests and TestDefogCorpus hold README's "zero false
// rejections on the TPC-H, TPC-DS and defog corpora": the corpora are
// under testdata, with their sources and licences.

// guardedRowLimit is the RowLimit the corpus tests pass to Guard.
const guardedRowLimit = 1001

// tpcCorpus describes one TPC corpus under testdata.
type tpcCorpus struct {
	name    string // also the schema the tables live in
	pattern string // query files in testdata/<name>
	tables  []string
}

func TestTPCHCorpus(t *testing.T) {
	t.Parallel()
	runTPCCorpus(t, tpcCorpus{name: "tpch", pattern: "q[0-9][0-9].sql", tables: tpchTables}, 22)
}

func TestTPCDSCorpus(t *testing.T) {
	t.Parallel()
	runTPCCorpus(t, tpcCorpus{name: "tpcds", pattern: "[0-9][0-9].sql", tables: tpcdsTables}, 99)
}

// runTPCCorpus checks, EXPLAINs and guards every query of c in a database
// holding c's schema, and fails on any rejection.
func runTPCCorpus(t *testing.T, c tpcCorpus, want int) {
	dir := filepath.Join("testdata", c.name)
	queries := readCorpusSQL(t, dir, c.pattern)
	require.Len(t, queries, want, "query files in %s", dir)
	conn := tpcDatabase(t, c)

	p := Policy{Schemas: []string{c.name}, Tables: c.tables}
	guardPolicy := p
	guardPolicy.RowLimit = guardedRowLimit
	rejected := map[Class][]string{}
	var explained, guarded int
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			if err := Check(q.sql, p); err != nil {
				class := Class("not_a_rejection")
				if rej := (*Rejection)(nil); errors.As(err, &rej) {
					class = rej.Class
				}
				rejected[class] = append(rejected[class], q.name)
				t.Errorf("false rejection: Check(%s) = %v, want accepted", q.name, err)
			}
			require.NoError(t, indepVerify(q.sql, p.Schemas, p.Tables), "independent verification of %s", q.name)
			if assert.NoError(t, explainIn(t.Context(), conn, c.name, q.sql), "EXPLAIN %s", q.name) {
				explained++
			}
			out, err := Guard(q.sql, guardPolicy)
			if !assert.NoError(t, err, "Guard(%s)", q.name) {
				return
			}
			assert.NoError(t, Check(out, p), "Check of Guard's output for %s:\n%s", q.name, out)
			limit, ok, err := indepTopLimit(out)
			require.NoError(t, err)
			assert.True(t, ok && limit <= guardedRowLimit, "Guard's output for %s has top-level limit %v (bounded %v), want <= %d:\n%s", q.name, limit, ok, guardedRowLimit, out)
			if assert.NoError(t, explainIn(t.Context(), conn, c.name, out), "EXPLAIN of Guard's output for %s:\n%s", q.name, out) {
				guarded++
			}
		})
	}
	t.Logf("%s: %d queries, %d accepted, %d false rejections %s, %d explained, %d guarded and explained",
		c.name, len(queries), len(queries)-countRejected(rejected), countRejected(rejected), formatRejected(rejected), explained, guarded)
}

// tpcDatabase returns a connection to a fresh test database holding c's
// tables, created from testdata/<name>/schema.sql, and checks that the
// schema has exactly the tables the policy lists.
func tpcDatabase(t *testing.T, c tpcCorpus) *pgx.Conn {
	t.Helper()
	ddl, err := os.ReadFile(filepath.Join("testdata", c.name, "schema.sql"))
	require.NoError(t, err)
	_, dbURL := storetest.NewWithURL(t)
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dbURL)
	require.NoError(t, err, "connect to the test database")
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	// Without arguments pgx sends the file through the simple protocol,
	// which runs all its statements.
	_, err = conn.Exec(ctx, string(ddl))
	require.NoError(t, err, "create the %s schema", c.name)

	rows, err := conn.Query(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", c.name)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	sort.Strings(got)
	require.Equal(t, c.tables, got, "tables of schema %s, want the policy's list", c.name)
	return conn
}

// explainIn EXPLAINs sql in a read-only transaction whose search_path is
// schema alone. It uses the extended protocol, which refuses more than one
// statement, so text that smuggles a second statement fails here too.
func explainIn(ctx context.Context, conn *pgx.Conn, schema, sql string) (err error) {
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+pgx.Identifier{schema}.Sanitize()); err != nil {
		return fmt.Errorf("set search_path: %w", err)
	}
	rows, err := tx.Query(ctx, "EXPLAIN "+sql, pgx.QueryExecModeExec)
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	if len(plan) == 0 {
		return errors.New("explain returned no plan")
	}
	return nil
}

func countRejected(byClass map[Class][]string) int {
	n := 0
	for _, names := range byClass {
		n += len(names)
	}
	return n
}

// formatRejected lists rejections by class in a stable order for logs.
func formatRejected(byClass map[Class][]string) string {
	classes := make([]string, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, string(c))
	}
	slices.Sort(classes)
	s := "{"
	for i, c := range classes {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s: %d %v", c, len(byClass[Class(c)]), byClass[Class(c)])
	}
	return s + "}"
}

// defogJustified lists the defog gold queries the guard may reject, with the
// class it must give and why the rejection is right. Any other rejection is
// a false rejection and fails TestDefogCorpus, and so does an entry here the
// guard no longer rejects.
var defogJustified = map[string]struct {
	class Class
	why   string
}{
	// Empty: every defog gold query is accepted. (Row 22, which fills month
	// gaps with generate_series over MIN/MAX of a column, was the last one.)
}

// TestDefogCorpus checks defog sql-eval's gold queries. Their databases are
// not here, so the policy allows any unqualified relation (Tables nil) and
// every schema the corpus names: what is tested is that no legitimate SQL
// feature (function, operator, syntax) is rejected.
func TestDefogCorpus(t *testing.T) {
	t.Parallel()
	var cases []corpusQuery
	var rows, braced, alternatives int
	for _, file := range []string{"instruct_basic_postgres.csv", "instruct_advanced_postgres.csv", "questions_gen_postgres.csv"} {
		f := readDefogCSV(t, filepath.Join("testdata", "defog", file))
		rows += len(f)
		for _, q := range f {
			if strings.Contains(q.sql, "{") {
				braced++
			}
			exp := expandDefogQuery(q.sql)
			if len(exp) > 1 {
				alternatives++
			}
			for i, sql := range exp {
				cases = append(cases, corpusQuery{name: fmt.Sprintf("%s#%d", q.name, i+1), sql: sql})
			}
		}
	}
	require.Equal(t, 314, rows, "defog rows (SOURCE.txt counts 314 question/query pairs)")
	require.Equal(t, 42, braced, "rows with {a, b} alternatives (SOURCE.txt counts 42)")

	p := Policy{Schemas: defogSchemas(t, cases)}
	rejected := map[Class][]string{}
	for _, c := range cases {
		err := Check(c.sql, p)
		just, isJustified := defogJustified[c.name]
		if err == nil {
			assert.NoError(t, indepVerify(c.sql, p.Schemas, nil), "independent verification of accepted %s: %s", c.name, c.sql)
			assert.False(t, isJustified, "%s is accepted now: remove it from defogJustified", c.name)
			continue
		}
		var rej *Rejection
		require.ErrorAs(t, err, &rej, "Check(%s) returned a non-Rejection error", c.name)
		rejected[rej.Class] = append(rejected[rej.Class], c.name)
		switch {
		case !isJustified:
			t.Errorf("guard false rejection of %s: %s: %s\n%s", c.name, rej.Class, rej.Reason, c.sql)
		case just.class != rej.Class:
			t.Errorf("%s rejected as %s (%s), want %s because %s", c.name, rej.Class, rej.Reason, just.class, just.why)
		}
	}
	t.Logf("defog: %d rows (%d with {a, b} columns, %d with alternatives in all), %d queries after expansion, %d accepted, %d rejected %s; schemas %v",
		rows, braced, alternatives, len(cases), len(cases)-countRejected(rejected), countRejected(rejected), formatRejected(rejected), p.Schemas)
}

// readDefogCSV returns the gold queries of one sql-eval CSV, named
// file:record (the header is record 0).
func readDefogCSV(t *testing.T, path string) []corpusQuery {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	records := parseLenientCSV(string(b))
	require.NotEmpty(t, records)
	col := slices.Index(records[0], "query")
	require.GreaterOrEqual(t, col, 0, "%s has no query column", path)
	var out []corpusQuery
	for i, rec := range records[1:] {
		require.Len(t, rec, len(records[0]), "fields of %s record %d", path, i+1)
		out = append(out, corpusQuery{name: fmt.Sprintf("%s:%d", filepath.Base(path), i+1), sql: rec[col]})
	}
	return out
}

// parseLenientCSV reads CSV the way Python's csv module (which wrote and
// reads sql-eval's files) does: text after a closing quote stays in the
// field. One of the questions has such a stray quote, which encoding/csv
// rejects even with LazyQuotes.
func parseLenientCSV(data string) [][]string {
	var records [][]string
	var rec []string
	var field strings.Builder
	quoted, afterQuote := false, false
	endField := func() {
		rec = append(rec, field.String())
		field.Reset()
		quoted, afterQuote = false, false
	}
	for i := 0; i < len(data); i++ {
		ch := data[i]
		switch {
		case quoted && ch == '"' && i+1 < len(data) && data[i+1] == '"':
			field.WriteByte('"')
			i++
		case quoted && ch == '"':
			quoted, afterQuote = false, true
		case quoted:
			field.WriteByte(ch)
		case ch == '"' && field.Len() == 0 && !afterQuote:
			quoted = true
		case ch == ',':
			endField()
		case ch == '\n':
			endField()
			records = append(records, rec)
			rec = nil
		case ch != '\r':
			field.WriteByte(ch)
		}
	}
	if field.Len() > 0 || len(rec) > 0 {
		endField()
		records = append(records, rec)
	}
	return records
}

// expandDefogQuery turns one gold cell into the queries it stands for, the
// way sql-eval reads it: ";" separates equally right queries, and the first
// "{a, b}" stands for every non-empty subset of its columns, with "{}"
// (as in GROUP BY {}) repeating the chosen subset.
func expandDefogQuery(cell string) []string {
	var out []string
	for _, q := range strings.Split(cell, ";") {
		if q = strings.TrimSpace(q); q != "" {
			out = append(out, expandDefogBraces(q)...)
		}
	}
	return out
}

func expandDefogBraces(q string) []string {
	start := strings.Index(q, "{")
	end := strings.Index(q, "}")
	if start < 0 || end < start || end == start+1 {
		return []string{q}
	}
	options := strings.Split(q[start+1:end], ",")
	var out []string
	for mask := 1; mask < 1<<len(options); mask++ {
		var cols []string
		for i, o := range options {
			if mask&(1<<i) != 0 {
				cols = append(cols, strings.TrimSpace(o))
			}
		}
		chosen := strings.Join(cols, ", ")
		rest := strings.ReplaceAll(q[end+1:], "{}", chosen)
		out = append(out, expandDefogBraces(q[:start]+chosen+rest)...)
	}
	return out
}

// defogSchemas returns every schema the cases qualify a relation with,
// found by parsing them independently of the guard.
func defogSchemas(t *testing.T, cases []corpusQuery) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range cases {
		tree, err := pg_query.Parse(c.sql)
		if err != nil {
			continue // Check reports it as a syntax error
		}
		for _, rv := range indepRangeVars(tree) {
			if s := rv.GetSchemaname(); s != "" {
				seen[s] = true
			}
		}
	}
	schemas := make([]string, 0, len(seen))
	for s := range seen {
		schemas = append(schemas, s)
	}
	sort.Strings(schemas)
	return schemas
}
