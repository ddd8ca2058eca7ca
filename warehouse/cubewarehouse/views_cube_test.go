package cubewarehouse_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/cube/cubetest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
)

// viewsModel has two cubes and a view of one of them.
const viewsModel = `cubes:
  - name: Employees
    sql: SELECT 1 AS id, 'Ann' AS name
    measures:
      - name: count
        type: count
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
      - name: name
        sql: name
        type: string
  - name: Salaries
    sql: SELECT 1 AS id, 100 AS amount
    measures:
      - name: total
        sql: amount
        type: sum
    dimensions:
      - name: id
        sql: id
        type: number
        primary_key: true
views:
  - name: People
    cubes:
      - join_path: Employees
        includes: [name, count]
`

// docs/access.md, Cube views: Cube 0.33.65's /meta names no aliasMember
// for a view's members, so what a view reads is unknown to the bot there.
// A policy that matches the view by a pattern (cube.*) is refused it,
// though it shows only a cube the policy allows; one that names the view
// exactly reads it.
func TestViewsOnCube033(t *testing.T) {
	t.Parallel()
	_, url := storetest.NewWithURL(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "views.yml"), []byte(viewsModel), 0o600))
	srv := cubetest.Start(t, url, cubetest.WithModelDir(dir))
	client, err := cube.New(cube.Config{APIURL: srv.URL, Secret: srv.Secret})
	require.NoError(t, err)

	m, err := client.Meta(context.Background())
	require.NoError(t, err)
	for _, c := range m.Cubes {
		if c.Name == "People" {
			require.True(t, c.View)
			for _, mem := range append(c.Measures, c.Dimensions...) {
				assert.Empty(t, mem.AliasMember, "Cube %s names what %s stands for: docs/access.md is out of date", cubetest.Version, mem.Name)
			}
		}
	}

	rules, err := access.Parse([]byte(`
policies:
  - name: pattern
    users: [UPAT]
    tables: ["cube.*"]
    deny_tables: ["cube.Salaries"]
  - name: named
    tables: ["cube.People"]
default: named
`))
	require.NoError(t, err)
	as := func(user string) context.Context {
		p, err := rules.Admit(t.Context(), access.Who{UserID: user, ChannelID: "C1"})
		require.NoError(t, err)
		return warehouse.WithCaller(context.Background(), warehouse.Caller{UserID: user, Access: p})
	}
	b := cubewarehouse.New(client, cubewarehouse.Config{})
	const query = `{"measures": ["People.count"], "dimensions": ["People.name"]}`

	ctx := as("UPAT")
	cat, err := b.Catalog(ctx)
	require.NoError(t, err)
	var shown []string
	for _, tb := range cat.Tables {
		shown = append(shown, tb.Name)
	}
	assert.Equal(t, []string{"Employees"}, shown, "what the pattern policy's generator is shown")
	_, err = b.Check(ctx, query, 100)
	assert.Equal(t, warehouse.Forbidden, warehouse.KindOf(err), "%v", err)
	assert.ErrorContains(t, err, "you may not read the cube People")

	ctx = as("UNAMED")
	r, err := b.Check(ctx, query, 100)
	require.NoError(t, err, "the view named exactly")
	res, err := b.Run(ctx, r)
	require.NoError(t, err, "Cube's log:\n%s", srv.Log())
	assert.Equal(t, [][]any{{"Ann", int64(1)}}, res.Rows)
}
