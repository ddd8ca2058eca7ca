// Package demo loads the demo database: 27,075 real games from the Steam store (Steam Store
// Games dataset by Nik Davis, Kaggle 2019, CC BY 4.0; data from the Steam Store and SteamSpy
// APIs), normalized into commented Postgres tables so that people can try analyticsbot on
// realistic questions without bringing their own data.
//
// The CSV is embedded in the binary, so loading needs nothing but a database connection.
package demo

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultSchema is the schema the demo tables are loaded into when Options.Schema is empty.
const DefaultSchema = "analytics"

// DefaultReaderRole is the read-only role the bot queries as; `analyticsbot migrate` creates it.
const DefaultReaderRole = "analyticsbot_reader"

// lockKey is the transaction-level advisory lock every load takes. It is one key for the whole
// database, not one per schema, because CREATE EXTENSION is database-wide and two concurrent
// loads into different schemas would otherwise race on it.
const lockKey int64 = 0x616e616c79_64656d // "analy" "dem"

// afterLoadMarker splits schema.sql into the DDL run before COPY and the constraints and
// indexes run after it.
const afterLoadMarker = "\n-- demo:after-load\n"

var (
	//go:embed data/steam.csv.gz
	steamCSVGz []byte

	//go:embed schema.sql
	schemaSQL string

	// schemaNameRE admits only names that mean the same quoted and unquoted, because
	// generated SQL will write the schema unquoted.
	schemaNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

	// tableCommentRE finds schema.sql's table comments, by which Load recognises the tables
	// an earlier load created.
	tableCommentRE = regexp.MustCompile(`(?m)^COMMENT ON TABLE __SCHEMA__\.([a-z_]+) IS '((?:[^']|'')*)';$`)
)

// ForeignTablesError is Load's error when the schema holds relations of a demo table's name
// that no demo load created (a table without the demo's comment, a view): loading would drop
// them, so it refuses and changes nothing.
type ForeignTablesError struct {
	Schema string
	// Tables are the relations' qualified names (schema.table), sorted.
	Tables []string
}

func (e *ForeignTablesError) Error() string {
	return fmt.Sprintf("schema %s holds %s, which the demo did not create and would replace", e.Schema, strings.Join(e.Tables, ", "))
}

// Options configures Load. The zero value loads into DefaultSchema and grants DefaultReaderRole.
type Options struct {
	// Schema receives the demo tables; created if missing. Only the demo's own tables in it
	// are dropped and recreated; other objects are left alone. A relation of a demo table's
	// name that an earlier load did not create stops the load (ForeignTablesError).
	// Lower-case identifier only.
	Schema string
	// ReaderRole gets USAGE on Schema and SELECT on all its tables. It must already exist
	// (`analyticsbot migrate` creates it); Load refuses to run otherwise.
	ReaderRole string
}

// Stats counts the rows of the loaded tables, read back from the database after loading.
type Stats struct {
	Apps       int
	Developers int
	Publishers int
	Genres     int
	Tags       int
	Categories int
	Platforms  int
	// Elapsed is the wall time of the whole Load call.
	Elapsed time.Duration
}

// Load (re)creates the demo tables in opts.Schema and fills them from the embedded Steam CSV.
// Everything happens in one transaction under an advisory lock, so running it twice, or twice
// at once, leaves exactly one copy of the data, and readers never see a half-loaded schema.
func Load(ctx context.Context, pool *pgxpool.Pool, opts Options) (st Stats, err error) {
	start := time.Now()
	defer func() {
		if err != nil {
			err = fmt.Errorf("load demo: %w", err)
		}
	}()
	if opts.Schema == "" {
		opts.Schema = DefaultSchema
	}
	if opts.ReaderRole == "" {
		opts.ReaderRole = DefaultReaderRole
	}
	if !schemaNameRE.MatchString(opts.Schema) || strings.HasPrefix(opts.Schema, "pg_") || opts.Schema == "information_schema" {
		return Stats{}, fmt.Errorf("schema name %q: want a lower-case identifier (a-z, 0-9, _), not a system schema", opts.Schema)
	}

	var roleExists bool
	if err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", opts.ReaderRole).Scan(&roleExists); err != nil {
		return Stats{}, fmt.Errorf("check reader role: %w", err)
	}
	if !roleExists {
		return Stats{}, fmt.Errorf("role %s does not exist: run `analyticsbot migrate` first", opts.ReaderRole)
	}

	apps, err := parseApps(steamCSVGz)
	if err != nil {
		return Stats{}, err
	}

	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		st, err = loadTx(ctx, tx, opts, apps)
		return err
	})
	if err != nil {
		return Stats{}, err
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// loadTx does the whole load inside tx; the caller commits.
func loadTx(ctx context.Context, tx pgx.Tx, opts Options, apps []app) (Stats, error) {
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockKey); err != nil {
		return Stats{}, fmt.Errorf("advisory lock: %w", err)
	}
	if err := checkOwnTables(ctx, tx, opts.Schema); err != nil {
		return Stats{}, err
	}

	// pg_trgm goes into the target schema, the only one on the reader's search_path (see
	// schema.sql), unless it is already installed elsewhere: a second copy cannot be created.
	// Installed where the reader may not look (the bot's own schema, where `migrate` puts it
	// for the value index), it moves here; the bot finds it wherever it is.
	trgmSchema := opts.Schema
	var readable bool
	err := tx.QueryRow(ctx, `SELECT n.nspname, has_schema_privilege($1, n.oid, 'USAGE') FROM pg_extension e
		JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`, opts.ReaderRole).Scan(&trgmSchema, &readable)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		trgmSchema = opts.Schema
	case err != nil:
		return Stats{}, fmt.Errorf("find pg_trgm: %w", err)
	case !readable && trgmSchema != opts.Schema:
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{opts.Schema}.Sanitize()+
			"; ALTER EXTENSION pg_trgm SET SCHEMA "+pgx.Identifier{opts.Schema}.Sanitize()); err != nil {
			return Stats{}, fmt.Errorf("move pg_trgm to schema %s: %w", opts.Schema, err)
		}
		trgmSchema = opts.Schema
	}

	schema := pgx.Identifier{opts.Schema}.Sanitize()
	before, after, err := renderSchema(schema, pgx.Identifier{trgmSchema}.Sanitize())
	if err != nil {
		return Stats{}, err
	}
	if _, err := tx.Exec(ctx, before); err != nil {
		return Stats{}, fmt.Errorf("create tables: %w", err)
	}
	if err := copyApps(ctx, tx, opts.Schema, apps); err != nil {
		return Stats{}, err
	}
	tables := []string{schema + ".apps"}
	for _, d := range dimensions {
		if err := copyDimension(ctx, tx, opts.Schema, d, apps); err != nil {
			return Stats{}, err
		}
		tables = append(tables, schema+"."+d.table, schema+"."+d.linkTable)
	}
	if _, err := tx.Exec(ctx, after); err != nil {
		return Stats{}, fmt.Errorf("add constraints and indexes: %w", err)
	}

	role := pgx.Identifier{opts.ReaderRole}.Sanitize()
	grants := fmt.Sprintf("GRANT USAGE ON SCHEMA %[1]s TO %[2]s; GRANT SELECT ON ALL TABLES IN SCHEMA %[1]s TO %[2]s", schema, role)
	if _, err := tx.Exec(ctx, grants); err != nil {
		return Stats{}, fmt.Errorf("grant to %s: %w", opts.ReaderRole, err)
	}
	// Fresh statistics matter here: the bot's first queries hit these tables right away,
	// before autovacuum would have analyzed them.
	if _, err := tx.Exec(ctx, "ANALYZE "+strings.Join(tables, ", ")); err != nil {
		return Stats{}, fmt.Errorf("analyze: %w", err)
	}

	var st Stats
	q := strings.ReplaceAll(`SELECT
		(SELECT count(*) FROM S.apps), (SELECT count(*) FROM S.developers),
		(SELECT count(*) FROM S.publishers), (SELECT count(*) FROM S.genres),
		(SELECT count(*) FROM S.tags), (SELECT count(*) FROM S.categories),
		(SELECT count(*) FROM S.platforms)`, "S.", schema+".")
	err = tx.QueryRow(ctx, q).Scan(&st.Apps, &st.Developers, &st.Publishers, &st.Genres, &st.Tags, &st.Categories, &st.Platforms)
	if err != nil {
		return Stats{}, fmt.Errorf("count rows: %w", err)
	}
	return st, nil
}

// checkOwnTables returns a ForeignTablesError when schema holds a relation of a demo table's
// name that is not a table an earlier load created, which it tells by the comment schema.sql
// gives the table: a user's tags table, say, which the load's DROP TABLE would take with its
// rows. The check runs under the load's lock, so no load can create or replace a table
// between it and the DROP.
func checkOwnTables(ctx context.Context, tx pgx.Tx, schema string) error {
	comments := map[string]string{}
	for _, m := range tableCommentRE.FindAllStringSubmatch(schemaSQL, -1) {
		comments[m[1]] = strings.ReplaceAll(m[2], "''", "'")
	}
	names := []string{"apps"}
	for _, d := range dimensions {
		names = append(names, d.table, d.linkTable)
	}
	for _, name := range names {
		if _, ok := comments[name]; !ok {
			return fmt.Errorf("schema.sql: table %s has no comment to recognise it by", name)
		}
	}
	rows, err := tx.Query(ctx, `SELECT c.relname, c.relkind = 'r', coalesce(obj_description(c.oid, 'pg_class'), '')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = ANY($2) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
		ORDER BY c.relname`, schema, names)
	if err != nil {
		return fmt.Errorf("check existing tables: %w", err)
	}
	var foreign []string
	var name, comment string
	var table bool
	_, err = pgx.ForEachRow(rows, []any{&name, &table, &comment}, func() error {
		if !table || comment != comments[name] {
			foreign = append(foreign, schema+"."+name)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check existing tables: %w", err)
	}
	if len(foreign) > 0 {
		return &ForeignTablesError{Schema: schema, Tables: foreign}
	}
	return nil
}

// renderSchema substitutes the already-quoted identifiers into schema.sql and splits it at
// the after-load marker.
func renderSchema(schema, trgmSchema string) (before, after string, err error) {
	if strings.Count(schemaSQL, afterLoadMarker) != 1 {
		return "", "", errors.New("schema.sql: want exactly one after-load marker")
	}
	sql := strings.NewReplacer("__SCHEMA__", schema, "__TRGM__", trgmSchema).Replace(schemaSQL)
	before, after, _ = strings.Cut(sql, afterLoadMarker)
	return before, after, nil
}
