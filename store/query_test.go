package store_test

import "github.com/analyticsbot/analyticsbot/warehouse"

// pgQuery is SQL as the Postgres backend stores it.
func pgQuery(sql string) warehouse.Query { return warehouse.Query{Backend: "postgres", Text: sql} }
