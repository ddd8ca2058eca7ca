package cubewarehouse

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A Cube query naming a cube or member outside the caller's policy is
// refused wherever it names it; policies name cubes cube.<Cube>.
func TestPermitted(t *testing.T) {
	t.Parallel()
	ctx := callerUnder(t, `
policies:
  - name: p
    tables: ["cube.Apps", "cube.Genres"]
    deny_columns: ["cube.Apps.price"]
    mask_columns: ["cube.Apps.name"]
default: p
`, "U1")
	p := warehouse.CallerOf(ctx).Access

	tests := []struct {
		name string
		q    cube.Query
		want string
	}{
		{"allowed", cube.Query{Measures: []string{"Apps.count"}, Dimensions: []string{"Genres.name"}}, ""},
		{"another cube", cube.Query{Measures: []string{"Publishers.count"}}, "you may not read the cube Publishers"},
		{"a denied member", cube.Query{Measures: []string{"Apps.price"}}, "you may not read Apps.price"},
		{"in a filter", cube.Query{Measures: []string{"Apps.count"},
			Filters: []cube.Filter{{Or: []cube.Filter{{Member: "Apps.price", Operator: "gt", Values: []any{"10"}}}}}}, "you may not read Apps.price"},
		{"in the order", cube.Query{Measures: []string{"Apps.count"}, Order: cube.Order{{Member: "Apps.price", Direction: "desc"}}}, "you may not read Apps.price"},
		{"a time dimension", cube.Query{Measures: []string{"Apps.count"}, TimeDimensions: []cube.TimeDimension{{Dimension: "Reviews.date"}}}, "the cube Reviews"},
		{"a masked member filters", cube.Query{Measures: []string{"Apps.count"},
			Filters: []cube.Filter{{Member: "Apps.name", Operator: "contains", Values: []any{"Portal"}}}}, ""},
		{"a masked member returned", cube.Query{Measures: []string{"Apps.count"}, Dimensions: []string{"Apps.name"}}, "never be returned"},
	}
	for _, tt := range tests {
		err := permitted(ctx, nil, tt.q)
		if tt.want == "" {
			assert.NoError(t, err, tt.name)
			continue
		}
		want := warehouse.Forbidden
		if strings.Contains(tt.want, "never be returned") {
			want = warehouse.Invalid // the generator can leave it out
		}
		assert.Equal(t, want, warehouse.KindOf(err), tt.name)
		assert.ErrorContains(t, err, tt.want, tt.name)
	}
	assert.NoError(t, permitted(context.Background(), nil, cube.Query{Measures: []string{"Publishers.count"}}), "no policy: no limits")

	cat := warehouse.Filter(&warehouse.Catalog{Tables: []warehouse.Table{
		{Name: "Apps", Columns: []warehouse.TableColumn{{Name: "Apps.count"}, {Name: "Apps.price"}}},
		{Name: "Publishers", Columns: []warehouse.TableColumn{{Name: "Publishers.count"}}},
	}}, p)
	require.Len(t, cat.Tables, 1, "the catalog the model sees")
	assert.Equal(t, []warehouse.TableColumn{{Name: "Apps.count"}}, cat.Tables[0].Columns)

	masked := warehouse.Filter(&warehouse.Catalog{Tables: []warehouse.Table{
		{Name: "Apps", Columns: []warehouse.TableColumn{{Name: "Apps.name", Comment: "The title."}}}}}, p)
	assert.Equal(t, "The title. Masked: filter, group, order or count by it (count(DISTINCT …)); never select it.",
		masked.Tables[0].Columns[0].Comment, "the model is told how it may use a masked column")
}

// A Cube view reads its members' cubes with the model's rights: one a
// policy's pattern matches is refused when it stands for a cube or member
// the policy denies or masks, or for members /meta names no alias for;
// one the policy names exactly is allowed.
func TestViewsOfDeniedCubes(t *testing.T) {
	t.Parallel()
	m, err := cube.ParseMeta([]byte(`{"cubes": [
	  {"name": "Employees", "type": "cube", "measures": [{"name": "Employees.count", "type": "number", "aggType": "count"}],
	   "dimensions": [{"name": "Employees.name", "type": "string"}, {"name": "Employees.email", "type": "string"}]},
	  {"name": "Salaries", "type": "cube", "measures": [{"name": "Salaries.total", "type": "number", "aggType": "sum"}]},
	  {"name": "People", "type": "view", "dimensions": [{"name": "People.name", "type": "string", "aliasMember": "Employees.name"}]},
	  {"name": "Pay", "type": "view", "measures": [{"name": "Pay.total", "type": "number", "aliasMember": "Salaries.total"}],
	   "dimensions": [{"name": "Pay.name", "type": "string", "aliasMember": "Employees.name"}]},
	  {"name": "Contacts", "type": "view", "dimensions": [{"name": "Contacts.email", "type": "string", "aliasMember": "employees.Employees.email"}]},
	  {"name": "Legacy", "type": "view", "measures": [{"name": "Legacy.count", "type": "number"}]},
	  {"name": "Staff", "type": "view", "measures": [{"name": "Staff.count", "type": "number", "aliasMember": "Employees.count"}],
	   "segments": [{"name": "Staff.well_paid"}]},
	  {"name": "Named", "type": "view", "measures": [{"name": "Named.count", "type": "number", "aliasMember": "Employees.count"}],
	   "segments": [{"name": "Named.well_paid", "aliasMember": "Salaries.well_paid"}]}
	]}`))
	require.NoError(t, err)
	cat := catalogOf(m)
	reads := map[string][]warehouse.ColumnRef{}
	for _, tb := range cat.Tables {
		reads[tb.Name] = tb.Reads
	}
	assert.Equal(t, []warehouse.ColumnRef{{Table: "Salaries", Column: "Salaries.total"}, {Table: "Employees", Column: "Employees.name"}},
		reads["Pay"], "what Pay reads")
	assert.Equal(t, []warehouse.ColumnRef{{Table: "Employees", Column: "Employees.count"}, {Column: "Staff.well_paid"}},
		reads["Staff"], "what Staff reads: its segment, unknown")
	assert.Equal(t, []warehouse.ColumnRef{{Table: "Employees", Column: "Employees.count"}, {Table: "Salaries", Column: "Salaries.well_paid"}},
		reads["Named"], "what Named reads, its segment's alias given")

	rules, err := access.Parse([]byte(`
policies:
  - name: limited
    users: [U1]
    tables: ["cube.*"]
    deny_tables: ["cube.Salaries"]
    mask_columns: ["cube.Employees.email"]
  - name: summary
    tables: ["cube.Pay", "cube.Legacy"]
default: summary
`))
	require.NoError(t, err)
	limited, summary := rules.List()[0], rules.List()[1]
	var shown []string
	for _, tb := range warehouse.Filter(cat, limited).Tables {
		shown = append(shown, tb.Name)
	}
	assert.Equal(t, []string{"Employees", "People"}, shown, "what the limited policy's model sees")
	ctx := warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: "U1", Access: limited})
	for q, want := range map[string]string{
		"Pay.total":       "you may not read the cube Pay",
		"Contacts.email":  "you may not read the cube Contacts",
		"Legacy.count":    "you may not read the cube Legacy",
		"Staff.count":     "you may not read the cube Staff", // its segment may read Salaries: /meta does not say
		"Named.count":     "you may not read the cube Named", // its segment stands for one of Salaries
		"Salaries.total":  "you may not read the cube Salaries",
		"Employees.count": "",
	} {
		err := permitted(ctx, cat, cube.Query{Measures: []string{q}})
		if want == "" {
			assert.NoError(t, err, q)
			continue
		}
		assert.Equal(t, warehouse.Forbidden, warehouse.KindOf(err), q)
		assert.ErrorContains(t, err, want, q)
	}
	ctx = warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: "U2", Access: summary})
	assert.NoError(t, permitted(ctx, cat, cube.Query{Measures: []string{"Pay.total"}}), "a view named exactly")
	assert.NoError(t, permitted(ctx, cat, cube.Query{Measures: []string{"Legacy.count"}}))

	// Another person's query shown (warehouse.PermitsShown): the same
	// views, their masked members denied.
	shownCtx := warehouse.ShownCaller(ctx)
	assert.NoError(t, permitted(shownCtx, cat, cube.Query{Measures: []string{"Pay.total"}}), "a view named exactly, shown")
	assert.NoError(t, permitted(shownCtx, cat, cube.Query{Measures: []string{"Legacy.count"}}), "shown")
	shownCtx = warehouse.ShownCaller(warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: "U1", Access: limited}))
	assert.NoError(t, permitted(shownCtx, cat, cube.Query{Measures: []string{"Employees.count"}}), "shown")
	err = permitted(shownCtx, cat, cube.Query{Measures: []string{"Employees.count"},
		Filters: []cube.Filter{{Member: "Employees.email", Operator: "equals", Values: []any{"ann@corp.test"}}}})
	assert.Equal(t, warehouse.Forbidden, warehouse.KindOf(err), "a masked member filtered, shown to one who may not read it")
	assert.NoError(t, permitted(ctx, cat, cube.Query{Measures: []string{"Pay.total"}}), "their own query")
}

// A caller's Values are never of a member their policy masks or denies.
func TestValuesUnderAPolicy(t *testing.T) {
	t.Parallel()
	const rules = `
policies:
  - name: masked
    tables: ["cube.Apps"]
    mask_columns: ["cube.Apps.name"]
  - name: open
    users: [UOPEN]
    tables: ["cube.Apps"]
default: masked
`
	fc := &fakeCube{}
	b := New(fc, Config{})
	col := warehouse.ColumnRef{Table: "Apps", Column: "Apps.name"}
	as := func(user string) context.Context { return callerUnder(t, rules, user) }
	got, err := b.Values(as("UOPEN"), col, 5)
	require.NoError(t, err)
	assert.Len(t, got.Distinct, 5)
	got, err = b.Values(as("UZED"), col, 5)
	assert.ErrorContains(t, err, "never be returned")
	assert.Empty(t, got)
	assert.Len(t, fc.loaded, 1, "nothing asked of Cube for the masked member")
}

// policyModel has the cubes Apps, AppTags and Publishers.
const policyModel = `{"cubes": [
  {"name": "Apps", "measures": [{"name": "Apps.count", "type": "number", "aggType": "count"},
    {"name": "Apps.negative_ratings", "type": "number", "aggType": "sum"}, {"name": "Apps.positive_ratings", "type": "number", "aggType": "sum"}],
   "dimensions": [{"name": "Apps.name", "type": "string"}, {"name": "Apps.release_date", "type": "time"}]},
  {"name": "AppTags", "measures": [{"name": "AppTags.count", "type": "number", "aggType": "count"}]},
  {"name": "Publishers", "measures": [{"name": "Publishers.count", "type": "number", "aggType": "count"}],
   "dimensions": [{"name": "Publishers.name", "type": "string"}, {"name": "Publishers.founded", "type": "time"}]}]}`

// A caller's refusals name only what their policy lets them read
// (docs/access.md): the generator's retry and an MCP client read the
// refusal, so a misspelt member is offered the allowed members alone, an
// unknown cube lists the allowed cubes alone, and Cube's own messages keep
// the names of the allowed part of the model alone. A forbidden cube or
// member named exactly is refused as access_denied, as before.
func TestRefusalsNameOnlyWhatThePolicyReads(t *testing.T) {
	t.Parallel()
	ctx := callerUnder(t, `
policies:
  - name: apps
    tables: ["cube.Apps"]
    deny_columns: ["cube.Apps.negative_ratings"]
default: apps
`, "U1")
	forbidden := []string{"negative_ratings", "AppTags", "Publishers"}

	tests := []struct {
		name, query string
		kind        warehouse.ErrorKind
		want        string
		allowed     bool // the refusal may name what the query named
	}{
		{"a misspelt member", `{"measures": ["Apps.negative_rating"]}`, warehouse.Invalid,
			"'Apps.negative_rating' is not a member; did you mean 'Apps.positive_ratings'?", false},
		{"a misspelt cube", `{"measures": ["AppTag.count"]}`, warehouse.Invalid,
			"'AppTag.count' is not a member: there is no cube 'AppTag'; the cubes are 'Apps'", false},
		{"a misspelt cube near an allowed one", `{"measures": ["Appz.count"]}`, warehouse.Invalid,
			"there is no cube 'Appz'; did you mean 'Apps'?", false},
		{"an unknown cube far from any", `{"measures": ["Sales.count"]}`, warehouse.Invalid,
			"'Sales.count' is not a member: there is no cube 'Sales'; the cubes are 'Apps'", false},
		{"a member written loosely", `{"measures": ["apps.negativeRatings"]}`, warehouse.Invalid,
			"'apps.negativeRatings' is not a member; did you mean 'Apps.positive_ratings'?", false},
		{"a denied member named exactly", `{"measures": ["Apps.negative_ratings"]}`, warehouse.Forbidden,
			"you may not read Apps.negative_ratings", true},
		{"a forbidden cube named exactly", `{"measures": ["Apps.count"], "dimensions": ["Publishers.nam"]}`, warehouse.Forbidden,
			"you may not read the cube Publishers", true},
		{"a forbidden time dimension with a granularity", `{"measures": ["Apps.count"], "dimensions": ["Publishers.founded.year"]}`,
			warehouse.Forbidden, "you may not read the cube Publishers", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := New(&fakeCube{models: []string{policyModel}}, Config{})
			_, err := b.Check(ctx, tt.query, 100)
			require.Error(t, err)
			assert.Equal(t, tt.kind, warehouse.KindOf(err), "%v", err)
			var we *warehouse.Error
			require.ErrorAs(t, err, &we)
			assert.Contains(t, we.Reason, tt.want, "what the generator and an MCP client read")
			if !tt.allowed {
				for _, f := range forbidden {
					assert.NotContains(t, we.Reason, f, "a name the policy keeps from the caller")
				}
			}
		})
	}

	t.Run("Cube's own message", func(t *testing.T) {
		t.Parallel()
		for msg, want := range map[string]string{
			`cannot group by "negative_ratings"`: `cannot group by "…"`,
			`cannot join "AppTags"`:              `cannot join "…"`,
			`cannot join "Publishers.name"`:      `cannot join "…"`,
			`cannot join "Apps.name"`:            `cannot join "Apps.name"`,
		} {
			fc := &fakeCube{models: []string{policyModel}, refuse: &cube.QueryError{Message: msg}}
			b := New(fc, Config{})
			r, err := b.Check(ctx, `{"measures": ["Apps.count"]}`, 100)
			require.NoError(t, err)
			_, err = b.Run(ctx, r)
			var we *warehouse.Error
			require.ErrorAs(t, err, &we)
			assert.Equal(t, want, we.Reason, "Cube's %s, to the caller", msg)

			_, err = b.Run(context.Background(), r)
			require.ErrorAs(t, err, &we)
			assert.Equal(t, msg, we.Reason, "no policy: the model's every name kept")
		}
	})
}

// In Cube a masked member can only filter: a member grouped by is
// returned, and one ordered by must be selected. The catalog the
// generator is shown says so, and a query grouping or ordering by one is
// refused in those words, not told to select it (docs/access.md).
func TestMaskedMembersOnlyFilter(t *testing.T) {
	t.Parallel()
	ctx := callerUnder(t, `
policies:
  - name: masked
    tables: ["cube.Apps"]
    mask_columns: ["cube.Apps.name"]
default: masked
`, "U1")
	b := New(&fakeCube{}, Config{})

	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	require.Len(t, cat.Tables, 1)
	var note string
	for _, c := range cat.Tables[0].Columns {
		if c.Name == "Apps.name" {
			note = c.Comment
		}
	}
	assert.Equal(t, "Masked: use it only in filters (a time dimension also in timeDimensions with a dateRange and no granularity); never in measures, dimensions or order.",
		note, "what the generator is told of the masked member")

	for name, query := range map[string]string{
		"grouped by":              `{"measures": ["Apps.count"], "dimensions": ["Apps.name"]}`,
		"ordered by, unselected":  `{"measures": ["Apps.count"], "order": {"Apps.name": "asc"}}`,
		"ordered by and selected": `{"dimensions": ["Apps.name"], "order": {"Apps.name": "asc"}}`,
	} {
		_, err := b.Check(ctx, query, 100)
		assert.Equal(t, warehouse.Invalid, warehouse.KindOf(err), "%s: %v", name, err)
		assert.ErrorContains(t, err, "Apps.name is masked: it may only filter the query", name)
		assert.NotContains(t, err.Error(), "add it to measures or dimensions", name)
	}
	_, err = b.Check(ctx, `{"measures": ["Apps.count"], "filters": [{"member": "Apps.name", "operator": "contains", "values": ["Portal"]}]}`, 100)
	assert.NoError(t, err, "filtered by")
}

// callerUnder is a context of user (in channel C1) under the policy the
// access file rules gives them.
func callerUnder(t *testing.T, rules, user string) context.Context {
	t.Helper()
	parsed, err := access.Parse([]byte(rules))
	require.NoError(t, err)
	p, err := parsed.Admit(t.Context(), access.Who{UserID: user, ChannelID: "C1"})
	require.NoError(t, err)
	return warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: user, Access: p})
}
