package warehouse_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// hrCatalog is the access matrix's hr schema (bot/bottest/fixtures.go) as
// pgwarehouse describes it, with a view over a view, a count over the
// salaries, a view over another schema and a grandchild.
func hrCatalog() *warehouse.Catalog {
	cols := func(names ...string) []warehouse.TableColumn {
		out := make([]warehouse.TableColumn, len(names))
		for i, n := range names {
			out[i] = warehouse.TableColumn{Name: n}
		}
		return out
	}
	reads := func(refs ...string) []warehouse.ColumnRef {
		out := []warehouse.ColumnRef{}
		for i := 0; i+2 < len(refs); i += 3 {
			out = append(out, warehouse.ColumnRef{Schema: refs[i], Table: refs[i+1], Column: refs[i+2]})
		}
		return out
	}
	salaries := reads("hr", "employees", "employee_id", "hr", "employees", "name", "hr", "salaries", "amount", "hr", "salaries", "employee_id")
	parent := func(name string) []warehouse.TableRef { return []warehouse.TableRef{{Schema: "hr", Name: name}} }
	return &warehouse.Catalog{
		Tables: []warehouse.Table{
			{Schema: "hr", Name: "employees", Columns: cols("employee_id", "name", "email", "country")},
			{Schema: "hr", Name: "mv_salaries", Columns: cols("name", "amount"), Reads: salaries},
			{Schema: "hr", Name: "payroll", Columns: cols("employee_id", "region", "amount")},
			{Schema: "hr", Name: "salaries", Columns: cols("employee_id", "amount")},
			{Schema: "hr", Name: "staff", Columns: cols("staff_id", "name")},
			{Schema: "hr", Name: "staff_secret", Columns: cols("staff_id", "name", "clearance"), Parents: parent("staff")},
			{Schema: "hr", Name: "staff_top", Columns: cols("staff_id", "name", "clearance"), Parents: parent("staff_secret")},
			{Schema: "hr", Name: "v_emails", Columns: cols("name", "email"), Reads: reads("hr", "employees", "email", "hr", "employees", "name")},
			{Schema: "hr", Name: "v_headcount", Columns: cols("n"), Reads: reads("hr", "salaries", "")},
			{Schema: "hr", Name: "v_nothing", Columns: cols("one"), Reads: []warehouse.ColumnRef{}},
			{Schema: "hr", Name: "v_over", Columns: cols("name", "amount"), Reads: reads("hr", "v_salaries", "amount", "hr", "v_salaries", "name")},
			{Schema: "hr", Name: "v_payroll", Columns: cols("total"), Reads: reads("hr", "payroll", "amount")},
			{Schema: "hr", Name: "v_people", Columns: cols("employee_id", "name", "country"),
				Reads: reads("hr", "employees", "country", "hr", "employees", "employee_id", "hr", "employees", "name")},
			{Schema: "hr", Name: "v_raw", Columns: cols("a"), Reads: reads("raw", "v", "a")},
			{Schema: "hr", Name: "v_salaries", Columns: cols("name", "amount"), Reads: salaries},
		},
		Partitions: []warehouse.Table{
			{Schema: "hr", Name: "payroll_eu", Columns: cols("employee_id", "region", "amount"), Parents: parent("payroll")},
			{Schema: "hr", Name: "payroll_us", Columns: cols("employee_id", "region", "amount"), Parents: parent("payroll")},
		},
		Related: []warehouse.Table{
			{Schema: "raw", Name: "t"},
			{Schema: "raw", Name: "v", Reads: reads("raw", "t", "a")},
		},
	}
}

// policy is the first policy of an access file holding one.
func policy(t *testing.T, yaml string) warehouse.Access {
	t.Helper()
	rules, err := access.Parse([]byte("policies:\n  - name: p\n" + yaml + "default: p\n"))
	require.NoError(t, err)
	return rules.List()[0]
}

// Decide: views read with their owner's rights, so one a pattern matches
// is allowed only when everything it reads is; a parent is refused with a
// descendant denied; descendants of a denied table are refused unless
// named.
func TestDecide(t *testing.T) {
	t.Parallel()
	analysts := `    tables: ["hr.*"]
    deny_tables: ["hr.salaries", "hr.payroll_eu", "hr.staff_secret"]
    mask_columns: ["hr.employees.email"]
`
	tests := []struct {
		name, policy, table string
		want                bool
	}{
		{"a table the pattern matches", analysts, "employees", true},
		{"a denied table", analysts, "salaries", false},
		{"a view over a denied table", analysts, "v_salaries", false},
		{"a materialized view over a denied table", analysts, "mv_salaries", false},
		{"a view counting a denied table's rows", analysts, "v_headcount", false},
		{"a view over a view over a denied table", analysts, "v_over", false},
		{"a view returning a masked column", analysts, "v_emails", false},
		{"a view over allowed columns", analysts, "v_people", true},
		{"a view that reads nothing", analysts, "v_nothing", true},
		{"a view over another schema the policy does not list", analysts, "v_raw", false},
		{"a view over another schema the policy lists", `    tables: ["hr.*", "raw.*"]
`, "v_raw", true},
		{"a view over a denied table of another schema, through a view", `    tables: ["hr.*", "raw.*"]
    deny_tables: ["raw.t"]
`, "v_raw", false},
		{"the parent of a denied partition", analysts, "payroll", false},
		{"a view over the parent of a denied partition", analysts, "v_payroll", false},
		{"an allowed partition", analysts, "payroll_us", true},
		{"a denied partition", analysts, "payroll_eu", false},
		{"the parent of a denied inheritance child", analysts, "staff", false},
		{"the child of a denied table, matched by a pattern", analysts, "staff_top", false},
		{"the child of a denied table, named", `    tables: ["hr.*", "hr.staff_top"]
    deny_tables: ["hr.staff_secret"]
`, "staff_top", true},
		{"partitions of a denied parent, matched by a pattern", `    tables: ["hr.*"]
    deny_tables: ["hr.payroll"]
`, "payroll_us", false},
		{"a view named exactly, over a denied table", `    tables: ["hr.v_salaries"]
    deny_tables: ["hr.salaries"]
`, "v_salaries", true},
		{"a view named exactly and denied", `    tables: ["hr.v_salaries"]
    deny_tables: ["hr.v_*"]
`, "v_salaries", false},
		{"a view named exactly over a view named exactly", `    tables: ["hr.v_over", "hr.v_salaries"]
`, "v_over", true},
		{"a view by pattern over a view named exactly over a denied table", `    tables: ["hr.v_o*", "hr.v_salaries"]
    deny_tables: ["hr.salaries"]
`, "v_over", true},
		{"a parent named exactly, a descendant denied", `    tables: ["hr.payroll"]
    deny_tables: ["hr.payroll_eu"]
`, "payroll", false},
		{"a table the policy does not list", `    tables: ["hr.employees"]
`, "salaries", false},
	}
	cat := hrCatalog()
	for _, tt := range tests {
		got := warehouse.Decide(cat, policy(t, tt.policy)).AllowsTable("hr", tt.table)
		assert.Equal(t, tt.want, got, tt.name)
	}
}

// Columns a policy denies or masks on a descendant are denied or masked on
// its ancestors, and on descendants a pattern matches.
func TestDecideColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, policy, table, column string
		allowed, masked             bool
	}{
		{"denied on a partition: the parent", `    tables: ["hr.*"]
    deny_columns: ["hr.payroll_eu.amount"]
`, "payroll", "amount", false, false},
		{"denied on a partition: its sibling", `    tables: ["hr.*"]
    deny_columns: ["hr.payroll_eu.amount"]
`, "payroll_us", "amount", true, false},
		{"denied on a partition: another column of the parent", `    tables: ["hr.*"]
    deny_columns: ["hr.payroll_eu.amount"]
`, "payroll", "region", true, false},
		{"denied on the parent: a partition by pattern", `    tables: ["hr.*"]
    deny_columns: ["hr.payroll.amount"]
`, "payroll_us", "amount", false, false},
		{"denied on the parent: a partition named", `    tables: ["hr.*", "hr.payroll_us"]
    deny_columns: ["hr.payroll.amount"]
`, "payroll_us", "amount", true, false},
		{"masked on a child: the parent", `    tables: ["hr.*"]
    mask_columns: ["hr.staff_secret.name"]
`, "staff", "name", true, true},
		{"masked on a grandparent: the grandchild", `    tables: ["hr.*"]
    mask_columns: ["hr.staff.name"]
`, "staff_top", "name", true, true},
		{"a view's own column denied", `    tables: ["hr.*"]
    deny_columns: ["hr.v_people.country"]
`, "v_people", "country", false, false},
		{"a view refused: none of its columns", `    tables: ["hr.*"]
    deny_tables: ["hr.salaries"]
`, "v_salaries", "name", false, false},
	}
	cat := hrCatalog()
	for _, tt := range tests {
		d := warehouse.Decide(cat, policy(t, tt.policy))
		assert.Equal(t, tt.allowed, d.AllowsColumn("hr", tt.table, tt.column), "%s: allowed", tt.name)
		assert.Equal(t, tt.masked, d.MasksColumn("hr", tt.table, tt.column), "%s: masked", tt.name)
	}
}

// Filter and Outside decide alike: what the model is not shown, the guard
// refuses. An Access that cannot say how it matched is read strictly.
func TestFilterAndOutsideDecide(t *testing.T) {
	t.Parallel()
	cat := hrCatalog()
	p := policy(t, `    tables: ["hr.*"]
    deny_tables: ["hr.salaries", "hr.payroll_eu", "hr.staff_secret"]
    deny_columns: ["hr.payroll_us.amount"]
    mask_columns: ["hr.employees.email"]
`)
	var shown []string
	for _, tb := range warehouse.Filter(cat, p).Tables {
		shown = append(shown, tb.Name)
	}
	assert.Equal(t, []string{"employees", "v_nothing", "v_people"}, shown)
	forbidden, denied, masked := warehouse.Outside(cat, p)
	assert.Equal(t, []string{"hr.mv_salaries", "hr.payroll", "hr.salaries", "hr.staff", "hr.staff_secret", "hr.staff_top",
		"hr.v_emails", "hr.v_headcount", "hr.v_over", "hr.v_payroll", "hr.v_raw", "hr.v_salaries", "hr.payroll_eu"}, forbidden)
	assert.Equal(t, []string{"hr.payroll_us.amount"}, denied, "a partition's columns")
	assert.Equal(t, []string{"hr.employees.email"}, masked)

	// The same policy without Match: everything it allows is a pattern's.
	strict := plain{p}
	assert.False(t, warehouse.Decide(cat, strict).AllowsTable("hr", "v_salaries"))
	named := policy(t, `    tables: ["hr.v_salaries"]
`)
	assert.True(t, warehouse.Decide(cat, named).AllowsTable("hr", "v_salaries"))
	assert.False(t, warehouse.Decide(cat, plain{named}).AllowsTable("hr", "v_salaries"), "named, but it cannot say so")
	assert.Nil(t, warehouse.Decide(cat, nil))
}

// plain hides an Access's Match.
type plain struct{ a warehouse.Access }

func (p plain) Policy() string                   { return p.a.Policy() }
func (p plain) AllowsTable(s, t string) bool     { return p.a.AllowsTable(s, t) }
func (p plain) AllowsColumn(s, t, c string) bool { return p.a.AllowsColumn(s, t, c) }
func (p plain) MasksColumn(s, t, c string) bool  { return p.a.MasksColumn(s, t, c) }

// A policy within a channel's ceiling is decided as both: a view the
// ceiling names exactly but the asker's policy only by a pattern is
// decided by what it reads, under both.
func TestDecideWithinACeiling(t *testing.T) {
	t.Parallel()
	rules, err := access.Parse([]byte(`
policies:
  - name: analysts
    users: [UANA]
    tables: ["hr.*"]
    deny_tables: ["hr.salaries"]
    mask_columns: ["hr.employees.email"]
  - name: everyone
    tables: ["hr.employees", "hr.v_people", "hr.v_salaries"]
channel_ceilings:
  - channels: [C0GENERAL]
    policy: everyone
default: everyone
`))
	require.NoError(t, err)
	analysts, _ := rules.Admit(t.Context(), access.Who{UserID: "UANA", ChannelID: "C0DATA"})
	within := rules.Shared(access.Who{UserID: "UANA", ChannelID: "C0GENERAL"}, analysts)
	require.NotNil(t, within)
	d := warehouse.Decide(hrCatalog(), within)
	for table, want := range map[string]bool{
		"employees":  true,  // both allow it
		"v_people":   true,  // everyone names it, analysts allow all it reads
		"v_salaries": false, // everyone names it, but analysts' pattern does not reach the salaries
		"salaries":   false,
		"payroll":    false, // beyond the ceiling
	} {
		assert.Equal(t, want, d.AllowsTable("hr", table), table)
	}
	assert.True(t, d.MasksColumn("hr", "employees", "email"), "masked where either masks")
}
