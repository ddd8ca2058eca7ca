package nodes

import (
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// pgQuery is SQL as the Postgres backend stores it.
func pgQuery(sql string) warehouse.Query { return warehouse.Query{Backend: "postgres", Text: sql} }

// pgID is the id of a PostgreSQL query's result.
func pgID(sql string) string {
	return warehouse.IDOf(pgwarehouse.New(pgwarehouse.Config{}), pgQuery(sql))
}

// unchecked is SQL as ExecuteQuery runs it, without the validator: what a
// query that slipped past it would do.
func unchecked(sql string) warehouse.Runnable {
	return warehouse.Runnable{Query: pgQuery(sql), Statement: sql}
}
