package pgwarehouse_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// TestAccessDrift: once the catalog moves on after `access apply`, the
// comparison names each role's difference from its policy and which way
// it is off: a new table and a new partition of a table with a denied
// column it cannot read, a parent it still reads though a new child its
// policy denies now refuses it, a grant revoked and one made by hand.
// After a second apply there is none.
func TestAccessDrift(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, pool, rules, roles := newFamily(t, `
policies:
  - name: drift
    tables: ["fam.*"]
    deny_tables: ["fam.archive"]
    deny_columns: ["fam.pay.secret"]
  - name: parents
    tables: ["fam.people"]
default: drift
`)
	role := roles["drift"]
	reader := strings.TrimSuffix(role, "_drift")
	drifts := func() []string {
		t.Helper()
		got, err := pgwarehouse.AccessDrift(ctx, pool, reader, []string{"fam"}, rules.List())
		require.NoError(t, err)
		var lines []string
		for _, d := range got {
			lines = append(lines, d.String())
		}
		return lines
	}
	assert.Empty(t, drifts(), "just applied")

	r := pgx.Identifier{role}.Sanitize()
	_, err := pool.Exec(ctx, `
		CREATE TABLE fam.new_table (id int, note text);
		CREATE TABLE fam.pay_ch PARTITION OF fam.pay FOR VALUES IN ('ch');
		CREATE TABLE fam.archive () INHERITS (fam.people);
		REVOKE SELECT ON fam.temps_eu FROM `+r+`;
		GRANT SELECT (secret) ON fam.pay_eu TO `+r)
	require.NoError(t, err)
	assert.Equal(t, []string{
		role + " cannot read fam.new_table, which its policy drift allows",
		role + " cannot read fam.pay_ch, which its policy drift allows",
		role + " may read fam.pay_eu.secret, which its policy drift denies",
		role + " may read fam.people, which its policy drift denies",
		role + " cannot read fam.temps_eu, which its policy drift allows",
	}, drifts())

	_, err = pgwarehouse.ApplyPolicies(ctx, pool, reader, "", []string{"fam"}, rules.List())
	require.NoError(t, err)
	assert.Empty(t, drifts(), "applied again")
	var secret bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT has_column_privilege($1, 'fam.pay_ch', 'secret', 'SELECT')`, role).Scan(&secret))
	assert.False(t, secret, "the new partition's denied column is not granted")
}
