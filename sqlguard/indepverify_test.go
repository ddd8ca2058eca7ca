package sqlguard

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestIndepVerifyResolvesNamesLikePostgres checks the fuzz oracle's name
// resolution against PostgreSQL itself: indepVerify must report a catalog
// read exactly when the server's plan scans pg_authid, the table behind the
// pg_user view. Every CTE in the cases is referenced, so the server plans it.
func TestIndepVerifyResolvesNamesLikePostgres(t *testing.T) {
	t.Parallel()
	const cte = "pg_user AS (SELECT 'cte'::name AS usename)"
	tests := []struct {
		name         string
		sql          string
		readsCatalog bool
	}{
		{"catalog view", "SELECT usename FROM pg_user", true},
		{"cte shadows the catalog", "WITH " + cte + " SELECT usename FROM pg_user", false},
		{"schema-qualified name is the catalog", "WITH " + cte + " SELECT u.usename FROM pg_user, pg_catalog.pg_user u", true},
		{"cte body does not see itself", "WITH pg_user AS (SELECT usename FROM pg_user) SELECT usename FROM pg_user", true},
		{"cte body does not see later ctes", "WITH a AS (SELECT usename FROM pg_user), " + cte + " SELECT usename FROM a", true},
		{"cte body sees earlier ctes", "WITH " + cte + ", a AS (SELECT usename FROM pg_user) SELECT usename FROM a", false},
		{"recursive cte body sees later ctes", "WITH RECURSIVE a AS (SELECT usename FROM pg_user), " + cte + " SELECT usename FROM a", false},
		{"cte visible in subqueries", "WITH " + cte + " SELECT (SELECT usename FROM pg_user)", false},
		{"cte visible in every union arm", "WITH " + cte + " SELECT usename FROM pg_user UNION ALL SELECT usename FROM pg_user", false},
		{"cte scope ends with its statement", "SELECT u.usename FROM (WITH " + cte + " SELECT usename FROM pg_user) s, pg_user u", true},
		{"inner cte body sees the outer cte", "WITH " + cte + " SELECT * FROM (WITH pg_user AS (SELECT usename FROM pg_user) SELECT usename FROM pg_user) s", false},
	}
	_, dbURL := storetest.NewWithURL(t)
	conn, err := pgx.Connect(t.Context(), dbURL)
	require.NoError(t, err, "connect to the test database")
	t.Cleanup(func() { _ = conn.Close(context.Background()) })

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := conn.Query(t.Context(), "EXPLAIN (VERBOSE, COSTS OFF) "+tt.sql)
			require.NoError(t, err)
			plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
			require.NoError(t, err)
			scansCatalog := strings.Contains(strings.Join(plan, "\n"), "pg_catalog.pg_authid")
			require.Equal(t, tt.readsCatalog, scansCatalog, "the case's expectation disagrees with PostgreSQL's plan:\n%s", strings.Join(plan, "\n"))

			err = indepVerify(tt.sql, nil, nil)
			assert.Equal(t, tt.readsCatalog, err != nil, "indepVerify(%q) = %v, want a catalog read reported: %v", tt.sql, err, tt.readsCatalog)
		})
	}
}
