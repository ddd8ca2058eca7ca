package pgwarehouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// routinesSetup has functions of both kinds over salaries, and functions
// that what a policy may read calls: a view, a view over that view, the
// row-level security policy of a table, an operator in a view, and a
// materialized view (which runs nothing when read).
const routinesSetup = `
CREATE SCHEMA acc;
CREATE TABLE acc.people (id int, name text);
CREATE TABLE acc.salaries (id int, amount int);
CREATE TABLE acc.orders (id int, amount int);
INSERT INTO acc.people VALUES (1, 'ann'), (2, 'ben');
INSERT INTO acc.salaries VALUES (1, 91357), (2, 87211);
INSERT INTO acc.orders VALUES (1, 10), (200, 20);
CREATE FUNCTION acc.salary_of(int) RETURNS int LANGUAGE sql STABLE SECURITY DEFINER AS 'SELECT amount FROM acc.salaries WHERE id = $1';
CREATE FUNCTION acc.salary_as_caller(int) RETURNS int LANGUAGE sql STABLE AS 'SELECT amount FROM acc.salaries WHERE id = $1';
CREATE FUNCTION acc.initial(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT left($1, 1)';
CREATE FUNCTION acc.shout(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT upper($1)';
CREATE FUNCTION acc.visible(int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT $1 < 100';
CREATE FUNCTION acc.near(int, int) RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT abs($1 - $2) < 10';
CREATE OPERATOR acc.~~~ (FUNCTION = acc.near, LEFTARG = int, RIGHTARG = int);
CREATE VIEW acc.v_initials AS SELECT id, acc.initial(name) AS initial FROM acc.people;
CREATE VIEW acc.v_shouted AS SELECT id, acc.shout(initial) AS shouted FROM acc.v_initials;
CREATE VIEW acc.v_near AS SELECT id FROM acc.people WHERE id OPERATOR(acc.~~~) 5;
CREATE MATERIALIZED VIEW acc.mv_shouted AS SELECT acc.shout(name) AS shouted FROM acc.people;
ALTER TABLE acc.orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY visible ON acc.orders USING (acc.visible(id));
`

const routinesPolicies = `
policies:
  - name: full
    tables: ["acc.*"]
  - name: analysts
    tables: ["acc.*"]
    deny_tables: ["acc.salaries"]
  - name: narrow
    tables: ["acc.v_initials", "acc.mv_shouted"]
default: narrow
`

// testRoles are roles of one test (roles are cluster-wide), dropped with
// what they own and were granted when it ends.
func testRoles(t *testing.T, db *store.DB, prefix string) string {
	t.Helper()
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	name := prefix + hex.EncodeToString(suffix[:])
	t.Cleanup(func() {
		ctx := context.Background()
		rows, err := db.Pool().Query(ctx, `SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)`, name)
		if err != nil {
			t.Error(err)
			return
		}
		roles, _ := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, r := range roles {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = db.Pool().Exec(ctx, "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})
	return name
}

// requireRefused checks that err is PostgreSQL's refusal (42501) naming want.
func requireRefused(t *testing.T, err error, want string, msgAndArgs ...any) {
	t.Helper()
	var pgErr *pgconn.PgError
	if assert.True(t, errors.As(err, &pgErr), append(msgAndArgs, err)...) {
		assert.Equal(t, "42501", pgErr.Code, append(msgAndArgs, pgErr.Message)...)
		assert.Contains(t, pgErr.Message, want, msgAndArgs...)
	}
}

// TestPolicyRolesCallOnlyWhatTheirReadsCall: after access apply, PUBLIC
// may execute no function of the analytics schemas, and each policy's
// role only those the views and row-level security policies it may read
// call: a SECURITY DEFINER function over salaries is refused to every
// role (the full policy's too: nothing it reads calls it) and the reader,
// while every view still answers whoever may read it.
func TestPolicyRolesCallOnlyWhatTheirReadsCall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, routinesSetup)
	require.NoError(t, err)
	reader := testRoles(t, db, "abt_rt_")
	storetest.SetupRoles(t, db, "CREATE ROLE "+reader+" LOGIN NOINHERIT; GRANT USAGE ON SCHEMA acc TO "+reader+
		"; GRANT SELECT ON acc.v_shouted, acc.people TO "+reader)
	var before bool
	require.NoError(t, db.Pool().QueryRow(ctx, `SELECT has_function_privilege($1, 'acc.salary_of(int)', 'EXECUTE')`, reader).Scan(&before))
	require.True(t, before, "PostgreSQL's default: every role may call it")

	rules, err := access.Parse([]byte(routinesPolicies))
	require.NoError(t, err)
	applied, err := pgwarehouse.ApplyAccess(ctx, db.Pool(), pgwarehouse.ApplyConfig{Reader: reader, Schemas: []string{"acc"}}, rules.List())
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{
		"full":     {"acc.initial(text)", "acc.near(integer, integer)", "acc.shout(text)", "acc.visible(integer)"},
		"analysts": {"acc.initial(text)", "acc.near(integer, integer)", "acc.shout(text)", "acc.visible(integer)"},
		"narrow":   {"acc.initial(text)"},
	}, applied.Routines, "what each role's reads call: the materialized view calls nothing when read")
	assert.Contains(t, applied.Changes, "PUBLIC may no longer execute acc.initial(text), acc.near(integer, integer), acc.salary_as_caller(integer), "+
		"acc.salary_of(integer), acc.shout(text), acc.visible(integer): only the roles whose views or row-level security policies call them may")
	public, err := pgwarehouse.PublicRoutines(ctx, db.Pool(), []string{"acc"})
	require.NoError(t, err)
	assert.Empty(t, public)

	cases := []struct {
		name, sql string
		ok        [4]bool // full, analysts, narrow, the reader
	}{
		{"a definer function over salaries", "SELECT acc.salary_of(1)", [4]bool{}},
		{"an invoker function over salaries", "SELECT acc.salary_as_caller(1)", [4]bool{}},
		{"a view that calls a function", "SELECT initial FROM acc.v_initials", [4]bool{true, true, true, false}},
		{"a view over that view, calling another", "SELECT shouted FROM acc.v_shouted", [4]bool{true, true, false, true}},
		{"an operator in a view", "SELECT id FROM acc.v_near", [4]bool{true, true, false, false}},
		{"a row-level security policy that calls a function", "SELECT id FROM acc.orders", [4]bool{true, true, false, false}},
		{"a materialized view", "SELECT shouted FROM acc.mv_shouted", [4]bool{true, true, true, false}},
		// Whoever may read a view may call what it calls (docs/security.md).
		{"a function a readable view calls", "SELECT acc.initial('x')", [4]bool{true, true, true, true}},
		{"a function only a materialized view calls", "SELECT acc.shout('x')", [4]bool{true, true, false, true}},
	}
	roles := []string{applied.Roles["full"], applied.Roles["analysts"], applied.Roles["narrow"], reader}
	for i, role := range roles {
		exec := newExec(t, url, pgwarehouse.ExecConfig{Role: role, Schemas: []string{"acc"}})
		for _, c := range cases {
			_, err := exec.Query(ctx, c.sql)
			if c.ok[i] {
				assert.NoError(t, err, "%s as %s", c.name, role)
			} else {
				require.Error(t, err, "%s as %s", c.name, role)
			}
		}
		_, err := exec.Query(ctx, "SELECT acc.salary_of(1)")
		requireRefused(t, err, "permission denied for function salary_of", "as %s", role)
	}

	// As a policy's role, the refusal is the policy's, in words for the asker.
	exec := newExec(t, url, pgwarehouse.ExecConfig{Role: applied.Roles["analysts"], Policy: "analysts", Schemas: []string{"acc"}})
	_, err = exec.Query(ctx, "SELECT acc.salary_of(1)")
	assertKind(t, warehouse.Forbidden, err)
	we, ok := errors.AsType[*warehouse.Error](err)
	require.True(t, ok)
	assert.Equal(t, "access_denied: you may not read what the function salary_of returns", we.Error())

	// The file changes: the analysts lose the views; their role loses
	// what the views called.
	narrower, err := access.Parse([]byte("policies:\n  - name: analysts\n    tables: [\"acc.people\"]\ndefault: analysts\n"))
	require.NoError(t, err)
	again, err := pgwarehouse.ApplyAccess(ctx, db.Pool(), pgwarehouse.ApplyConfig{Reader: reader, Schemas: []string{"acc"}}, narrower.List())
	require.NoError(t, err)
	assert.Empty(t, again.Routines["analysts"])
	for _, c := range again.Changes {
		assert.NotContains(t, c, "PUBLIC may no longer execute", "nothing more to take")
	}
	exec = newExec(t, url, pgwarehouse.ExecConfig{Role: applied.Roles["analysts"], Schemas: []string{"acc"}})
	_, err = exec.Query(ctx, "SELECT acc.shout('x')")
	requireRefused(t, err, "permission denied for function shout")
}

// Functions added later: where the applying login may act for their
// owner (not a superuser), PUBLIC may not execute them either; a
// superuser's are left to the next apply, and it says so.
func TestRoutinesAddedLater(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.New(t)
	owner := testRoles(t, db, "abt_rt_owner_")
	storetest.SetupRoles(t, db, "CREATE ROLE "+owner+" NOLOGIN; CREATE SCHEMA acc AUTHORIZATION "+owner+
		"; SET ROLE "+owner+"; CREATE FUNCTION acc.f() RETURNS int LANGUAGE sql AS 'SELECT 1'; RESET ROLE"+
		"; CREATE SCHEMA su; CREATE FUNCTION su.g() RETURNS int LANGUAGE sql AS 'SELECT 2'")

	changes, err := pgwarehouse.RestrictRoutines(ctx, db.Pool(), []string{"acc", "su"})
	require.NoError(t, err)
	assert.Contains(t, changes, "PUBLIC may no longer execute acc.f(), su.g(): only the roles whose views or row-level security policies call them may")
	assert.Contains(t, changes, "functions "+owner+" creates from now on in this database are not executable by PUBLIC "+
		"(ALTER DEFAULT PRIVILEGES FOR ROLE \""+owner+"\" REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC): grant EXECUTE on them to the roles that need them")
	assert.Contains(t, changes, "functions postgres (a superuser) adds to acc, su later stay executable by PUBLIC until `analyticsbot access apply` runs again: "+
		"PostgreSQL's default privileges would cover all it creates in this database, extensions included")

	_, err = db.Pool().Exec(ctx, "SET ROLE "+owner+"; CREATE FUNCTION acc.later() RETURNS int LANGUAGE sql AS 'SELECT 3'; RESET ROLE"+
		"; CREATE FUNCTION su.later() RETURNS int LANGUAGE sql AS 'SELECT 4'")
	require.NoError(t, err)
	public, err := pgwarehouse.PublicRoutines(ctx, db.Pool(), []string{"acc", "su"})
	require.NoError(t, err)
	assert.Equal(t, []string{"su.later()"}, public, "the owner's later function is not PUBLIC's; the superuser's is, until the next apply")

	again, err := pgwarehouse.RestrictRoutines(ctx, db.Pool(), []string{"acc", "su"})
	require.NoError(t, err)
	assert.Contains(t, again, "PUBLIC may no longer execute su.later(): only the roles whose views or row-level security policies call them may")
	assert.Len(t, again, 2, "and the superuser's note; nothing else to change: %q", again)
}
