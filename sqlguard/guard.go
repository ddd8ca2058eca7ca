// Package sqlguard decides whether a model-written SQL statement may run.
// It parses the text with PostgreSQL's own parser (pg_query) and accepts
// only a single read-only SELECT over the configured analytics schema, so
// comments, quoting and odd spellings cannot hide a write.
package sqlguard

import (
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Class is a machine-readable reason for rejecting a statement.
type Class string

// The rejection classes.
const (
	ClassEmpty      Class = "empty"
	ClassTooLong    Class = "too_long"
	ClassSyntax     Class = "syntax_error"
	ClassStacked    Class = "stacked_statements"
	ClassNotSelect  Class = "not_select"
	ClassWritingCTE Class = "data_modifying_cte"
	ClassSelectInto Class = "select_into"
	ClassLocking    Class = "locking_clause"
	ClassRelation   Class = "relation_not_allowed"
)

// Rejection is the error returned for a statement that may not run. Reason
// is written for the SQL generator to act on.
type Rejection struct {
	Class  Class
	Reason string
}

func (r *Rejection) Error() string { return fmt.Sprintf("%s: %s", r.Class, r.Reason) }

// Policy says what a statement may read.
type Policy struct {
	// Schemas are the schemas whose relations may be read. Unqualified names
	// resolve against Tables.
	Schemas []string
	// Tables are the relation names of the allowed schemas. Unqualified names
	// must be one of them (or a CTE of the statement), because PostgreSQL
	// searches pg_catalog before any search_path entry.
	Tables []string
	// MaxLength caps the statement text in bytes; 0 means 20,000.
	MaxLength int
}

func reject(c Class, format string, args ...any) error {
	return &Rejection{Class: c, Reason: fmt.Sprintf(format, args...)}
}

// Check returns nil when sql may run under p, or a *Rejection.
func Check(sql string, p Policy) error {
	maxLen := p.MaxLength
	if maxLen == 0 {
		maxLen = 20000
	}
	if strings.TrimSpace(sql) == "" {
		return reject(ClassEmpty, "the statement is empty")
	}
	if len(sql) > maxLen {
		return reject(ClassTooLong, "the statement is %d bytes long; the limit is %d", len(sql), maxLen)
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return reject(ClassSyntax, "%v", err)
	}
	switch n := len(tree.GetStmts()); {
	case n == 0:
		return reject(ClassEmpty, "the statement is empty")
	case n > 1:
		return reject(ClassStacked, "write exactly one statement; found %d", n)
	}
	sel := tree.GetStmts()[0].GetStmt().GetSelectStmt()
	if sel == nil {
		return reject(ClassNotSelect, "only SELECT statements (optionally WITH …) may run")
	}
	return checkSelectTree(sel, p)
}

// checkSelectTree walks every node below the statement: writes and locks can
// hide in CTEs, subqueries and set operations at any depth.
func checkSelectTree(root *pg_query.SelectStmt, p Policy) error {
	ctes := map[string]bool{}
	var relations []*pg_query.RangeVar
	var err error
	walk(root.ProtoReflect(), func(m protoreflect.Message) bool {
		switch n := m.Interface().(type) {
		case *pg_query.SelectStmt:
			if n.GetIntoClause() != nil {
				err = reject(ClassSelectInto, "SELECT INTO creates a table; return rows instead")
			} else if len(n.GetLockingClause()) > 0 {
				err = reject(ClassLocking, "remove the FOR UPDATE/SHARE clause: results are read-only")
			}
		case *pg_query.CommonTableExpr:
			ctes[strings.ToLower(n.GetCtename())] = true
			if n.GetCtequery().GetSelectStmt() == nil {
				err = reject(ClassWritingCTE, "the CTE %q does not SELECT; data-modifying CTEs are not allowed", n.GetCtename())
			}
		case *pg_query.RangeVar:
			relations = append(relations, n)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	for _, rv := range relations {
		if err := checkRelation(rv, ctes, p); err != nil {
			return err
		}
	}
	return nil
}

func checkRelation(rv *pg_query.RangeVar, ctes map[string]bool, p Policy) error {
	name := rv.GetRelname()
	switch schema := rv.GetSchemaname(); {
	case rv.GetCatalogname() != "":
		return reject(ClassRelation, "cross-database reference %s.%s.%s is not allowed", rv.GetCatalogname(), schema, name)
	case schema != "":
		if !slices.Contains(p.Schemas, schema) {
			return reject(ClassRelation, "%s.%s is outside the allowed schemas (%s)", schema, name, strings.Join(p.Schemas, ", "))
		}
		return nil
	case ctes[strings.ToLower(name)]:
		return nil
	case p.Tables != nil && !slices.Contains(p.Tables, name):
		return reject(ClassRelation, "table %q does not exist in %s; use one of: %s", name, strings.Join(p.Schemas, ", "), strings.Join(p.Tables, ", "))
	}
	return nil
}

// walk calls fn for m and every message below it, depth first, until fn
// returns false.
func walk(m protoreflect.Message, fn func(protoreflect.Message) bool) bool {
	if !fn(m) {
		return false
	}
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len() && ok; i++ {
				ok = walk(l.Get(i).Message(), fn)
			}
		case fd.Message() != nil && !fd.IsMap():
			ok = walk(v.Message(), fn)
		}
		return ok
	})
	return ok
}
