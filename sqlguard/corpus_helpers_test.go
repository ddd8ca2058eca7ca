package sqlguard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// This file holds what the corpus, sqlmap, fuzz and benchmark tests share:
// loading the query corpora and an independent verification of accepted SQL.
// The verification re-parses the text itself and shares no code with the
// guard, so a walk or allowlist bug in the guard cannot hide its own escape.

// corpusQuery is one statement of a corpus, named after where it came from.
type corpusQuery struct {
	name string
	sql  string
}

// readCorpusSQL loads the files of dir matching pattern, sorted by name.
func readCorpusSQL(tb testing.TB, dir, pattern string) []corpusQuery {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		tb.Fatalf("glob %s/%s: %v", dir, pattern, err)
	}
	sort.Strings(paths)
	queries := make([]corpusQuery, 0, len(paths))
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatalf("read corpus query: %v", err)
		}
		queries = append(queries, corpusQuery{name: filepath.Base(path), sql: string(b)})
	}
	if len(queries) == 0 {
		tb.Fatalf("no corpus files match %s/%s", dir, pattern)
	}
	return queries
}

// The TPC table names: unqualified names in the queries must be one of them.
var (
	tpchTables = []string{"customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"}

	tpcdsTables = []string{
		"call_center", "catalog_page", "catalog_returns", "catalog_sales", "customer",
		"customer_address", "customer_demographics", "date_dim", "household_demographics",
		"income_band", "inventory", "item", "promotion", "reason", "ship_mode", "store",
		"store_returns", "store_sales", "time_dim", "warehouse", "web_page", "web_returns",
		"web_sales", "web_site",
	}
)

// indepDeniedPrefixes and indepDeniedNames are functions that must never run
// in a query the guard accepts: they sleep, change settings, touch files,
// large objects or other servers, run SQL from strings, signal backends,
// take locks or change sequences. current_setting is left out on purpose:
// reading a setting is no escape. Names are compared lower-cased after any
// schema qualification is stripped, which is stricter than PostgreSQL.
var (
	indepDeniedPrefixes = []string{
		"pg_sleep", "pg_read", "pg_ls_", "pg_stat_file", "pg_file", "lo_", "dblink",
		"pg_terminate", "pg_cancel", "pg_advisory", "pg_try_advisory", "pg_reload_conf",
		"pg_rotate_logfile", "pg_switch_wal", "pg_create_", "pg_drop_replication",
		"pg_replication_", "pg_logical_", "pg_promote", "pg_backup", "pg_start_backup",
		"pg_stop_backup", "pg_notify", "pg_export_snapshot", "pg_import_system",
		"pg_log_backend", "query_to_xml", "cursor_to_xml", "table_to_xml", "schema_to_xml",
		"database_to_xml", "pg_wal_replay", "pg_current_xact_id", "txid_current", "postgres_fdw",
		"file_fdw",
	}
	indepDeniedNames = map[string]bool{
		"set_config": true, "nextval": true, "setval": true, "loread": true, "lowrite": true,
		"ts_stat": true, "ts_rewrite": true,
	}
	indepCatalogSchemas = []string{"pg_catalog", "information_schema", "pg_toast"}
)

func indepDeniedFunction(name string) bool {
	name = strings.ToLower(name)
	if indepDeniedNames[name] {
		return true
	}
	for _, p := range indepDeniedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// indepVerify re-parses sql and returns an error naming the first property
// that does not hold for a statement allowed to read the given schemas and
// tables (tables nil: any unqualified non-catalog name): exactly one
// statement, a SELECT without INTO or locking clauses, no statement of any
// other kind anywhere below it (so no data-modifying CTE), no denied or
// schema-qualified function call, and no relation outside the schemas.
func indepVerify(sql string, schemas, tables []string) error {
	// pg_query reads a C string: it stops at the first NUL byte, so text
	// after one is never seen by the parser.
	if strings.IndexByte(sql, 0) >= 0 {
		return errors.New("NUL byte hides the rest of the text from the parser")
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return fmt.Errorf("does not parse: %w", err)
	}
	if n := len(tree.GetStmts()); n != 1 {
		return fmt.Errorf("%d statements, want exactly 1", n)
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil {
		return fmt.Errorf("top-level statement is %T, want SelectStmt", tree.GetStmts()[0].GetStmt().GetNode())
	}
	v := indepVerifier{schemas: schemas, tables: tables}
	v.visit(sel.ProtoReflect(), nil)
	return v.err
}

type indepVerifier struct {
	schemas, tables []string
	err             error
}

func (v *indepVerifier) fail(format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf(format, args...)
	}
}

// visit walks m depth first. ctes holds the CTE names visible at m: a WITH
// list is visible to its own statement and everything below it, and nowhere
// else, so a CTE cannot shadow a relation outside its scope.
func (v *indepVerifier) visit(m protoreflect.Message, ctes []string) {
	if v.err != nil {
		return
	}
	var skip protoreflect.Name // a field visit has already walked
	switch n := m.Interface().(type) {
	case *pg_query.SelectStmt:
		if n.GetIntoClause() != nil {
			v.fail("SELECT INTO")
		}
		if len(n.GetLockingClause()) > 0 {
			v.fail("locking clause")
		}
		ctes = v.with(n.GetWithClause(), ctes)
		skip = "with_clause"
	case *pg_query.CommonTableExpr:
		if n.GetCtequery().GetSelectStmt() == nil {
			v.fail("CTE %q is not a SELECT", n.GetCtename())
		}
	case *pg_query.FuncCall:
		v.checkFunc(n)
	case *pg_query.RangeVar:
		v.checkRelation(n, ctes)
	case *pg_query.LockingClause, *pg_query.IntoClause:
		v.fail("%s below the statement", m.Descriptor().Name())
	default:
		if name := string(m.Descriptor().Name()); strings.HasSuffix(name, "Stmt") && name != "SelectStmt" {
			v.fail("nested %s", name)
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
		switch {
		case fd.Name() == skip:
		case fd.IsList() && fd.Message() != nil:
			l := val.List()
			for i := 0; i < l.Len(); i++ {
				v.visit(l.Get(i).Message(), ctes)
			}
		case fd.Message() != nil && !fd.IsMap():
			v.visit(val.Message(), ctes)
		}
		return v.err == nil
	})
}

// with visits the CTEs of wc (which may be nil) with outer in scope and
// returns the names visible to the rest of the owning statement. It follows
// PostgreSQL's parse analysis: in a plain WITH a CTE sees only the CTEs
// listed before it, so its own name or a later one in its body still means
// a real relation; in WITH RECURSIVE every CTE sees the whole list.
func (v *indepVerifier) with(wc *pg_query.WithClause, outer []string) []string {
	all := slices.Clip(outer)
	for _, c := range wc.GetCtes() {
		all = append(all, c.GetCommonTableExpr().GetCtename())
	}
	for i, c := range wc.GetCtes() {
		visible := all
		if !wc.GetRecursive() {
			n := len(outer) + i
			visible = all[:n:n]
		}
		v.visit(c.ProtoReflect(), visible)
	}
	return all
}

func (v *indepVerifier) checkFunc(fc *pg_query.FuncCall) {
	var parts []string
	for _, n := range fc.GetFuncname() {
		parts = append(parts, n.GetString_().GetSval())
	}
	if len(parts) == 0 {
		v.fail("function call without a name")
		return
	}
	if base := parts[len(parts)-1]; indepDeniedFunction(base) {
		v.fail("denied function %s", strings.Join(parts, "."))
		return
	}
	// A qualified name outside pg_catalog resolves to whatever that schema
	// defines, which nothing here has vetted.
	if len(parts) > 1 && !(len(parts) == 2 && strings.EqualFold(parts[0], "pg_catalog")) {
		v.fail("schema-qualified function %s", strings.Join(parts, "."))
	}
}

func (v *indepVerifier) checkRelation(rv *pg_query.RangeVar, ctes []string) {
	schema, name := rv.GetSchemaname(), rv.GetRelname()
	switch {
	case rv.GetCatalogname() != "":
		v.fail("cross-database relation %s.%s.%s", rv.GetCatalogname(), schema, name)
	case schema != "":
		if !slices.Contains(v.schemas, schema) || slices.Contains(indepCatalogSchemas, strings.ToLower(schema)) {
			v.fail("relation %s.%s outside schemas %v", schema, name, v.schemas)
		}
	case slices.Contains(ctes, name):
		// PostgreSQL looks an unqualified name up among the CTEs in scope
		// before any schema, so a CTE shadows even a catalog relation.
	case strings.HasPrefix(strings.ToLower(name), "pg_"):
		// pg_catalog is searched before the search_path, so any other
		// unqualified pg_ name is a catalog relation.
		v.fail("catalog relation %s", name)
	case v.tables != nil && !slices.Contains(v.tables, name):
		v.fail("relation %s not among the allowed tables", name)
	}
}

// indepTopLimit returns the row bound of the top-level statement of sql: its
// LIMIT or FETCH FIRST constant. ok is false when there is none, when it is
// not a constant, when it is LIMIT ALL/NULL or when WITH TIES may return
// more rows than the count.
func indepTopLimit(sql string) (limit float64, ok bool, err error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return 0, false, fmt.Errorf("parse guarded statement: %w", err)
	}
	if len(tree.GetStmts()) != 1 {
		return 0, false, fmt.Errorf("guarded text holds %d statements", len(tree.GetStmts()))
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil || sel.GetLimitOption() == pg_query.LimitOption_LIMIT_OPTION_WITH_TIES {
		return 0, false, nil
	}
	c := sel.GetLimitCount().GetAConst()
	switch {
	case c == nil || c.GetIsnull():
		return 0, false, nil
	case c.GetIval() != nil:
		return float64(c.GetIval().GetIval()), true, nil
	case c.GetFval() != nil:
		f, err := strconv.ParseFloat(c.GetFval().GetFval(), 64)
		return f, err == nil, nil
	}
	return 0, false, nil
}

// indepRangeVars returns every relation reference in tree.
func indepRangeVars(tree *pg_query.ParseResult) []*pg_query.RangeVar {
	var out []*pg_query.RangeVar
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if rv, ok := m.Interface().(*pg_query.RangeVar); ok {
			out = append(out, rv)
		}
		m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				for i := 0; i < val.List().Len(); i++ {
					walk(val.List().Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(val.Message())
			}
			return true
		})
	}
	walk(tree.ProtoReflect())
	return out
}
