package pgwarehouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// Role names stay apart where policy names would not: a name cut at 63
// bytes, and a policy within a channel's ceiling, end in a hash of the
// whole name; a plain name is kept as it is.
func TestPolicyRoleNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 60)
	tests := []struct {
		name, a, b string
	}{
		{"cut at the same byte", long + "_one", long + "_two"},
		{"a policy within a ceiling and a policy named alike", "analysts∩everyone", "analysts_everyone"},
		{"two ceilings", "analysts∩everyone", "analysts∩guests"},
	}
	for _, tt := range tests {
		ra, rb := pgwarehouse.PolicyRole("analyticsbot_reader_shop", tt.a), pgwarehouse.PolicyRole("analyticsbot_reader_shop", tt.b)
		assert.NotEqual(t, ra, rb, tt.name)
		for _, r := range []string{ra, rb} {
			assert.LessOrEqual(t, len(r), 63, "%s: %s fits PostgreSQL's names", tt.name, r)
			assert.Regexp(t, `^[a-z0-9_]+$`, r, tt.name)
		}
	}
	assert.Equal(t, "analyticsbot_reader_shop_finance", pgwarehouse.PolicyRole("analyticsbot_reader_shop", "finance"))
	assert.Regexp(t, `^analyticsbot_reader_shop_analysts_everyone_[0-9a-f]{8}$`, pgwarehouse.PolicyRole("analyticsbot_reader_shop", "analysts∩everyone"))
}

// `access apply` makes a role for each policy within a channel's ceiling,
// listed or the catch-all's (default_ceiling), with the grants of the
// intersection alone: the database refuses such a role what either policy
// does not allow.
func TestCeilingRolesAlone(t *testing.T) {
	t.Parallel()
	const policies = `
access:
  channels: [C0GENERAL]
policies:
  - name: full
    users: [UADMIN]
    tables: ["acc.*"]
  - name: guests
    tables: ["acc.orders", "acc.customers"]
    deny_columns: ["acc.customers.email"]
default: guests
`
	tests := []struct{ name, ceilings string }{
		{"a listed channel's", "channel_ceilings:\n  - channels: [C0GENERAL]\n    policy: guests\n"},
		{"the catch-all's, for group DMs and channels not listed", "default_ceiling: guests\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rules, err := access.Parse([]byte(policies + tt.ceilings))
			require.NoError(t, err)
			checkCeilingRoles(t, rules)
		})
	}
}

// checkCeilingRoles applies rules, whose policies are full and guests and
// whose ceiling is guests, and runs the reaches as full within guests.
func checkCeilingRoles(t *testing.T, rules *access.Rules) {
	t.Helper()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	_, err := db.Pool().Exec(ctx, rolesSetup)
	require.NoError(t, err)
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_ceil_" + hex.EncodeToString(suffix[:])
	roles, err := pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"acc"}, rules.AllPolicies())
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, r := range roles {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})
	require.Len(t, roles, 3, "full, guests, and full within the ceiling")
	within := roles["full∩guests"]
	require.NotEmpty(t, within)
	assert.NotEqual(t, roles["full"], within)

	exec := newExec(t, url, pgwarehouse.ExecConfig{Role: within, Schemas: []string{"acc"}})
	for _, c := range []struct {
		sql string
		ok  bool
	}{
		{"SELECT count(*) FROM acc.orders", true},
		{"SELECT count(name) FROM acc.customers", true},
		{"SELECT email FROM acc.customers", false},
		{"SELECT count(*) FROM acc.salaries", false},
	} {
		_, err := exec.Query(ctx, c.sql)
		if c.ok {
			assert.NoError(t, err, c.sql)
			continue
		}
		var pgErr *pgconn.PgError
		if assert.True(t, errors.As(err, &pgErr), "%s: got %v, want the database's refusal", c.sql, err) {
			assert.Equal(t, "42501", pgErr.Code, c.sql)
		}
	}
}
