package pgwarehouse

import (
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ident writes name as SQL must (sqlguard.Ident): the prompt shows names
// so, or the generator writes "SELECT CustomerName" for a column
// PostgreSQL then reads as customername.
func ident(name string) string { return sqlguard.Ident(name) }

// tableName writes t's name, schema first, as SQL must (ident).
func tableName(t warehouse.Table) string {
	if t.Schema == "" {
		return ident(t.Name)
	}
	return ident(t.Schema) + "." + ident(t.Name)
}

// columnName writes a column's name, schema and table first, as SQL must
// (ident): the stored values the prompt shows are named so.
func columnName(c warehouse.ColumnRef) string {
	return tableName(warehouse.Table{Schema: c.Schema, Name: c.Table}) + "." + ident(c.Column)
}
