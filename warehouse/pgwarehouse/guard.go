package pgwarehouse

import (
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// trigramFunctions are pg_trgm's read-only functions, allowed on top of the
// guard's built-in list: the demo schema ships the extension for fuzzy name
// search.
var trigramFunctions = []string{"similarity", "word_similarity", "strict_word_similarity"}

// GuardPolicy is the static guard's policy for SQL the bot runs: relations
// of schemas, tables by name ("apps") or qualified ("analytics.apps"), the
// guard's function allowlist plus pg_trgm's, and, when maxRows > 0, a LIMIT
// of one row more than a result keeps, so the executor can still tell a
// result was cut.
func GuardPolicy(schemas, tables []string, maxRows int) sqlguard.Policy {
	p := sqlguard.Policy{Schemas: schemas, Tables: tables, Functions: trigramFunctions}
	if maxRows > 0 {
		p.RowLimit = maxRows + 1
	}
	return p
}

// tableNames lists the catalog's tables qualified with their schema, for
// the guard.
func tableNames(cat *warehouse.Catalog) []string {
	names := make([]string, len(cat.Tables))
	for i, t := range cat.Tables {
		names[i] = t.QualifiedName()
	}
	return names
}
