package store

import (
	"context"
	"fmt"
)

// DescribeSchema lists the tables, views, materialized views and partitioned
// tables of schema with their live columns and COMMENT ON text, tables by name
// and columns in table order: what the SQL generator is told about the data.
// Partitions are left out; their parent stands for them. A schema that does
// not exist has no tables.
func (d *DB) DescribeSchema(ctx context.Context, schema string) ([]Table, error) {
	rows, err := d.pool.Query(ctx, `
		SELECT c.relname,
		       coalesce(obj_description(c.oid, 'pg_class'), ''),
		       a.attname,
		       format_type(a.atttypid, a.atttypmod),
		       NOT a.attnotnull,
		       coalesce(col_description(c.oid, a.attnum), '')
		FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_catalog.pg_attribute a
		       ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE n.nspname = $1
		  AND c.relkind IN ('r', 'v', 'm', 'p')
		  AND NOT c.relispartition
		ORDER BY c.relname, a.attnum`, schema)
	if err != nil {
		return nil, fmt.Errorf("describe schema %q: %w", schema, classify(err))
	}
	defer rows.Close()

	var tables []Table
	for rows.Next() {
		var (
			table, tableComment  string
			col, typ, colComment *string
			nullable             *bool
		)
		if err := rows.Scan(&table, &tableComment, &col, &typ, &nullable, &colComment); err != nil {
			return nil, fmt.Errorf("describe schema %q: %w", schema, err)
		}
		if len(tables) == 0 || tables[len(tables)-1].Name != table {
			tables = append(tables, Table{Schema: schema, Name: table, Comment: tableComment})
		}
		if col == nil {
			continue // a table without columns: the LEFT JOIN's NULL row
		}
		t := &tables[len(tables)-1]
		t.Columns = append(t.Columns, TableColumn{Name: *col, Type: *typ, Nullable: *nullable, Comment: *colComment})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("describe schema %q: %w", schema, classify(err))
	}
	return tables, nil
}

// SchemaExists reports whether a schema of that name exists.
func (d *DB) SchemaExists(ctx context.Context, schema string) (bool, error) {
	var ok bool
	err := d.pool.QueryRow(ctx,
		`SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)`, schema).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("schema %q exists: %w", schema, classify(err))
	}
	return ok, nil
}
