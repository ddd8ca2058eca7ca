package pgwarehouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// docs/access.md: applying a file that no longer has a policy takes its
// role's grants and login away and drops it, and a session already open
// as it reads nothing more; a role something else depends on is kept
// without its login. Roles of the same prefix that are not this
// database's policy roles are left alone: another database's (marked for
// its reader), one made by hand here, another deployment's reader in this
// database (READER_ROLE=<reader>_staging), and a policy role made before
// roles were marked, which looks just like that reader.
func TestApplyRetiresRemovedPolicies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, dbURL := storetest.NewWithURL(t)
	other, _ := storetest.NewWithURL(t)
	for _, d := range []*store.DB{db, other} {
		_, err := d.Pool().Exec(ctx, rolesSetup+`CREATE TABLE public.kept (id int);`)
		require.NoError(t, err)
	}
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_lo_" + hex.EncodeToString(suffix[:])
	role := func(policy string) string { return pgwarehouse.PolicyRole(reader, policy) }
	t.Cleanup(func() {
		for _, r := range []string{role("analysts"), role("everyone"), role("old"), role("pinned"), role("bi"), role("eu_x")} {
			id := pgx.Identifier{r}.Sanitize()
			for _, d := range []*store.DB{db, other} {
				_, _ = d.Pool().Exec(context.Background(), "DROP OWNED BY "+id)
			}
			_, _ = db.Pool().Exec(context.Background(), "DROP ROLE "+id)
		}
	})
	apply := func(d *store.DB, reader, file string) pgwarehouse.Applied {
		t.Helper()
		rules, err := access.Parse([]byte(file))
		require.NoError(t, err)
		applied, err := pgwarehouse.ApplyAccess(ctx, d.Pool(), pgwarehouse.ApplyConfig{Reader: reader, Schemas: []string{"acc"}}, rules.AllPolicies())
		require.NoError(t, err)
		return applied
	}
	const everyone = `
  - name: everyone
    tables: ["acc.orders"]
default: everyone
`
	apply(db, reader, `
policies:
  - name: analysts
    tables: ["acc.*"]
  - name: pinned
    tables: ["acc.*"]
  - name: old
    tables: ["acc.*"]`+everyone)
	// Made before roles were marked: no comment.
	storetest.SetupRoles(t, db, `COMMENT ON ROLE `+role("old")+` IS NULL`)
	// Another deployment in this database, with a reader of its own.
	staging := reader + "_staging"
	require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), staging))
	require.NoError(t, pgwarehouse.Grant(ctx, db.Pool(), staging, []string{"acc"}))
	t.Cleanup(func() {
		rid := pgx.Identifier{staging}.Sanitize()
		_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+rid+"; DROP ROLE "+rid)
	})
	// Another database's policy role under this reader's prefix (its
	// reader is reader_eu), and a role made by hand here.
	apply(other, reader+"_eu", "policies:\n  - name: x\n    tables: [\"acc.*\"]\ndefault: x\n")
	storetest.SetupRoles(t, db, `CREATE ROLE `+role("bi")+` LOGIN; GRANT USAGE ON SCHEMA acc TO `+role("bi")+`; GRANT SELECT ON acc.orders TO `+role("bi")+`;
		GRANT SELECT ON public.kept TO `+role("pinned"))

	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	u.User = url.User(role("analysts"))
	session, err := pgx.Connect(ctx, u.String())
	require.NoError(t, err)
	defer session.Close(ctx)
	var n int
	require.NoError(t, session.QueryRow(ctx, `SELECT count(*) FROM acc.salaries`).Scan(&n), "the analysts read the salaries")

	leftovers, err := pgwarehouse.LeftoverRoles(ctx, db.Pool(), reader, []string{"acc"}, []*access.Policy{})
	require.NoError(t, err)
	var names []string
	for _, l := range leftovers {
		names = append(names, l.Role)
	}
	assert.ElementsMatch(t, []string{role("analysts"), role("everyone"), role("pinned")}, names,
		"with no policy, every marked policy role of this database is left over, and no other")

	applied := apply(db, reader, "policies:"+everyone)
	assert.Contains(t, applied.Changes, role("analysts")+", the role of the policy analysts, which the access file no longer has: its grants taken away and the role dropped")
	assert.Contains(t, applied.Changes, role("pinned")+", the role of the policy pinned, which the access file no longer has: its grants here and its login taken away; "+
		"kept, as something still depends on it (a grant outside acc, an object it owns): drop it by hand once you have checked (DROP OWNED BY \""+
		role("pinned")+"\"; DROP ROLE \""+role("pinned")+"\")")

	err = session.QueryRow(ctx, `SELECT count(*) FROM acc.salaries`).Scan(&n)
	assert.Error(t, err, "a session open as the removed policy's role reads nothing more")

	exists := func(r string) (exists, login, reads bool) {
		t.Helper()
		require.NoError(t, db.Pool().QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1),
			coalesce((SELECT rolcanlogin FROM pg_roles WHERE rolname = $1), false),
			coalesce((SELECT has_table_privilege(oid, 'acc.orders', 'SELECT') FROM pg_roles WHERE rolname = $1), false)`, r).Scan(&exists, &login, &reads))
		return exists, login, reads
	}
	for _, tt := range []struct {
		role                 string
		exists, login, reads bool
	}{
		{role("analysts"), false, false, false},
		{role("old"), true, true, true},
		{staging, true, true, true},
		{role("pinned"), true, false, false},
		{role("everyone"), true, true, true},
		{role("bi"), true, true, true},
	} {
		e, l, r := exists(tt.role)
		assert.Equal(t, []bool{tt.exists, tt.login, tt.reads}, []bool{e, l, r}, "%s: exists, logs in, reads acc.orders", tt.role)
	}
	var euLogin, euReads bool
	require.NoError(t, other.Pool().QueryRow(ctx, `SELECT rolcanlogin, has_table_privilege(oid, 'acc.orders', 'SELECT') FROM pg_roles WHERE rolname = $1`,
		role("eu_x")).Scan(&euLogin, &euReads))
	assert.True(t, euLogin && euReads, "another database's policy role keeps its login and grants")

	leftovers, err = pgwarehouse.LeftoverRoles(ctx, db.Pool(), reader, []string{"acc"}, mustRules(t, "policies:"+everyone).AllPolicies())
	require.NoError(t, err)
	assert.Empty(t, leftovers, "nothing is left over once applied")
}

// mustRules parses an access file.
func mustRules(t *testing.T, file string) *access.Rules {
	t.Helper()
	rules, err := access.Parse([]byte(file))
	require.NoError(t, err)
	return rules
}
