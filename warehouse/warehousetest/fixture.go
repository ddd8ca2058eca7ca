// Package warehousetest holds what every backend's tests share: the
// conformance suite each warehouse.Backend must pass (RunConformance, in the
// manner of go-cloud's drivertest), the fixture it runs on, and an
// in-memory backend written in test code (Memory), which proves that
// nothing outside a backend's package needs to know which database is
// behind it.
package warehousetest

import "github.com/analyticsbot/analyticsbot/warehouse"

// FixtureTable is the name of the fixture's one table.
const FixtureTable = "items"

// FixtureSQL creates and fills the fixture in a PostgreSQL schema (the
// "%[1]s" verb, quoted) and lets the reader role read it. Backends over
// PostgreSQL (Cube included) load it with fmt.Sprintf(FixtureSQL, schema).
const FixtureSQL = `
CREATE SCHEMA %[1]s;
CREATE TABLE %[1]s.items (id integer PRIMARY KEY, name text, price double precision, active boolean);
INSERT INTO %[1]s.items VALUES
	(1, 'Widget', 9.99, true),
	(2, 'Gadget, "deluxe"', 24.5, false),
	(3, '', 0, true),
	(4, NULL, 5.25, NULL),
	(5, 'Gizmo', 100, true),
	(6, 'Widget', 1.5, false);
GRANT USAGE ON SCHEMA %[1]s TO analyticsbot_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA %[1]s TO analyticsbot_reader;`

// FixtureColumns are the fixture's columns, in order, with their kinds.
var FixtureColumns = []struct {
	Name string
	Kind warehouse.Kind
}{
	{"id", warehouse.KindNumber},
	{"name", warehouse.KindText},
	{"price", warehouse.KindNumber},
	{"active", warehouse.KindBool},
}

// FixtureRows are the fixture's rows, ordered by id: a name with a comma
// and quotes, an empty name and a NULL one (which must stay apart), a
// repeated name, and a NULL boolean.
func FixtureRows() [][]any {
	return [][]any{
		{int64(1), "Widget", 9.99, true},
		{int64(2), `Gadget, "deluxe"`, 24.5, false},
		{int64(3), "", 0.0, true},
		{int64(4), nil, 5.25, nil},
		{int64(5), "Gizmo", 100.0, true},
		{int64(6), "Widget", 1.5, false},
	}
}

// FixtureNames are the distinct non-null names of the fixture, in order.
var FixtureNames = []string{"", `Gadget, "deluxe"`, "Gizmo", "Widget"}
