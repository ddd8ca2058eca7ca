package sqlguard

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// secretRelations stay forbidden even with Policy.AllowCatalog: they hold
// password hashes, foreign-server credentials or sampled column values.
var secretRelations = nameSet([]string{"pg_authid", "pg_shadow", "pg_user_mapping", "pg_user_mappings", "pg_statistic"})

// relation checks a table reference. Unqualified names are resolved as
// PostgreSQL does: a CTE in scope first, then pg_catalog (so any pg_* name
// is a catalog relation), then the search_path.
func (c *checker) relation(rv *pg_query.RangeVar) {
	name, schema := rv.GetRelname(), rv.GetSchemaname()
	switch {
	case name == "pg_largeobject" || name == "pg_largeobject_metadata":
		c.report(reject(ClassLargeObject, "%s holds large objects; read only the analytics tables", name))
	case rv.GetCatalogname() != "":
		c.report(reject(ClassRelation, "the cross-database name %s.%s.%s is not allowed; use %s", rv.GetCatalogname(), schema, name, c.tableHint()))
	case schema == "" && c.isCTE(name):
	case schema == "" && strings.HasPrefix(name, "pg_"):
		c.catalogRelation(name, name)
	case schema == "" && c.forbiddenTable("", name) != "":
		c.report(reject(ClassAccess, "you may not read %s", c.forbiddenTable("", name)))
	case schema == "":
		c.knownTable("", name)
		c.tableRef(rv, c.resolve("", name))
	case schema == "pg_catalog" || schema == "information_schema" || strings.HasPrefix(schema, "pg_"):
		c.catalogRelation(schema+"."+name, name)
	case !slices.Contains(c.p.Schemas, schema):
		c.report(reject(ClassRelation, "%s.%s is outside the allowed schemas; use %s", schema, name, c.tableHint()))
	case c.forbiddenTable(schema, name) != "":
		c.report(reject(ClassAccess, "you may not read %s.%s", schema, name))
	default:
		c.knownTable(schema, name)
		c.tableRef(rv, c.resolve(schema, name))
	}
}

func (c *checker) catalogRelation(written, name string) {
	if !c.p.AllowCatalog || secretRelations[name] {
		c.report(reject(ClassCatalog, "%s is a system catalog; use %s", written, c.tableHint()))
	}
}

// knownTable checks a table name against Policy.Tables, whose entries are
// bare ("apps") or qualified ("analytics.apps"). An unqualified name may be
// any schema's table: the search_path picks which.
func (c *checker) knownTable(schema, name string) {
	if c.p.Tables == nil {
		return
	}
	for _, t := range c.p.Tables {
		s, n, qualified := strings.Cut(t, ".")
		if !qualified && t == name || qualified && n == name && (schema == "" || s == schema) {
			return
		}
	}
	written := name
	if schema != "" {
		written = schema + "." + name
	}
	c.report(reject(ClassRelation, "table %q does not exist; use %s", written, c.tableHint()))
}

// tableHint names what may be read, for the generator to pick from.
func (c *checker) tableHint() string {
	switch {
	case len(c.p.Tables) > 0:
		names := make([]string, len(c.p.Tables))
		for i, t := range c.p.Tables {
			names[i] = qualifiedIdent(t)
		}
		return "one of the tables " + strings.Join(names, ", ")
	case len(c.p.Schemas) > 0:
		return "tables of the schema " + strings.Join(c.p.Schemas, ", ")
	}
	return "the analytics tables"
}
