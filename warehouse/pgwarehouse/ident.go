package pgwarehouse

import (
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// tableName writes t's name, schema first, as SQL must (sqlguard.Ident):
// the prompt shows names so, or the generator writes "SELECT
// CustomerName" for a column PostgreSQL then reads as customername.
func tableName(t warehouse.Table) string {
	if t.Schema == "" {
		return sqlguard.Ident(t.Name)
	}
	return sqlguard.Ident(t.Schema) + "." + sqlguard.Ident(t.Name)
}

// columnName writes a column's name, schema and table first, as SQL must
// (sqlguard.Ident): the stored values the prompt shows are named so.
func columnName(c warehouse.ColumnRef) string {
	return tableName(warehouse.Table{Schema: c.Schema, Name: c.Table}) + "." + sqlguard.Ident(c.Column)
}
