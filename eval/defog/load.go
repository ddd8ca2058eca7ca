// Package defog holds Defog's public text-to-SQL benchmark as test data:
// the 11 small PostgreSQL databases of defog-data, with their column
// descriptions, and the 314 questions of sql-eval with gold queries.
// Load puts each database into a schema named after it; Questions turns the
// questions into an eval file whose gold queries run against those schemas.
// The data is embedded (data/README.md credits it), so nothing outside the
// binary is read.
package defog

import (
	"context"
	"embed"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:generate go run ./gen

//go:embed data
var dataFS embed.FS

// lockKey is the transaction-level advisory lock every Load takes, so two
// loads at once run one after the other instead of dropping each other's
// schemas halfway.
const lockKey int64 = 0x6162742d_64666f67 // "abt-dfog"

// Options configures Load.
type Options struct {
	// ReaderRole gets USAGE on every loaded schema and SELECT on its
	// tables. It must already exist; empty grants nothing.
	ReaderRole string
	// Schemas are the databases to load (names from Databases), each into
	// the schema of its name; empty loads all of them.
	Schemas []string
}

// Stats says what Load created, summed over the schemas and per schema.
type Stats struct {
	Schemas  []SchemaStats
	Tables   int
	Rows     int64
	Comments int
	// Missing counts column descriptions skipped because the dump has no
	// such column.
	Missing int
	// Elapsed is the wall time of the whole Load call.
	Elapsed time.Duration
}

// SchemaStats says what Load created in one schema.
type SchemaStats struct {
	Schema string
	// Tables are the tables the dump created.
	Tables int
	// Rows are the rows its INSERT statements added.
	Rows int64
	// Comments are the column descriptions applied as comments.
	Comments int
	// Missing are the described columns ("table.column") the dump lacks.
	Missing []string
	// Skipped counts dump statements not run: settings, ownership, grants
	// and the source schema's own CREATE or COMMENT.
	Skipped int
}

// Databases returns the names of the 11 databases, sorted.
func Databases() []string {
	entries, err := dataFS.ReadDir("data")
	if err != nil {
		panic(fmt.Sprintf("defog: embedded data: %v", err)) // embedded at build time
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "questions" {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// Load (re)creates the chosen databases, each in the schema of its name:
// it drops the schema (or refuses with a ForeignTablesError when it holds
// anything no load created), runs the dump with every relation moved into
// it, comments the columns with their descriptions and grants the reader.
// It all happens in one transaction under an advisory lock, so readers never
// see a half-loaded schema and concurrent loads are safe.
func Load(ctx context.Context, pool *pgxpool.Pool, opts Options) (st Stats, err error) {
	start := time.Now()
	defer func() {
		if err != nil {
			err = fmt.Errorf("load defog: %w", err)
		}
	}()
	names, err := chooseDatabases(opts.Schemas)
	if err != nil {
		return Stats{}, err
	}
	if opts.ReaderRole != "" {
		var exists bool
		if err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", opts.ReaderRole).Scan(&exists); err != nil {
			return Stats{}, fmt.Errorf("check reader role: %w", err)
		}
		if !exists {
			return Stats{}, fmt.Errorf("reader role %q does not exist: create it first (e.g. `analyticsbot migrate`)", opts.ReaderRole)
		}
	}
	var dbs []*database
	for _, name := range names {
		db, err := readDatabase(name)
		if err != nil {
			return Stats{}, err
		}
		dbs = append(dbs, db)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
			return fmt.Errorf("advisory lock: %w", err)
		}
		if err := checkOwnSchemas(ctx, tx, dbs); err != nil {
			return err
		}
		for _, db := range dbs {
			ss, err := loadSchema(ctx, tx, db, opts.ReaderRole)
			if err != nil {
				return err
			}
			st.Schemas = append(st.Schemas, ss)
			st.Tables += ss.Tables
			st.Rows += ss.Rows
			st.Comments += ss.Comments
			st.Missing += len(ss.Missing)
		}
		return nil
	})
	if err != nil {
		return Stats{}, err
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// ForeignTablesError is Load's error when a schema it would drop holds
// what no load of its database created: a table or view the dump does not
// create, a routine, a type, a sequence of no column. Loading would drop them with the schema, so it
// refuses and changes nothing.
type ForeignTablesError struct {
	// Objects are their qualified names (schema.name), by schema.
	Objects []string
}

func (e *ForeignTablesError) Error() string {
	const shown = 10
	list := strings.Join(e.Objects[:min(len(e.Objects), shown)], ", ")
	if n := len(e.Objects) - shown; n > 0 {
		list += fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("the schemas it would drop hold %s, which no benchmark load created", list)
}

// checkOwnSchemas returns a ForeignTablesError when a schema of dbs that
// exists holds a table, view or routine its dump does not create: a
// schema of a user's that shares a benchmark database's name (geography,
// yelp), or one a user added a table to after a load. An earlier load left
// exactly the dump's tables. It runs under Load's lock.
func checkOwnSchemas(ctx context.Context, tx pgx.Tx, dbs []*database) error {
	var foreign []string
	for _, db := range dbs {
		stmts, _, err := dumpStatements(db)
		if err != nil {
			return err
		}
		var own []string
		for _, s := range stmts {
			if s.table != "" {
				own = append(own, s.table)
			}
		}
		// Indexes, and sequences owned by a column (SERIAL), go with
		// their tables.
		rows, err := tx.Query(ctx, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = $1 AND (c.relkind IN ('p', 'v', 'm', 'f', 'c') OR (c.relkind = 'r' AND NOT c.relname = ANY($2))
				OR (c.relkind = 'S' AND NOT EXISTS (SELECT 1 FROM pg_depend d
					WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))))
			UNION ALL
			SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
			UNION ALL
			SELECT t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
			WHERE n.nspname = $1 AND t.typtype IN ('e', 'd', 'r', 'm')
			ORDER BY 1`, db.name, own)
		if err != nil {
			return fmt.Errorf("check schema %s: %w", db.name, err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return fmt.Errorf("check schema %s: %w", db.name, err)
		}
		for _, n := range names {
			foreign = append(foreign, db.name+"."+n)
		}
	}
	if len(foreign) > 0 {
		return &ForeignTablesError{Objects: foreign}
	}
	return nil
}

// chooseDatabases checks the requested names, sorted and without
// duplicates; none means all.
func chooseDatabases(requested []string) ([]string, error) {
	all := Databases()
	if len(requested) == 0 {
		return all, nil
	}
	names := slices.Clone(requested)
	slices.Sort(names)
	names = slices.Compact(names)
	for _, n := range names {
		if !slices.Contains(all, n) {
			return nil, fmt.Errorf("unknown database %q: want one of %s", n, strings.Join(all, ", "))
		}
	}
	return names, nil
}

// loadSchema recreates one database in its schema inside tx.
func loadSchema(ctx context.Context, tx pgx.Tx, db *database, reader string) (SchemaStats, error) {
	st := SchemaStats{Schema: db.name}
	stmts, skipped, err := dumpStatements(db)
	if err != nil {
		return st, err
	}
	st.Skipped = skipped
	schema := pgx.Identifier{db.name}.Sanitize()
	setup := fmt.Sprintf("DROP SCHEMA IF EXISTS %[1]s CASCADE; CREATE SCHEMA %[1]s; SET LOCAL search_path TO %[1]s", schema)
	if _, err := tx.Exec(ctx, setup); err != nil {
		return st, fmt.Errorf("create schema %s: %w", db.name, err)
	}
	for _, s := range stmts {
		tag, err := tx.Exec(ctx, s.sql)
		if err != nil {
			return st, fmt.Errorf("%s.sql statement %d: %w", db.name, s.n, err)
		}
		switch {
		case tag.Insert():
			st.Rows += tag.RowsAffected()
		case s.table != "":
			st.Tables++
		}
	}
	if st.Comments, st.Missing, err = applyComments(ctx, tx, db); err != nil {
		return st, err
	}
	if reader != "" {
		grants := fmt.Sprintf("GRANT USAGE ON SCHEMA %[1]s TO %[2]s; GRANT SELECT ON ALL TABLES IN SCHEMA %[1]s TO %[2]s",
			schema, pgx.Identifier{reader}.Sanitize())
		if _, err := tx.Exec(ctx, grants); err != nil {
			return st, fmt.Errorf("grant %s to %s: %w", db.name, reader, err)
		}
	}
	return st, nil
}

// applyComments comments every described column of db that exists in its
// schema, matching names as PostgreSQL folds unquoted ones, and returns
// how many it applied and the described columns it did not find.
func applyComments(ctx context.Context, tx pgx.Tx, db *database) (applied int, missing []string, err error) {
	rows, err := tx.Query(ctx, `SELECT c.relname, a.attname FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`, db.name)
	if err != nil {
		return 0, nil, fmt.Errorf("list columns of %s: %w", db.name, err)
	}
	type column struct{ table, name string }
	columns := map[string]column{}
	var c column
	_, err = pgx.ForEachRow(rows, []any{&c.table, &c.name}, func() error {
		columns[strings.ToLower(c.table)+"."+strings.ToLower(c.name)] = c
		return nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("list columns of %s: %w", db.name, err)
	}
	var sql strings.Builder
	for _, t := range db.tables {
		for _, col := range t.Columns {
			if col.Description == "" {
				continue
			}
			key := strings.ToLower(t.Name) + "." + strings.ToLower(col.Name)
			found, ok := columns[key]
			if !ok {
				missing = append(missing, key)
				continue
			}
			fmt.Fprintf(&sql, "COMMENT ON COLUMN %s IS %s;\n",
				pgx.Identifier{db.name, found.table, found.name}.Sanitize(), quoteLiteral(col.Description))
			applied++
		}
	}
	if applied > 0 {
		if _, err := tx.Exec(ctx, sql.String()); err != nil {
			return 0, nil, fmt.Errorf("comment columns of %s: %w", db.name, err)
		}
	}
	return applied, missing, nil
}

// quoteLiteral returns s as an SQL string literal that means the same
// whatever standard_conforming_strings says.
func quoteLiteral(s string) string {
	s = strings.ReplaceAll(s, "'", "''")
	if strings.Contains(s, `\`) {
		return "E'" + strings.ReplaceAll(s, `\`, `\\`) + "'"
	}
	return "'" + s + "'"
}
