package pgwarehouse

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// What the access rules on views, partitions and inheritance need to know
// (warehouse.Decide), read from PostgreSQL's own catalog: what each view
// reads and which tables inherit from which.

// relationKinds are the relations a catalog describes: tables, views,
// materialized views, partitioned and foreign tables.
const relationKinds = `('r', 'v', 'm', 'p', 'f')`

// catalogLineage lists the relations of the schemas, and every relation
// they read, inherit from or are inherited by, at any depth and in any
// schema, each with what it reads if it is a view or a materialized view
// (the pg_depend rows of its rewrite rule: a column, or the relation
// alone when the rule names none of its columns; a rule that reads a whole
// row anywhere, a Var of attribute 0 in its node tree, reads every column
// of every relation it reads) and its direct parents (pg_inherits). The
// catalog tables are PUBLIC's to read: the reader sees it all.
const catalogLineage = `
	WITH RECURSIVE rel(oid) AS (
		SELECT c.oid FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = ANY ($1) AND c.relkind IN ` + relationKinds + `
	  UNION
		SELECT l.oid FROM rel CROSS JOIN LATERAL (
			SELECT d.refobjid FROM pg_catalog.pg_rewrite rw
			JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = rw.oid
			     AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid <> rw.ev_class
			WHERE rw.ev_class = rel.oid
			UNION ALL SELECT i.inhparent FROM pg_catalog.pg_inherits i WHERE i.inhrelid = rel.oid
			UNION ALL SELECT i.inhrelid FROM pg_catalog.pg_inherits i WHERE i.inhparent = rel.oid
		) l(oid)
		JOIN pg_catalog.pg_class lc ON lc.oid = l.oid AND lc.relkind IN ` + relationKinds + `
	)
	SELECT n.nspname, c.relname,
	       coalesce((SELECT json_agg(DISTINCT jsonb_build_array(rn.nspname, r.relname, coalesce(a.attname, '')))
	                 FROM pg_catalog.pg_rewrite rw
	                 JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_rewrite'::regclass AND d.objid = rw.oid
	                      AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.refobjid <> rw.ev_class
	                 JOIN pg_catalog.pg_class r ON r.oid = d.refobjid AND r.relkind IN ` + relationKinds + `
	                 JOIN pg_catalog.pg_namespace rn ON rn.oid = r.relnamespace
	                 LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped
	                      AND (a.attnum = d.refobjsubid OR rw.ev_action::text ~ '\{VAR :varno \d+ :varattno 0 ')
	                 WHERE rw.ev_class = c.oid), '[]'),
	       coalesce((SELECT json_agg(jsonb_build_array(pn.nspname, p.relname) ORDER BY i.inhseqno)
	                 FROM pg_catalog.pg_inherits i
	                 JOIN pg_catalog.pg_class p ON p.oid = i.inhparent
	                 JOIN pg_catalog.pg_namespace pn ON pn.oid = p.relnamespace
	                 WHERE i.inhrelid = c.oid), '[]'),
	       c.relkind IN ('v', 'm')
	FROM rel
	JOIN pg_catalog.pg_class c ON c.oid = rel.oid
	JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	ORDER BY 1, 2`

// beginner starts a transaction: a pooled connection, or a transaction
// (a savepoint).
type beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// addLineage sets the Reads and Parents of cat's tables and partitions,
// and adds the relations they lead to that cat lacks to cat.Related.
func addLineage(ctx context.Context, db beginner, cat *warehouse.Catalog, schemas []string) error {
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		// The planner's guess at the recursion's size makes JIT compile
		// it, which takes seconds for a query that runs in milliseconds.
		if _, err := tx.Exec(ctx, "SET LOCAL jit = off"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, catalogLineage, schemas)
		if err != nil {
			return err
		}
		return scanLineage(rows, cat)
	})
	if err != nil {
		return fmt.Errorf("read what views read: %w", err)
	}
	return nil
}

// scanLineage reads catalogLineage's rows into cat.
func scanLineage(rows pgx.Rows, cat *warehouse.Catalog) error {
	held := map[warehouse.TableRef]*warehouse.Table{}
	for _, list := range [][]warehouse.Table{cat.Tables, cat.Partitions} {
		for i := range list {
			held[list[i].Ref()] = &list[i]
		}
	}
	var (
		schema, name   string
		reads, parents []byte
		view           bool
	)
	_, err := pgx.ForEachRow(rows, []any{&schema, &name, &reads, &parents, &view}, func() error {
		t := held[warehouse.TableRef{Schema: schema, Name: name}]
		if t == nil {
			cat.Related = append(cat.Related, warehouse.Table{Schema: schema, Name: name})
			t = &cat.Related[len(cat.Related)-1]
		}
		var rs, ps [][]string
		if err := json.Unmarshal(reads, &rs); err != nil {
			return err
		}
		if err := json.Unmarshal(parents, &ps); err != nil {
			return err
		}
		if view {
			// A view that reads nothing (SELECT 1) still has Reads.
			t.Reads = make([]warehouse.ColumnRef, 0, len(rs))
		}
		for _, r := range rs {
			t.Reads = append(t.Reads, warehouse.ColumnRef{Schema: r[0], Table: r[1], Column: r[2]})
		}
		for _, p := range ps {
			t.Parents = append(t.Parents, warehouse.TableRef{Schema: p[0], Name: p[1]})
		}
		return nil
	})
	return err
}
