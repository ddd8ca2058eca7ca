package grounding

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// describe lists tables as the SQL dialect does.
func describe(tables []warehouse.Table) string {
	var b strings.Builder
	for _, t := range tables {
		b.WriteString("\nTABLE " + t.QualifiedName())
		if t.Comment != "" {
			b.WriteString(" -- " + t.Comment)
		}
		b.WriteByte('\n')
		for _, c := range t.Columns {
			b.WriteString("  " + c.Name + " " + c.Type + "\n")
		}
	}
	return b.String()
}

func table(schema, name, comment string, columns ...string) warehouse.Table {
	t := warehouse.Table{Schema: schema, Name: name, Comment: comment}
	for _, c := range columns {
		t.Columns = append(t.Columns, warehouse.TableColumn{Name: c, Type: "integer"})
	}
	return t
}

// steam is a catalog shaped like the demo's, with filler tables that make
// it too big for a small budget.
func steam(filler int) *warehouse.Catalog {
	cat := &warehouse.Catalog{Tables: []warehouse.Table{
		table("analytics", "apps", "One row per game on the Steam store.", "app_id", "name", "release_date", "release_year", "price", "positive_ratings"),
		table("analytics", "publishers", "Game publishers.", "publisher_id", "name"),
		table("analytics", "app_publishers", "Links games and publishers.", "app_id", "publisher_id"),
		table("analytics", "genres", "Store genres.", "genre_id", "name"),
		table("analytics", "app_genres", "Links games and genres.", "app_id", "genre_id"),
		table("analytics", "categories", "Store feature categories.", "category_id", "name"),
		table("analytics", "app_categories", "", "app_id", "category_id"),
	}}
	for i := range filler {
		cat.Tables = append(cat.Tables, table("ops", fmt.Sprintf("audit_log_%03d", i), "Internal audit records of the warehouse jobs.",
			"entry_id", "created_at", "job_name", "status", "duration_ms", "host", "attempt", "message"))
	}
	return cat
}

func names(c Context) []string {
	var out []string
	for _, t := range c.Tables {
		out = append(out, t.QualifiedName())
	}
	return out
}

func TestWholeCatalogWhenItFits(t *testing.T) {
	t.Parallel()
	cat := steam(0)
	c := Build(cat, describe, Request{Question: "How many games were released in 2018?"})
	assert.True(t, c.Whole, "a small catalog is shown whole")
	assert.Equal(t, describe(cat.Tables), c.Catalog, "exactly as the dialect describes it, in catalog order")
	assert.Equal(t, c.WholeTokens, c.Tokens)
	assert.Empty(t, c.Others)
}

func TestRankingWithinTheBudget(t *testing.T) {
	t.Parallel()
	cat := steam(200)
	tests := []struct {
		name      string
		req       Request
		wantFirst []string // in this order, at the head of the chosen tables
		wantAlso  []string
		wantNot   []string
	}{
		{name: "words of the question, then what they join", req: Request{Question: "Which publishers released the most games?", Budget: 400},
			wantFirst: []string{"analytics.publishers", "analytics.app_publishers", "analytics.apps"},
			wantNot:   []string{"analytics.categories", "ops.audit_log_000"}},
		{name: "camelCase and plurals", req: Request{Question: "Average price per genre", Budget: 400},
			wantAlso: []string{"analytics.genres", "analytics.app_genres", "analytics.apps"}},
		{name: "a follow-up keeps the earlier query's tables", req: Request{Question: "And in 2017?", Budget: 300,
			Earlier: []string{"SELECT count(*) FROM analytics.app_categories ac JOIN analytics.categories c USING (category_id)"}},
			wantAlso: []string{"analytics.app_categories", "analytics.categories"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Build(cat, describe, tt.req)
			require.False(t, c.Whole)
			got := names(c)
			if len(tt.wantFirst) > 0 {
				require.GreaterOrEqual(t, len(got), len(tt.wantFirst), "chosen %v", got)
				assert.Equal(t, tt.wantFirst, got[:len(tt.wantFirst)], "best first: %v", got)
			}
			for _, w := range tt.wantAlso {
				assert.Contains(t, got, w, "chosen %v", got)
			}
			for _, w := range tt.wantNot {
				assert.NotContains(t, got, w, "chosen %v", got)
			}
			assert.LessOrEqual(t, c.Tokens, tt.req.Budget, "within the budget")
			assert.Equal(t, len(cat.Tables), len(c.Tables)+len(c.Others)+c.Omitted, "every table described, named or counted")
			assert.Equal(t, c.Tokens, llm.EstimateTokens(c.Catalog))
		})
	}
}

func TestReasonsAndJoins(t *testing.T) {
	t.Parallel()
	cat := steam(100)
	cat.Tables[1].ForeignKeys = nil
	// A declared key joins too.
	cat.Tables = append(cat.Tables, table("analytics", "reviews", "User reviews.", "review_id", "game", "stars"))
	cat.Tables[len(cat.Tables)-1].ForeignKeys = []warehouse.ForeignKey{{Columns: []string{"game"}, RefSchema: "analytics", RefTable: "apps", RefColumns: []string{"app_id"}}}
	c := Build(cat, describe, Request{Question: "Show stars of reviews", Budget: 500})
	byName := map[string]Table{}
	for _, tb := range c.Tables {
		byName[tb.QualifiedName()] = tb
	}
	require.Contains(t, byName, "analytics.reviews")
	assert.Equal(t, []string{"question: star, review"}, byName["analytics.reviews"].Reasons)
	require.Contains(t, byName, "analytics.apps", "the declared key's target")
	assert.Contains(t, byName["analytics.apps"].Reasons, "joins analytics.reviews")
}

func TestOthersAreNamedWhileRoomRemains(t *testing.T) {
	t.Parallel()
	cat := steam(40)
	c := Build(cat, describe, Request{Question: "Which publishers released the most games?", Budget: 450})
	require.NotEmpty(t, c.Others, "room left names other tables")
	assert.Contains(t, c.Catalog, "\nOther tables, not described here: "+c.Others[0])
	for _, o := range c.Others {
		assert.False(t, slices.Contains(names(c), o), "%s is described and named", o)
	}
	assert.LessOrEqual(t, c.Tokens, 450, "within the budget")
}

func TestCubeMembers(t *testing.T) {
	t.Parallel()
	cube := func(name string, members ...string) warehouse.Table {
		t := warehouse.Table{Name: name}
		for _, m := range members {
			t.Columns = append(t.Columns, warehouse.TableColumn{Name: name + "." + m, Type: "number"})
		}
		return t
	}
	cat := &warehouse.Catalog{Tables: []warehouse.Table{cube("Apps", "count", "averagePrice", "releaseYear"), cube("Publishers", "name")}}
	for i := range 100 {
		cat.Tables = append(cat.Tables, cube(fmt.Sprintf("Filler%d", i), "jobCount", "hostName", "durationMs", "attemptNumber"))
	}
	c := Build(cat, describe, Request{Question: "What is the average price of games released in 2018?", Budget: 100})
	require.NotEmpty(t, c.Tables)
	assert.Equal(t, "Apps", c.Tables[0].Name, "members' own words rank their cube")
}

func TestWords(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"release", "year", "release", "date", "category", "box", "game", "status"},
		words("releaseYear release_date CATEGORIES boxes games status"))
	assert.Equal(t, []string{"game", "publisher", "release", "2018", "ubisoft"},
		terms("How many games did the publishers release in 2018 for Ubisoft? Games!"))
}

// A table that links two relevant tables comes along even when nothing in
// the question names it: without it they cannot be joined.
func TestBridgeTables(t *testing.T) {
	t.Parallel()
	cat := steam(100)
	bridge := table("analytics", "ownership", "", "left_key", "right_key")
	bridge.ForeignKeys = []warehouse.ForeignKey{
		{Columns: []string{"left_key"}, RefSchema: "analytics", RefTable: "apps", RefColumns: []string{"app_id"}},
		{Columns: []string{"right_key"}, RefSchema: "analytics", RefTable: "publishers", RefColumns: []string{"publisher_id"}},
	}
	cat.Tables = append(cat.Tables, bridge)
	c := Build(cat, describe, Request{Question: "Which publishers released games priced over 10?", Budget: 400})
	byName := map[string]Table{}
	for _, tb := range c.Tables {
		byName[tb.QualifiedName()] = tb
	}
	require.Contains(t, byName, "analytics.ownership", "chosen: %v", names(c))
	assert.Equal(t, []string{"links analytics.publishers and analytics.apps"}, byName["analytics.ownership"].Reasons)

	// Linking one relevant table is not enough.
	c = Build(cat, describe, Request{Question: "What is the average price?", Budget: 400})
	for _, tb := range c.Tables {
		if tb.Name == "ownership" {
			assert.Zero(t, tb.Score, "it links one relevant table: %v", tb.Reasons)
		}
	}
}
