package warehousetest

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Harness is a backend under test with the fixture loaded, and the queries
// the suite needs written in the backend's own language.
type Harness struct {
	// Backend answers from the fixture.
	Backend warehouse.Backend
	// Schema and Table name the fixture's table in the catalog.
	Schema, Table string
	// Column names a fixture column in the catalog ("name", Cube's
	// "Items.name"); nil means the fixture's own names.
	Column func(name string) string
	// All reads id, name, price and active of every item, ordered by id,
	// with no limit of its own.
	All string
	// AllRewritten is All written differently (spacing, case, key order):
	// the same query, so the same fingerprint.
	AllRewritten string
	// Invalid names a column the table does not have.
	Invalid string
	// Unsafe changes data; empty when the language cannot express it.
	Unsafe string
	// Reply is a generator reply in the dialect's format whose query is All.
	Reply string
	// Unreachable is the same backend pointed at a server that does not
	// answer; nil when there is no server.
	Unreachable warehouse.Backend
	// UncountedRows says the backend's Values does not count rows
	// (warehouse.RowsUnknown), as Cube's does not.
	UncountedRows bool
}

func (h Harness) column(name string) string {
	if h.Column == nil {
		return name
	}
	return h.Column(name)
}

// behaviours are the conformance checks, one function per behaviour, run
// in this order as subtests of RunConformance.
var behaviours = []struct {
	name string
	test func(t *testing.T, h Harness)
}{
	{"Catalog", testCatalog},
	{"Run", testRun},
	{"RowLimit", testRowLimit},
	{"Export", testExport},
	{"Values", testValues},
	{"Rejections", testRejections},
	{"Show", testShow},
	{"Dialect", testDialect},
	{"Fingerprint", testFingerprint},
	{"Canceled", testCanceled},
	{"Identified", testIdentified},
}

// RunConformance checks that h.Backend behaves as every backend must: its
// catalog, checks, results, limits, exports, distinct values, errors and
// dialect. Each behaviour is a function of its own (test<Name>), run as a
// subtest; each backend's tests build their own Harness, as go-cloud's
// drivertest does.
func RunConformance(t *testing.T, h Harness) {
	t.Helper()
	for _, bh := range behaviours {
		t.Run(bh.name, func(t *testing.T) { bh.test(t, h) })
	}
	if h.Unreachable != nil {
		t.Run("Unreachable", func(t *testing.T) { testUnreachable(t, h) })
	}
}

// testCatalog checks that the catalog lists the fixture table, its columns
// with their neutral kinds and native types, and its schema.
func testCatalog(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	tb, ok := cat.Table(h.Schema, h.Table)
	require.True(t, ok, "the catalog has the fixture table %s.%s", h.Schema, h.Table)
	for _, fc := range FixtureColumns {
		c, ok := tb.Column(h.column(fc.Name))
		if assert.True(t, ok, "column %s", fc.Name) {
			assert.Equal(t, fc.Kind, c.Kind, "kind of column %s", fc.Name)
			assert.NotEmpty(t, c.Type, "native type of column %s", fc.Name)
		}
	}
	if h.Schema != "" {
		assert.Contains(t, cat.Schemas(), h.Schema)
	}
}

// testRun checks that a checked query runs and returns the fixture's
// columns and rows, whole.
func testRun(t *testing.T, h Harness) {
	r, res := checkAndRun(t, h, h.All, 0)
	assert.Equal(t, h.Backend.Name(), r.Query.Backend, "the checked query names its backend")
	require.Len(t, res.Columns, len(FixtureColumns))
	for i, fc := range FixtureColumns {
		assert.Equal(t, fc.Name, res.Columns[i].Name, "column %d", i)
		assert.Equal(t, fc.Kind, res.Columns[i].Kind, "kind of column %s", fc.Name)
	}
	assertRows(t, FixtureRows(), res.Rows)
	assert.Equal(t, len(FixtureRows()), res.RowCount)
	assert.False(t, res.Truncated, "a whole result is not cut")
}

// testRowLimit checks that a limit cuts a result and says so, and the
// stored query checks the same again.
func testRowLimit(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	r, res := checkAndRun(t, h, h.All, 3)
	assert.Equal(t, 3, res.RowCount)
	assert.True(t, res.Truncated, "more rows than the limit: cut")
	assert.Equal(t, warehouse.LimitRows, res.LimitedBy)
	assertRows(t, FixtureRows()[:3], res.Rows)
	again, err := b.Check(ctx, r.Query.Text, 3)
	require.NoError(t, err)
	assert.Equal(t, r, again, "the stored query checks the same again")
}

// testExport checks that an export writes what the result holds, up to its limit.
func testExport(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	r, res := checkAndRun(t, h, h.All, 0)
	var want, got bytes.Buffer
	require.NoError(t, warehouse.WriteCSV(&want, res))
	st, err := b.Export(ctx, r.Query, &got, warehouse.ExportLimit{Rows: 100})
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Rows: len(FixtureRows())}, st)
	assert.Equal(t, want.String(), got.String(), "an export writes what the result holds")
	assert.Contains(t, got.String(), "\n3,\"\",0,true\n4,,5.25,\n", "an empty name is \"\", a NULL nothing")

	got.Reset()
	st, err = b.Export(ctx, r.Query, &got, warehouse.ExportLimit{Rows: 2})
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Rows: 2, Truncated: true}, st)
	assert.Equal(t, 3, strings.Count(got.String(), "\n"), "a header and two rows")

	// A limit of bytes ends the file with the last whole row that fits.
	lines := strings.SplitAfter(want.String(), "\n")
	head := strings.Join(lines[:3], "")
	got.Reset()
	st, err = b.Export(ctx, r.Query, &got, warehouse.ExportLimit{Rows: 100, Bytes: int64(len(head) + 1)})
	require.NoError(t, err)
	assert.Equal(t, warehouse.ExportStats{Rows: 2, Truncated: true, Full: true}, st)
	assert.Equal(t, head, got.String(), "a header and the two rows that fit")
}

// testValues checks that the distinct values of a column are listed in
// order, up to the cap, with the rows that hold them counted (the five
// named items: 'Widget' is two) unless the backend does not count; a
// missing column is Invalid.
func testValues(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	col := warehouse.ColumnRef{Schema: h.Schema, Table: h.Table, Column: h.column("name")}
	rows := func(n int64) int64 {
		if h.UncountedRows {
			return warehouse.RowsUnknown
		}
		return n
	}
	got, err := b.Values(ctx, col, 10)
	require.NoError(t, err)
	assert.Equal(t, warehouse.ColumnValues{Distinct: FixtureNames, Rows: rows(5)}, got, "distinct, not null, in order")
	got, err = b.Values(ctx, col, 2)
	require.NoError(t, err)
	assert.Equal(t, warehouse.ColumnValues{Distinct: FixtureNames[:2], Rows: rows(2)}, got, "up to the cap, and the rows of those")
	_, err = b.Values(ctx, warehouse.ColumnRef{Schema: h.Schema, Table: h.Table, Column: h.column("nope")}, 10)
	assert.Equal(t, warehouse.Invalid, warehouse.KindOf(err), "a column the catalog lacks: %v", err)
}

// testRejections checks that an empty, a wrong and an unsafe query are
// refused with a kind and a reason.
func testRejections(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	for _, tt := range []struct {
		name, text string
		want       warehouse.ErrorKind
	}{
		{"empty", "  ", warehouse.Invalid},
		{"unknown column", h.Invalid, warehouse.Invalid},
		{"unsafe", h.Unsafe, warehouse.Unsafe},
	} {
		if tt.text == "" && tt.name == "unsafe" {
			continue // the language cannot change data
		}
		_, err := b.Check(ctx, tt.text, 0)
		var we *warehouse.Error
		if assert.True(t, errors.As(err, &we), "%s: got %v, want a *warehouse.Error", tt.name, err) {
			assert.Equal(t, tt.want, we.Kind, "%s: kind", tt.name)
			assert.NotEmpty(t, we.Reason, "%s: a reason the generator can act on", tt.name)
		}
	}
}

// testShow checks that Show presents a checked query.
func testShow(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	r, err := b.Check(ctx, h.All, 0)
	require.NoError(t, err)
	shown := b.Show(ctx, r.Query)
	assert.NotEmpty(t, shown.Language)
	assert.NotEmpty(t, strings.TrimSpace(shown.Text))
}

// testDialect checks that the dialect describes itself, lists the catalog
// for the prompt and reads replies in its format.
func testDialect(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	d := b.Dialect()
	for name, v := range map[string]string{"Language": d.Language, "Step": d.Step, "Prompt": d.Prompt,
		"Writing": d.Writing, "Checking": d.Checking, "Source": d.Source, "Scope": d.Scope,
		"EmptyHint": d.EmptyHint, "AuthHint": d.AuthHint} {
		assert.NotEmpty(t, strings.TrimSpace(v), "Dialect.%s", name)
	}
	assert.Contains(t, d.Prompt, "Question: {{.Question}}", "the prompt ends with the question line scripted models match on")
	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	assert.Contains(t, d.Describe(cat.Tables), h.Table, "the prompt's catalog lists the table")
	g, ok := d.Parse(h.Reply)
	require.True(t, ok, "the dialect reads a reply in its own format")
	_, err = b.Check(ctx, g.Text, 0)
	assert.NoError(t, err, "the query it read checks")
	_, ok = d.Parse("I cannot answer that.")
	assert.False(t, ok, "prose holds no query")
}

// testFingerprint checks that the fingerprint is the same for the same
// query written differently, and Tables names the tables a query reads.
func testFingerprint(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	d := b.Dialect()
	require.NotNil(t, d.Fingerprint, "Dialect.Fingerprint")
	require.NotNil(t, d.Tables, "Dialect.Tables")
	assert.NotEmpty(t, d.FingerprintForm, "Dialect.FingerprintForm: stored examples are re-fingerprinted by it")
	fp, err := d.Fingerprint(h.All)
	require.NoError(t, err)
	assert.NotEmpty(t, fp)
	again, err := d.Fingerprint(h.AllRewritten)
	require.NoError(t, err)
	assert.Equal(t, fp, again, "the same query written differently")
	other, err := d.Fingerprint(h.Invalid)
	require.NoError(t, err)
	assert.NotEqual(t, fp, other, "another query")
	_, err = d.Fingerprint("not a query {")
	assert.Error(t, err)

	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	tb, ok := cat.Table(h.Schema, h.Table)
	require.True(t, ok)
	got, err := d.Tables(h.All)
	require.NoError(t, err)
	assert.Equal(t, []string{strings.ToLower(tb.QualifiedName())}, got, "the tables the query reads, named as the catalog names them")
}

// testCanceled checks that a canceled run fails at once.
func testCanceled(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	r, err := b.Check(ctx, h.All, 0)
	require.NoError(t, err)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	start := time.Now()
	_, err = b.Run(canceled, r)
	assert.Error(t, err, "a canceled run fails")
	assert.Less(t, time.Since(start), 5*time.Second, "and fails at once")
}

// testIdentified checks that a checked query carries its fingerprint,
// id and dataset key, the same as the dialect and DatasetOf give, so that
// nothing after Check reads the query again.
func testIdentified(t *testing.T, h Harness) {
	b := h.Backend
	ctx := context.Background()
	for _, text := range []string{h.All, h.AllRewritten} {
		for _, limit := range []int{0, 3} {
			r, err := b.Check(ctx, text, limit)
			require.NoError(t, err)
			fp, err := b.Dialect().Fingerprint(r.Query.Text)
			require.NoError(t, err)
			assert.Equal(t, fp, r.Fingerprint, "the fingerprint of %q as checked, limit %d", text, limit)
			id, key := warehouse.DatasetOf(b, r.Query)
			assert.Equal(t, id, r.ID, "its id")
			assert.Equal(t, key, r.Key, "its dataset key")
			gotID, gotKey := r.Dataset(b)
			assert.Equal(t, []string{id, key}, []string{gotID, gotKey}, "Dataset gives what Check carried")
		}
	}
}

// testUnreachable checks that a backend whose server does not answer is
// Unavailable.
func testUnreachable(t *testing.T, h Harness) {
	_, err := h.Unreachable.Catalog(context.Background())
	assert.Equal(t, warehouse.Unavailable, warehouse.KindOf(err), "got %v", err)
}

// checkAndRun checks text with limit and runs it, failing t when either
// fails.
func checkAndRun(t *testing.T, h Harness, text string, limit int) (warehouse.Runnable, warehouse.Result) {
	t.Helper()
	ctx := context.Background()
	r, err := h.Backend.Check(ctx, text, limit)
	require.NoError(t, err)
	res, err := h.Backend.Run(ctx, r)
	require.NoError(t, err)
	return r, res
}

// assertRows compares rows cell by cell as people read them: numbers by
// value (one backend's "24.50" is another's 24.5), everything else by its
// text, NULL apart from the empty string.
func assertRows(t *testing.T, want, got [][]any) {
	t.Helper()
	require.Len(t, got, len(want), "rows")
	for i := range want {
		require.Len(t, got[i], len(want[i]), "cells of row %d", i)
		for j := range want[i] {
			w, g := want[i][j], got[i][j]
			if (w == nil) != (g == nil) {
				t.Errorf("row %d column %d: got %#v, want %#v", i, j, g, w)
				continue
			}
			wf, werr := strconv.ParseFloat(warehouse.Text(w), 64)
			gf, gerr := strconv.ParseFloat(warehouse.Text(g), 64)
			if _, isNum := w.(float64); (isNum || isInt(w)) && werr == nil && gerr == nil {
				assert.InDelta(t, wf, gf, 1e-9, "row %d column %d", i, j)
				continue
			}
			assert.Equal(t, warehouse.Text(w), warehouse.Text(g), "row %d column %d", i, j)
		}
	}
}

func isInt(v any) bool { _, ok := v.(int64); return ok }
