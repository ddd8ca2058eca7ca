package pgwarehouse_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// identitySetup is a table each person reads their own rows of, by the
// recipe of docs/security.md (the signed identity), and the same table
// under the plain setting, which a query can forge.
const identitySetup = `
CREATE TABLE analytics.own_orders (id int, email text);
CREATE TABLE analytics.plain_orders (id int, email text);
INSERT INTO analytics.own_orders VALUES (1, 'ana@example.com'), (2, 'ana@example.com'), (3, 'bob@example.com'), (4, 'zoë@example.com');
INSERT INTO analytics.plain_orders SELECT * FROM analytics.own_orders;
GRANT SELECT ON analytics.own_orders, analytics.plain_orders TO analyticsbot_reader;
ALTER TABLE analytics.own_orders ENABLE ROW LEVEL SECURITY;
ALTER TABLE analytics.plain_orders ENABLE ROW LEVEL SECURITY;
CREATE POLICY own ON analytics.own_orders FOR SELECT USING (email = (SELECT analyticsbot_identity.user_email()));
CREATE POLICY own ON analytics.plain_orders FOR SELECT USING (email = current_setting('analyticsbot.user_email', true));
`

// forgeries are queries that claim to be Bob (or anyone) before the table
// is read: in a CTE or a subquery evaluated first, in WHERE, with every
// setting and the transaction's own signature, with no signature. %s is
// the table.
var forgeries = []struct {
	name, sql string
	// plainLeaks: the plain setting gives Bob's rows away to this one.
	plainLeaks bool
}{
	{"a CTE evaluated first", `WITH f AS MATERIALIZED (SELECT set_config('analyticsbot.user_email', 'bob@example.com', true) AS s)
		SELECT o.id FROM f CROSS JOIN LATERAL (SELECT id FROM analytics.%s WHERE f.s IS NOT NULL) o ORDER BY 1`, true},
	{"a subquery evaluated first", `SELECT o.id FROM (SELECT set_config('analyticsbot.user_email', 'bob@example.com', true) AS s) f,
		LATERAL (SELECT id FROM analytics.%s WHERE f.s IS NOT NULL) o ORDER BY 1`, true},
	{"in WHERE", `SELECT id FROM analytics.%s WHERE set_config('analyticsbot.user_email', 'bob@example.com', true) IS NOT NULL OR 1 = 1 ORDER BY 1`, false},
	{"in a WHERE subquery", `SELECT id FROM analytics.%s WHERE (SELECT set_config('analyticsbot.user_email', 'bob@example.com', true)) IS NOT NULL ORDER BY 1`, false},
	{"every setting and its own signature", `SELECT o.id FROM (SELECT set_config('analyticsbot.user_email', 'bob@example.com', true)
		|| set_config('analyticsbot.user_id', 'UBOB', true) || set_config('analyticsbot.signature', current_setting('analyticsbot.signature', true), true) AS s) f,
		LATERAL (SELECT id FROM analytics.%s WHERE f.s IS NOT NULL) o ORDER BY 1`, true},
	{"no signature", `SELECT o.id FROM (SELECT set_config('analyticsbot.user_email', 'bob@example.com', true) || set_config('analyticsbot.signature', '', true) AS s) f,
		LATERAL (SELECT id FROM analytics.%s WHERE f.s IS NOT NULL) o ORDER BY 1`, true},
}

// TestSignedIdentity: with the key, the identity functions return who the
// executor runs the query for, and a row-level security policy built on
// them keeps each person to their rows whatever the query sets first; the
// plain setting, under the same forgeries, gives another person's rows
// away (which is why the recipe uses the functions).
func TestSignedIdentity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := newAnalyticsDB(t)
	_, err := db.Pool().Exec(ctx, identitySetup)
	require.NoError(t, err)
	key, err := db.IdentityKey(ctx)
	require.NoError(t, err)
	require.Len(t, key, 64)
	exec := newExec(t, url, pgwarehouse.ExecConfig{IdentityKey: key})
	ana := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "UANA", Email: "Ana@Example.com", ChannelID: "C1"})
	bob := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "UBOB", Email: "bob@example.com", ChannelID: "C1"})
	ids := func(ctx context.Context, sql string) []any {
		t.Helper()
		res, err := exec.Query(ctx, sql)
		require.NoError(t, err, sql)
		var out []any
		for _, r := range res.Rows {
			out = append(out, r[0])
		}
		return out
	}

	res, err := exec.Query(ana, `SELECT analyticsbot_identity.user_email(), analyticsbot_identity.user_id(), analyticsbot_identity.channel_id()`)
	require.NoError(t, err)
	assert.Equal(t, [][]any{{"ana@example.com", "UANA", "C1"}}, res.Rows, "who the query runs for")
	zoe := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "UZOE", Email: "Zoë@Example.com", ChannelID: "C1"})
	assert.Equal(t, []any{int64(4)}, ids(zoe, "SELECT id FROM analytics.own_orders"), "an address beyond ASCII is signed as the server reads it")
	assert.Equal(t, []any{int64(1), int64(2)}, ids(ana, "SELECT id FROM analytics.own_orders WHERE id > 0 OR 1 = 1 ORDER BY 1"))
	assert.Equal(t, []any{int64(3)}, ids(bob, "SELECT id FROM analytics.own_orders ORDER BY 1"))
	assert.Empty(t, ids(ctx, "SELECT id FROM analytics.own_orders"), "nobody: no rows")

	for _, f := range forgeries {
		t.Run(f.name, func(t *testing.T) {
			got := ids(ana, fmt.Sprintf(f.sql, "own_orders"))
			assert.Subset(t, []any{int64(1), int64(2)}, got, "Ana's rows at most")
			plain := ids(ana, fmt.Sprintf(f.sql, "plain_orders"))
			if f.plainLeaks {
				assert.Contains(t, plain, int64(3), "the plain setting is forgeable: Bob's row")
			}
		})
	}

	t.Run("Bob's signature in Ana's query", func(t *testing.T) {
		sig, err := exec.Query(bob, `SELECT current_setting('analyticsbot.signature')`)
		require.NoError(t, err)
		replay := fmt.Sprintf(`SELECT o.id FROM (SELECT set_config('analyticsbot.user_email', 'bob@example.com', true)
			|| set_config('analyticsbot.user_id', 'UBOB', true) || set_config('analyticsbot.signature', '%s', true) AS s) f,
			LATERAL (SELECT id FROM analytics.own_orders WHERE f.s IS NOT NULL) o`, sig.Rows[0][0])
		for range 2 * readerConns { // on every connection of the pool, Bob's own included
			assert.NotContains(t, ids(ana, replay), int64(3), "a signature is good for its own transaction only")
		}
	})

	t.Run("without the key", func(t *testing.T) {
		unsigned := newExec(t, url, pgwarehouse.ExecConfig{})
		res, err := unsigned.Query(ana, "SELECT analyticsbot_identity.user_email(), (SELECT count(*) FROM analytics.own_orders)")
		require.NoError(t, err)
		assert.Equal(t, [][]any{{nil, int64(0)}}, res.Rows, "nobody, and no rows")
	})

	t.Run("the key is the bot's alone", func(t *testing.T) {
		for _, sql := range []string{"SELECT key FROM analyticsbot.identity_key", "SELECT analyticsbot_identity.verified()"} {
			_, err := exec.Query(ana, sql)
			var pgErr *pgconn.PgError
			if assert.True(t, errors.As(err, &pgErr), "%s: %v", sql, err) {
				assert.Equal(t, "42501", pgErr.Code, "%s: %s", sql, pgErr.Message)
			}
		}
	})

	t.Run("a session opened by hand", func(t *testing.T) {
		conn, err := pgx.Connect(ctx, strings.Replace(url, "postgres@", "analyticsbot_reader@", 1))
		require.NoError(t, err)
		defer conn.Close(ctx)
		var email *string
		var n int
		require.NoError(t, conn.QueryRow(ctx, `SELECT set_config('analyticsbot.user_email', 'bob@example.com', false), analyticsbot_identity.user_email(),
			(SELECT count(*) FROM analytics.own_orders)`).Scan(nil, &email, &n))
		assert.Nil(t, email, "no one")
		assert.Zero(t, n, "no rows")
	})
}
