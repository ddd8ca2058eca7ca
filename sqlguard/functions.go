package sqlguard

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// denied names functions that are not merely unlisted but attacks or side
// effects, so that they get their own (unsafe) class. Exact names first,
// then prefixes; the first matching rule wins.
var denied = []struct {
	class  Class
	exact  []string
	prefix []string
	reason string
}{
	{ClassSleep, []string{"pg_sleep", "pg_sleep_for", "pg_sleep_until"}, nil,
		"%s() only waits; remove it"},
	{ClassSettings, []string{"set_config"}, nil,
		"%s() changes server settings; remove it"},
	{ClassFileAccess, []string{"pg_stat_file", "lo_import", "lo_export", "pg_logdir_ls", "pg_current_logfile"},
		[]string{"pg_read_", "pg_ls_", "pg_file_"},
		"%s() touches the server's files; read only the analytics tables"},
	{ClassLargeObject, []string{"loread", "lowrite"}, []string{"lo_"},
		"%s() works on large objects; read only the analytics tables"},
	{ClassDynamicSQL, []string{"ts_stat", "crosstab", "crosstab2", "crosstab3", "crosstab4", "connectby"},
		[]string{"query_to_xml", "cursor_to_xml", "table_to_xml", "schema_to_xml", "database_to_xml"},
		"%s() runs SQL given as text; write the query itself"},
	{ClassForeignData, nil, []string{"dblink", "postgres_fdw", "file_fdw"},
		"%s() reaches outside this database; read only the analytics tables"},
	{ClassSideEffect, []string{
		"pg_terminate_backend", "pg_cancel_backend", "nextval", "setval", "currval", "lastval",
		"pg_notify", "pg_reload_conf", "pg_rotate_logfile", "pg_switch_wal", "txid_current",
		"pg_current_xact_id", "pg_promote", "pg_export_snapshot", "pg_log_backend_memory_contexts",
		"pg_import_system_collations", "pg_truncate_visibility_map", "pg_prewarm", "setseed",
		"gin_clean_pending_list", "pg_start_backup", "pg_stop_backup", "pg_stat_statements_reset",
	}, []string{
		"pg_advisory_", "pg_try_advisory_", "pg_stat_reset", "pg_replication_origin_", "pg_create_",
		"pg_drop_replication_slot", "pg_copy_", "pg_replication_slot_", "pg_logical_", "pg_wal_replay_",
		"pg_backup_", "brin_summarize", "brin_desummarize",
	}, "%s() has side effects on the server; remove it"},
}

// deniedFunction returns the class of a dangerous function name, or "".
// ts_rewrite is only dangerous in its two-argument form, whose second
// argument is a query.
func deniedFunction(name string, nargs int) (Class, string) {
	if name == "ts_rewrite" && nargs == 2 {
		return ClassDynamicSQL, "ts_rewrite(query, text) runs SQL given as text; write the query itself"
	}
	for _, d := range denied {
		match := false
		for _, e := range d.exact {
			match = match || name == e
		}
		for _, p := range d.prefix {
			match = match || strings.HasPrefix(name, p)
		}
		if match {
			return d.class, fmt.Sprintf(d.reason, name)
		}
	}
	return "", ""
}

func (c *checker) funcCall(f *pg_query.FuncCall) {
	names := stringList(f.GetFuncname())
	if len(names) == 0 {
		return
	}
	name := names[len(names)-1]
	if class, reason := deniedFunction(name, len(f.GetArgs())); class != "" {
		c.report(reject(class, "%s", reason))
		return
	}
	if len(names) > 1 && !c.parserQualified(f, names) {
		c.report(reject(ClassNameResolution, "call %s(…) without a schema", name))
		return
	}
	if !allowed[name] && !c.extra[name] {
		hint := "use standard aggregate, window, math, string, date/time, array or JSON functions"
		if lower := strings.ToLower(name); lower != name && (allowed[lower] || c.extra[lower]) {
			hint = "write " + lower + " unquoted"
		}
		c.report(reject(ClassFunction, "%s() is not an allowed function; %s", name, hint))
		return
	}
	if name == "generate_series" {
		c.series(f)
	}
}

// parserQualified tells the pg_catalog names PostgreSQL's grammar writes for
// SQL syntax (EXTRACT, SUBSTRING … FROM, AT TIME ZONE, LIKE … ESCAPE,
// json_object) from a pg_catalog.f the user wrote. The grammar's nodes point
// at a keyword; a written name starts with the schema, maybe quoted.
func (c *checker) parserQualified(f *pg_query.FuncCall, names []string) bool {
	if len(names) != 2 || names[0] != "pg_catalog" {
		return false
	}
	if f.GetFuncformat() == pg_query.CoercionForm_COERCE_SQL_SYNTAX {
		return true
	}
	loc := int(f.GetLocation())
	if loc < 0 || loc >= len(c.sql) {
		return true
	}
	text := strings.ToLower(c.sql[loc:])
	return !strings.HasPrefix(text, "pg_catalog") && !strings.HasPrefix(text, `"`) && !strings.HasPrefix(text, `u&"`)
}

// operator rejects OPERATOR(schema.op): it picks an operator outside the
// normal resolution, which a model never needs.
func (c *checker) operator(e *pg_query.A_Expr) {
	if names := stringList(e.GetName()); len(names) > 1 {
		c.report(reject(ClassNameResolution, "write the operator %s without OPERATOR(%s.…)", names[len(names)-1], names[0]))
	}
}

// regTypes are the object-identifier types whose casts look names up in the
// system catalogs ('pg_authid'::regclass).
var regTypes = nameSet(strings.Fields(`regclass regcollation regconfig regdictionary regnamespace
	regoper regoperator regproc regprocedure regrole regtype`))

// typeName checks a type in a cast or a column definition list. Built-in
// types are pg_catalog-qualified by the grammar (CAST(x AS int) names
// pg_catalog.int4), so pg_catalog and the allowed schemas may qualify a type;
// any other schema could supply an input function or a domain check that
// runs code.
func (c *checker) typeName(t *pg_query.TypeName) {
	names := stringList(t.GetNames())
	if len(names) == 0 {
		return
	}
	name := strings.TrimPrefix(names[len(names)-1], "_")
	switch {
	case name == "xml":
		c.report(reject(ClassFunction, "the xml type is not allowed; use text or JSON"))
	case regTypes[name] && !c.p.AllowCatalog:
		c.report(reject(ClassCatalog, "casting to %s reads the system catalogs; compare names or ids of the analytics tables instead", name))
	case len(names) > 1 && names[0] != "pg_catalog" && !slices.Contains(c.p.Schemas, names[0]):
		c.report(reject(ClassNameResolution, "write the type %s without a schema", name))
	}
}

// tableSample allows the two built-in TABLESAMPLE methods; other methods are
// functions from extensions.
func (c *checker) tableSample(s *pg_query.RangeTableSample) {
	names := stringList(s.GetMethod())
	switch {
	case len(names) > 1:
		c.report(reject(ClassNameResolution, "write TABLESAMPLE %s without a schema", names[len(names)-1]))
	case len(names) == 1 && names[0] != "system" && names[0] != "bernoulli" && !c.extra[names[0]]:
		c.report(reject(ClassFunction, "TABLESAMPLE %s is not allowed; use SYSTEM or BERNOULLI", names[0]))
	}
}
