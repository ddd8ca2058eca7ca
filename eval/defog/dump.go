package defog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// database is one embedded defog-data database.
type database struct {
	name string
	// dump is <name>.sql, pg_dump style.
	dump string
	// tables are the described tables of <name>.json, sorted by name,
	// without the source schema.
	tables []table
	// from are the schemas the source database used: public, plus the one
	// its table names carry in <name>.json (ewallet's consumer_div).
	from []string
}

// table is a table of <db>.json's table_metadata.
type table struct {
	Name    string
	Columns []column
}

// column is a column of <db>.json's table_metadata.
type column struct {
	Name        string `json:"column_name"`
	DataType    string `json:"data_type"`
	Description string `json:"column_description"`
}

// readDatabase reads one embedded database.
func readDatabase(name string) (*database, error) {
	dump, err := dataFS.ReadFile("data/" + name + "/" + name + ".sql")
	if err != nil {
		return nil, fmt.Errorf("read database %s: %w", name, err)
	}
	meta, err := dataFS.ReadFile("data/" + name + "/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("read database %s: %w", name, err)
	}
	var doc struct {
		TableMetadata map[string][]column `json:"table_metadata"`
	}
	if err := json.Unmarshal(meta, &doc); err != nil {
		return nil, fmt.Errorf("read database %s: %s.json: %w", name, name, err)
	}
	db := &database{name: name, dump: string(dump), from: []string{"public"}}
	for key, cols := range doc.TableMetadata {
		if schema, rel, ok := strings.Cut(key, "."); ok {
			key = rel
			if !slices.Contains(db.from, schema) {
				db.from = append(db.from, schema)
			}
		}
		db.tables = append(db.tables, table{Name: key, Columns: cols})
	}
	slices.SortFunc(db.tables, func(a, b table) int { return strings.Compare(a.Name, b.Name) })
	return db, nil
}

// statement is one dump statement rewritten to run in its schema.
type statement struct {
	// n is its 1-based position in the dump, for messages.
	n   int
	sql string
	// table is the name of the table it creates; "" when it creates none.
	table string
}

// dumpStatements splits db's dump into statements and rewrites each so
// that what it creates or fills lands in schema db.name. Statements that
// would touch anything else (settings, ownership, grants, the source
// schema itself) are skipped and counted; a reference to another schema is
// an error.
func dumpStatements(db *database) (stmts []statement, skipped int, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("rewrite %s.sql: %w", db.name, err)
		}
	}()
	texts, err := pg_query.SplitWithParser(db.dump, true)
	if err != nil {
		return nil, 0, err
	}
	for i, text := range texts {
		tree, err := pg_query.Parse(text)
		if err != nil {
			return nil, 0, fmt.Errorf("statement %d: %w", i+1, err)
		}
		if len(tree.GetStmts()) != 1 {
			return nil, 0, fmt.Errorf("statement %d: split into %d statements", i+1, len(tree.GetStmts()))
		}
		node := tree.GetStmts()[0].GetStmt()
		skip, err := skipDumpStatement(node, db)
		if err != nil {
			return nil, 0, fmt.Errorf("statement %d: %w", i+1, err)
		}
		if skip {
			skipped++
			continue
		}
		if others := qualify(tree, db.name, db.from...); len(others) > 0 {
			return nil, 0, fmt.Errorf("statement %d refers to schema %s, outside the database", i+1, others[0])
		}
		sql, err := pg_query.Deparse(tree)
		if err != nil {
			return nil, 0, fmt.Errorf("statement %d: deparse: %w", i+1, err)
		}
		stmts = append(stmts, statement{n: i + 1, sql: sql, table: node.GetCreateStmt().GetRelation().GetRelname()})
	}
	return stmts, skipped, nil
}

// skipDumpStatement says whether a dump statement is left out because it
// acts outside the database's own tables. COMMENT ON TABLE and COLUMN name
// their object with a list rather than a relation, so they are moved into
// the schema here; any other COMMENT is refused.
func skipDumpStatement(n *pg_query.Node, db *database) (bool, error) {
	switch {
	case n.GetVariableSetStmt() != nil, n.GetCreateSchemaStmt() != nil,
		n.GetAlterOwnerStmt() != nil, n.GetGrantStmt() != nil, n.GetGrantRoleStmt() != nil:
		return true, nil
	case n.GetSelectStmt() != nil:
		// pg_dump's SELECT pg_catalog.set_config('search_path', '', false).
		for _, t := range n.GetSelectStmt().GetTargetList() {
			names := t.GetResTarget().GetVal().GetFuncCall().GetFuncname()
			if len(names) == 0 || names[len(names)-1].GetString_().GetSval() != "set_config" {
				return false, nil
			}
		}
		return true, nil
	case n.GetAlterTableStmt() != nil:
		for _, c := range n.GetAlterTableStmt().GetCmds() {
			if c.GetAlterTableCmd().GetSubtype() != pg_query.AlterTableType_AT_ChangeOwner {
				return false, nil
			}
		}
		return true, nil
	case n.GetCommentStmt() != nil:
		c := n.GetCommentStmt()
		base := map[pg_query.ObjectType]int{pg_query.ObjectType_OBJECT_TABLE: 1, pg_query.ObjectType_OBJECT_COLUMN: 2}[c.GetObjtype()]
		switch {
		case c.GetObjtype() == pg_query.ObjectType_OBJECT_SCHEMA:
			return true, nil
		case base == 0:
			return false, fmt.Errorf("COMMENT ON %s is not supported", c.GetObjtype())
		}
		list := c.GetObject().GetList()
		names := list.GetItems()
		switch {
		case len(names) == base:
			list.Items = append([]*pg_query.Node{pg_query.MakeStrNode(db.name)}, names...)
		case len(names) == base+1 && slices.Contains(db.from, names[0].GetString_().GetSval()):
			names[0] = pg_query.MakeStrNode(db.name)
		default:
			return false, fmt.Errorf("COMMENT ON %s names an object outside the database", c.GetObjtype())
		}
	}
	return false, nil
}
