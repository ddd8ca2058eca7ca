package pgwarehouse_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

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

// TestDriftWatch: the running bot's check logs the differences once when
// they change, not at every check, and once that they are gone after
// `access apply`.
func TestDriftWatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, pool, rules, roles := newFamily(t, `
policies:
  - name: watched
    tables: ["fam.*"]
    deny_tables: ["fam.archive"]
default: watched
`)
	role := roles["watched"]
	reader := strings.TrimSuffix(role, "_watched")
	var logs strings.Builder
	w := &pgwarehouse.DriftWatch{Pool: pool, Reader: reader, Schemas: []string{"fam"}, Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))}
	for _, p := range rules.List() {
		w.Policies = append(w.Policies, p)
	}
	check := func() string {
		t.Helper()
		logs.Reset()
		w.Check(ctx)
		return logs.String()
	}
	assert.Empty(t, check(), "just applied")

	_, err := pool.Exec(ctx, `CREATE TABLE fam.new_table (id int)`)
	require.NoError(t, err)
	warn := "level=WARN msg=\"the policy roles' grants differ from their policies on the tables as they are now: run `analyticsbot access apply`\" "
	assert.Equal(t, warn+"beyond=[] beyond_count=0 short=\"["+role+" cannot read fam.new_table, which its policy watched allows]\" short_count=1\n", check())
	assert.Empty(t, check(), "the same differences, logged before")

	_, err = pool.Exec(ctx, `CREATE TABLE fam.archive () INHERITS (fam.people)`)
	require.NoError(t, err)
	assert.Equal(t, warn+"beyond=\"["+role+" may read fam.people, which its policy watched denies]\" beyond_count=1 "+
		"short=\"["+role+" cannot read fam.new_table, which its policy watched allows]\" short_count=1\n", check())

	_, err = pgwarehouse.ApplyPolicies(ctx, pool, reader, "", []string{"fam"}, rules.List())
	require.NoError(t, err)
	assert.Equal(t, "level=INFO msg=\"the policy roles' grants are their policies' again\"\n", check())
	assert.Empty(t, check())
}

// lineWriter sends each log line written to it on a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// Started, the watch checks at once and then again at its interval: a
// table added after the first check is reported by a later one, with no
// call of Check (serve starts it with the catalog's interval, 5 minutes).
func TestDriftWatchChecksAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, pool, rules, roles := newFamily(t, `
policies:
  - name: watched
    tables: ["fam.*"]
default: watched
`)
	role := roles["watched"]
	lines := make(lineWriter, 16)
	w := &pgwarehouse.DriftWatch{Pool: pool, Reader: strings.TrimSuffix(role, "_watched"), Schemas: []string{"fam"},
		Log: slog.New(slog.NewTextHandler(lines, nil))}
	for _, p := range rules.List() {
		w.Policies = append(w.Policies, p)
	}
	next := func() string {
		t.Helper()
		select {
		case line := <-lines:
			return line
		case <-time.After(time.Minute):
			t.Fatal("no check reported the tables' change within a minute")
			return ""
		}
	}
	_, err := pool.Exec(ctx, `CREATE TABLE fam.first (id int)`)
	require.NoError(t, err)
	stop := w.Start(ctx, 10*time.Millisecond)
	defer stop()
	line := next()
	assert.Contains(t, line, role+" cannot read fam.first, which its policy watched allows", "the check at start")
	assert.NotContains(t, line, "fam.later")

	_, err = pool.Exec(ctx, `CREATE TABLE fam.later (id int)`)
	require.NoError(t, err)
	assert.Contains(t, next(), role+" cannot read fam.later, which its policy watched allows", "a later check")
}
