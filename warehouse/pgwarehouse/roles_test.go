package pgwarehouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// rolesSetup is a schema with a table everyone may read, one with a
// column some may not, and one only the full policy may.
const rolesSetup = `
CREATE SCHEMA acc;
CREATE TABLE acc.orders (id int, customer_id int, amount int);
CREATE TABLE acc.customers (id int, name text, email text);
CREATE TABLE acc.salaries (id int, amount int);
INSERT INTO acc.orders VALUES (1, 1, 10), (2, 2, 20);
INSERT INTO acc.customers VALUES (1, 'Ana', 'ana@example.com'), (2, 'Bob', 'bob@example.com');
INSERT INTO acc.salaries VALUES (1, 1000000);
`

const rolesPolicies = `
policies:
  - name: full
    users: [UADMIN]
    tables: ["acc.*"]
  - name: analysts
    users: [UANA]
    tables: ["acc.*"]
    deny_tables: ["acc.salaries"]
    deny_columns: ["acc.customers.email"]
  - name: Everyone Else
    tables: ["acc.orders"]
default: Everyone Else
`

// TestPolicyRolesAlone: with the guard out of the way, the database alone
// holds each policy: its role reads what the policy allows and PostgreSQL
// refuses the rest (42501), however the query reaches for it. Applying
// again after the file changed takes away what it no longer allows.
func TestPolicyRolesAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, rolesSetup)
	require.NoError(t, err)
	rules, err := access.Parse([]byte(rolesPolicies))
	require.NoError(t, err)
	policies := rules.List()
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_roles_" + hex.EncodeToString(suffix[:]) // roles are cluster-wide: one set per test run
	roles, err := pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"acc"}, policies)
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, r := range roles {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})
	assert.Equal(t, reader+"_everyone_else", roles["Everyone Else"], "a policy's name made a role name")
	missing, err := pgwarehouse.MissingRoles(ctx, url, []string{roles["full"], roles["analysts"], reader + "_nobody"})
	require.NoError(t, err)
	assert.Equal(t, []string{reader + "_nobody"}, missing)

	// Applying twice is the same as once.
	_, err = pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"acc"}, policies)
	require.NoError(t, err)

	cases := []struct {
		name, sql string
		ok        [3]bool // full, analysts, everyone else
	}{
		{"allowed table", "SELECT count(*) FROM acc.orders", [3]bool{true, true, true}},
		{"forbidden table", "SELECT count(*) FROM acc.salaries", [3]bool{true, false, false}},
		{"allowed column", "SELECT count(name) FROM acc.customers", [3]bool{true, true, false}},
		{"forbidden column", "SELECT email FROM acc.customers", [3]bool{true, false, false}},
		{"forbidden column in WHERE", "SELECT name FROM acc.customers WHERE email LIKE 'a%'", [3]bool{true, false, false}},
		{"select star", "SELECT * FROM acc.customers", [3]bool{true, false, false}},
		{"whole row", "SELECT row_to_json(c) FROM acc.customers c", [3]bool{true, false, false}},
		{"join through a forbidden table", "SELECT o.id FROM acc.orders o JOIN acc.salaries s ON s.id = o.id", [3]bool{true, false, false}},
		{"subquery through a forbidden table", "SELECT count(*) FROM acc.orders WHERE id IN (SELECT id FROM acc.salaries)", [3]bool{true, false, false}},
		{"CTE through a forbidden column", "WITH e AS (SELECT email FROM acc.customers) SELECT count(*) FROM e", [3]bool{true, false, false}},
		{"a function that runs other SQL", "SELECT query_to_xml('SELECT * FROM acc.salaries', true, true, '')", [3]bool{true, false, false}},
	}
	names := []string{"full", "analysts", "Everyone Else"}
	for p, policy := range names {
		exec := newExec(t, url, pgwarehouse.ExecConfig{Role: roles[policy], Schemas: []string{"acc"}})
		for _, c := range cases {
			_, err := exec.Query(ctx, c.sql)
			if c.ok[p] {
				assert.NoError(t, err, "%s as %s", c.name, policy)
				continue
			}
			var pgErr *pgconn.PgError
			if assert.True(t, errors.As(err, &pgErr), "%s as %s: got %v, want the database's refusal", c.name, policy, err) {
				assert.Equal(t, "42501", pgErr.Code, "%s as %s: %s", c.name, policy, pgErr.Message)
			}
		}
	}

	// The file changes: the analysts lose customers altogether.
	narrower, err := access.Parse([]byte(`
policies:
  - name: analysts
    tables: ["acc.orders"]
default: analysts
`))
	require.NoError(t, err)
	_, err = pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"acc"}, []warehouse.Access{narrower.List()[0]})
	require.NoError(t, err)
	exec := newExec(t, url, pgwarehouse.ExecConfig{Role: roles["analysts"], Schemas: []string{"acc"}})
	_, err = exec.Query(ctx, "SELECT count(name) FROM acc.customers")
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr, "a column grant taken back")
	assert.Equal(t, "42501", pgErr.Code)
}

// A backend with policy roles answers each caller as their policy's role:
// the database refuses what the policy does not allow even for SQL the
// guard would let through (here, a policy the guard was never told about).
func TestBackendAnswersAsThePolicyRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, rolesSetup+"GRANT USAGE ON SCHEMA acc TO analyticsbot_reader; GRANT SELECT ON ALL TABLES IN SCHEMA acc TO analyticsbot_reader;")
	require.NoError(t, err)
	rules, err := access.Parse([]byte(rolesPolicies))
	require.NoError(t, err)
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_roles_" + hex.EncodeToString(suffix[:])
	roles, err := pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"acc"}, []warehouse.Access{rules.List()[2]})
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, r := range roles {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"acc"}},
		PolicyRoles: roles})
	t.Cleanup(b.Close)

	// A stand-in policy of the same name that allows everything: the guard
	// lets salaries through, the role does not.
	lax := laxPolicy{name: "Everyone Else"}
	asLax := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "UZED", Access: lax})
	_, err = b.Check(asLax, "SELECT count(*) FROM acc.salaries", 10)
	assertKind(t, warehouse.Forbidden, err, "the role refuses it at EXPLAIN, as outside the policy")
	we, ok := errors.AsType[*warehouse.Error](err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, "access_denied: you may not read acc.salaries", we.Error(), "what the asker reads: no GRANT to run")
	assert.ErrorContains(t, we.Err, `(policy "Everyone Else", role `, "the log's detail names the policy and its role")
	r, err := b.Check(asLax, "SELECT count(*) AS n FROM acc.orders", 10)
	require.NoError(t, err)
	res, err := b.Run(asLax, r)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{int64(2)}}, res.Rows)

	// No policy: the reader, which may read salaries.
	r, err = b.Check(ctx, "SELECT count(*) AS n FROM acc.salaries", 10)
	require.NoError(t, err)
	_, err = b.Run(ctx, r)
	require.NoError(t, err)
}

// laxPolicy allows every table and column under a policy's name.
type laxPolicy struct{ name string }

func (l laxPolicy) Policy() string                         { return l.name }
func (laxPolicy) AllowsTable(string, string) bool          { return true }
func (laxPolicy) AllowsColumn(string, string, string) bool { return true }
func (laxPolicy) MasksColumn(string, string, string) bool  { return false }

// A deployment's own reader role (READER_ROLE) is set up like the default
// one, and does not see what other deployments' readers run: the query
// text of another role's sessions in pg_stat_activity is hidden, as the
// text of its own role's sessions is not.
func TestReaderRolePerDeployment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	role := "abt_own_reader_" + hex.EncodeToString(suffix[:])
	t.Cleanup(func() {
		id := pgx.Identifier{role}.Sanitize()
		_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
	})
	require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), role))
	require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), role), "twice is once")

	var login, super, inherit, connect bool
	var settings []string
	require.NoError(t, db.Pool().QueryRow(ctx, `
		SELECT rolcanlogin, rolsuper, rolinherit, has_database_privilege($1, current_database(), 'CONNECT'),
		       coalesce((SELECT setconfig FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase
		                 WHERE s.setrole = r.oid AND d.datname = current_database()), '{}')
		FROM pg_roles r WHERE rolname = $1`, role).Scan(&login, &super, &inherit, &connect, &settings))
	assert.True(t, login)
	assert.False(t, super)
	assert.False(t, inherit)
	assert.True(t, connect)
	assert.Contains(t, settings, "default_transaction_read_only=on")

	// Another deployment's reader, idle after a query whose text is a secret.
	marker := "secret-" + hex.EncodeToString(suffix[:])
	other, err := pgx.Connect(ctx, strings.Replace(url, "postgres@", "analyticsbot_reader@", 1))
	require.NoError(t, err)
	t.Cleanup(func() { _ = other.Close(context.Background()) })
	_, err = other.Exec(ctx, "SELECT '"+marker+"' AS x")
	require.NoError(t, err)

	seen := func(as string) []string {
		exec := newExec(t, url, pgwarehouse.ExecConfig{Role: as})
		res, err := exec.Query(ctx, "SELECT query FROM pg_stat_activity WHERE usename = 'analyticsbot_reader' AND query LIKE '%"+marker+"%' OR query = '<insufficient privilege>'")
		require.NoError(t, err)
		var out []string
		for _, r := range res.Rows {
			out = append(out, fmt.Sprint(r[0]))
		}
		return out
	}
	assert.NotContains(t, strings.Join(seen(role), "\n"), marker, "its own role hides the other reader's query text")
	assert.Contains(t, strings.Join(seen(pgwarehouse.DefaultReaderRole), "\n"), marker, "a shared role would have shown it")

	// docs/security.md: nor can it signal the other deployment's sessions
	// (the guard refuses these calls; here the database does).
	exec := newExec(t, url, pgwarehouse.ExecConfig{Role: role})
	for _, signal := range []string{"pg_cancel_backend", "pg_terminate_backend"} {
		_, err := exec.Query(ctx, "SELECT "+signal+"("+fmt.Sprint(other.PgConn().PID())+")")
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr, signal)
		assert.Equal(t, "42501", pgErr.Code, "%s of another reader's session: %s", signal, pgErr.Message)
	}
	require.NoError(t, other.Ping(ctx), "the other reader's session lives on")
}

// Two applies at once on one database (two operators, two replicas'
// deploy hooks) take turns instead of failing on each other's grants.
func TestApplyPoliciesConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	_, err := db.Pool().Exec(ctx, rolesSetup)
	require.NoError(t, err)
	rules, err := access.Parse([]byte(rolesPolicies))
	require.NoError(t, err)
	policies := rules.List()
	errs := make([]error, 4)
	roles := make([]map[string]string, 4)
	var wg sync.WaitGroup
	for i := range errs {
		var suffix [3]byte
		_, _ = rand.Read(suffix[:])
		reader := "abt_roles_" + hex.EncodeToString(suffix[:])
		wg.Go(func() {
			roles[i], errs[i] = pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"acc"}, policies)
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, rs := range roles {
			for _, r := range rs {
				id := pgx.Identifier{r}.Sanitize()
				_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
			}
		}
	})
	for _, err := range errs {
		assert.NoError(t, err)
	}
}

// MissingRoles connects with DATABASE_URL as the bot's pool takes it, the
// pool's own settings included: they must not reach PostgreSQL, which
// refuses what it does not know (and the bot would not start with an
// access file).
func TestMissingRolesPoolURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := storetest.NewWithURL(t)
	tests := []struct{ name, settings string }{
		{"no pool settings", ""},
		{"the pool's settings", "pool_max_conns=4&pool_min_conns=1&pool_max_conn_lifetime=1h&pool_max_conn_idle_time=5m&pool_health_check_period=30s"},
	}
	for _, tt := range tests {
		dbURL := url
		if tt.settings != "" {
			sep := "?"
			if strings.Contains(url, "?") {
				sep = "&"
			}
			dbURL += sep + tt.settings
		}
		missing, err := pgwarehouse.MissingRoles(ctx, dbURL, []string{"postgres", "abt_no_such_role"})
		require.NoError(t, err, tt.name)
		assert.Equal(t, []string{"abt_no_such_role"}, missing, tt.name)
	}
}

// The reader's setup (`migrate`) and applying the policies (`access
// apply`) at once, round after round: both grant CONNECT on the database
// and set their roles' sessions up, which PostgreSQL refuses to do to one
// catalog row from two transactions at once; they take turns instead.
func TestReaderSetupWithApplyPolicies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	_, err := db.Pool().Exec(ctx, rolesSetup)
	require.NoError(t, err)
	rules, err := access.Parse([]byte(rolesPolicies))
	require.NoError(t, err)
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_roles_" + hex.EncodeToString(suffix[:])
	var roles map[string]string
	t.Cleanup(func() {
		for _, r := range append(slices.Collect(maps.Values(roles)), reader) {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})
	const rounds = 24
	for round := range rounds {
		start := make(chan struct{})
		var setupErr, applyErr error
		var wg sync.WaitGroup
		wg.Go(func() {
			<-start
			setupErr = pgwarehouse.EnsureReaderRole(ctx, db.Pool(), reader)
			if setupErr == nil {
				_, setupErr = pgwarehouse.GrantRoutines(ctx, db.Pool(), reader, []string{"acc"})
			}
		})
		wg.Go(func() {
			<-start
			var applied map[string]string
			if applied, applyErr = pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"acc"}, rules.List()); applyErr == nil {
				roles = applied
			}
		})
		close(start)
		wg.Wait()
		assert.NoError(t, setupErr, "round %d: the reader's setup", round+1)
		assert.NoError(t, applyErr, "round %d: the policies", round+1)
	}
}
