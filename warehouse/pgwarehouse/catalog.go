package pgwarehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// catalogColumns lists the tables, views, materialized views and
// partitioned tables of the schemas with their live columns and COMMENT ON
// text, as the reader sees them: relations and columns it may not SELECT are
// left out, and so are schemas it may not use. Partitions come last (the
// model is not shown them: their parent stands for them). Schemas come in
// the order given, tables by name, columns in table order.
const catalogColumns = `
	SELECT c.relispartition,
	       n.nspname,
	       c.relname,
	       coalesce(obj_description(c.oid, 'pg_class'), ''),
	       a.attname,
	       format_type(a.atttypid, a.atttypmod),
	       a.atttypid,
	       t.typcategory::text,
	       NOT a.attnotnull,
	       coalesce(col_description(c.oid, a.attnum), '')
	FROM pg_catalog.pg_class c
	JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	LEFT JOIN pg_catalog.pg_attribute a
	       ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
	      AND has_column_privilege(c.oid, a.attnum, 'SELECT')
	LEFT JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
	WHERE n.nspname = ANY ($1)
	  AND c.relkind IN ('r', 'v', 'm', 'p')
	  AND has_schema_privilege(n.oid, 'USAGE')
	  AND has_any_column_privilege(c.oid, 'SELECT')
	ORDER BY c.relispartition, array_position($1, n.nspname::text), c.relname, a.attnum`

// catalogForeignKeys lists the declared foreign keys of the schemas' tables,
// with their columns in key order.
const catalogForeignKeys = `
	SELECT n.nspname, c.relname,
	       ARRAY(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
	             JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord),
	       rn.nspname, rc.relname,
	       ARRAY(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
	             JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord)
	FROM pg_catalog.pg_constraint con
	JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
	JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	JOIN pg_catalog.pg_class rc ON rc.oid = con.confrelid
	JOIN pg_catalog.pg_namespace rn ON rn.oid = rc.relnamespace
	WHERE con.contype = 'f' AND n.nspname = ANY ($1)
	ORDER BY n.nspname, c.relname, con.conname`

// Describe reads the catalog of schemas as the reader sees it, with what
// its views read and which tables inherit from which (addLineage). A
// schema that does not exist, or that the reader may not use, has no
// tables.
func (e *Executor) Describe(ctx context.Context, schemas []string) (*warehouse.Catalog, error) {
	cat := &warehouse.Catalog{}
	err := e.withConn(ctx, func(conn *pgxpool.Conn) error {
		var err error
		if cat.Tables, cat.Partitions, err = describeTables(ctx, conn, schemas); err != nil {
			return err
		}
		if err := addForeignKeys(ctx, conn, cat, schemas); err != nil {
			return err
		}
		return addLineage(ctx, conn, cat, schemas)
	})
	if err != nil {
		return nil, fmt.Errorf("describe schemas %s: %w", strings.Join(schemas, ", "), err)
	}
	return cat, nil
}

// describeTables reads the tables and the partitions of schemas, with
// their columns.
func describeTables(ctx context.Context, conn *pgxpool.Conn, schemas []string) (tables, partitions []warehouse.Table, err error) {
	rows, err := conn.Query(ctx, catalogColumns, schemas)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	typeMap := conn.Conn().TypeMap()
	for rows.Next() {
		var (
			partition                   bool
			schema, table, tableComment string
			col, typ, colComment        *string
			typeOID                     *uint32
			category                    *string
			nullable                    *bool
		)
		if err := rows.Scan(&partition, &schema, &table, &tableComment, &col, &typ, &typeOID, &category, &nullable, &colComment); err != nil {
			return nil, nil, err
		}
		list := &tables
		if partition {
			list = &partitions
		}
		if n := len(*list); n == 0 || (*list)[n-1].Name != table || (*list)[n-1].Schema != schema {
			*list = append(*list, warehouse.Table{Schema: schema, Name: table, Comment: tableComment})
		}
		if col == nil {
			continue // a table without columns: the LEFT JOIN's NULL row
		}
		t := &(*list)[len(*list)-1]
		t.Columns = append(t.Columns, warehouse.TableColumn{
			Name: *col, Type: *typ, Kind: kindOfType(typeMap, *typeOID, *category),
			Nullable: *nullable, Comment: *colComment,
		})
	}
	return tables, partitions, rows.Err()
}

func addForeignKeys(ctx context.Context, conn *pgxpool.Conn, cat *warehouse.Catalog, schemas []string) error {
	rows, err := conn.Query(ctx, catalogForeignKeys, schemas)
	if err != nil {
		return err
	}
	fks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
		schema, table string
		fk            warehouse.ForeignKey
	}, error) {
		var v struct {
			schema, table string
			fk            warehouse.ForeignKey
		}
		err := r.Scan(&v.schema, &v.table, &v.fk.Columns, &v.fk.RefSchema, &v.fk.RefTable, &v.fk.RefColumns)
		return v, err
	})
	if err != nil {
		return err
	}
	for _, v := range fks {
		if _, ok := cat.Table(v.fk.RefSchema, v.fk.RefTable); !ok {
			continue // a reference the reader cannot follow
		}
		for i := range cat.Tables {
			if t := &cat.Tables[i]; t.Schema == v.schema && t.Name == v.table {
				t.ForeignKeys = append(t.ForeignKeys, v.fk)
			}
		}
	}
	return nil
}

// kindOfType is the kind of a catalog column: the kind its values have in
// results for the built-in types but xml, else by the type's category
// (domains and enums take their base's).
func kindOfType(m *pgtype.Map, oid uint32, category string) warehouse.Kind {
	if oid == pgtype.XMLOID {
		// Text in results, but no column to match values in: xml has
		// no equality, so `WHERE doc = '…'` fails.
		return warehouse.KindOther
	}
	if _, ok := m.TypeForOID(oid); ok {
		return kindOfOID(m, oid)
	}
	switch category {
	case "N":
		return warehouse.KindNumber
	case "S", "E":
		return warehouse.KindText
	case "D":
		return warehouse.KindTime
	case "B":
		return warehouse.KindBool
	}
	return warehouse.KindOther
}

// missingSchemas names the schemas of the list that do not exist or that
// the reader may not use, each with what to do about it.
func (e *Executor) missingSchemas(ctx context.Context, schemas []string) ([]string, error) {
	var problems []string
	err := e.withConn(ctx, func(conn *pgxpool.Conn) error {
		rows, err := conn.Query(ctx, `
			SELECT s, n.oid IS NOT NULL, n.oid IS NOT NULL AND has_schema_privilege(n.oid, 'USAGE')
			FROM unnest($1::text[]) WITH ORDINALITY AS l(s, ord)
			LEFT JOIN pg_catalog.pg_namespace n ON n.nspname = l.s
			ORDER BY l.ord`, schemas)
		if err != nil {
			return err
		}
		var (
			name           string
			exists, usable bool
		)
		_, err = pgx.ForEachRow(rows, []any{&name, &exists, &usable}, func() error {
			switch {
			case !exists:
				problems = append(problems, fmt.Sprintf("schema %q does not exist", name))
			case !usable:
				problems = append(problems, fmt.Sprintf("the reader role %s may not use schema %q (GRANT USAGE ON SCHEMA %s TO %s)",
					e.cfg.Role, name, pgx.Identifier{name}.Sanitize(), pgx.Identifier{e.cfg.Role}.Sanitize()))
			}
			return nil
		})
		return err
	})
	return problems, err
}
