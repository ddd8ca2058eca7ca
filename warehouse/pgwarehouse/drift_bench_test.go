package pgwarehouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// warehouse1000SQL makes 1,000 tables of 10 columns in ten schemas
// (mart_0 … mart_9), as a large deployment's analytics schemas.
const warehouse1000SQL = `
DO $$
BEGIN
	FOR s IN 0..9 LOOP
		EXECUTE format('CREATE SCHEMA mart_%s', s);
		FOR i IN 0..99 LOOP
			EXECUTE format('CREATE TABLE mart_%s.t_%s (id int, name text, status text, amount numeric,
				country text, created_at timestamptz, owner text, email text, secret text, note text)', s, i);
		END LOOP;
	END LOOP;
END $$`

// policies1000 are four policies over those tables: everything, all but a
// schema and a column, everything with a masked column, and two schemas
// without a column.
const policies1000 = `
policies:
  - name: full
    users: [UFULL]
    tables: ["mart_*.*"]
  - name: analysts
    users: [UANA]
    tables: ["mart_*.*"]
    deny_tables: ["mart_9.*"]
    deny_columns: ["mart_*.*.email"]
  - name: masked
    users: [UMASK]
    tables: ["mart_*.*"]
    mask_columns: ["mart_*.*.secret"]
  - name: sales
    tables: ["mart_0.*", "mart_1.*"]
    deny_columns: ["*.*.secret"]
default: sales
`

// BenchmarkAccessDrift1000Tables is the check `analyticsbot doctor` runs,
// and `serve` every 5 minutes (DriftWatch): four policy roles, just
// applied, compared with their policies over 1,000 tables of 10 columns.
//
//	go test -run '^$' -bench AccessDrift1000Tables -benchmem ./warehouse/pgwarehouse/
func BenchmarkAccessDrift1000Tables(b *testing.B) {
	ctx := context.Background()
	db, _ := storetest.NewWithURL(b)
	pool := db.Pool()
	_, err := pool.Exec(ctx, warehouse1000SQL)
	require.NoError(b, err, "create the tables")
	rules, err := access.Parse([]byte(policies1000))
	require.NoError(b, err)
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_bench_" + hex.EncodeToString(suffix[:])
	schemas := []string{"mart_0", "mart_1", "mart_2", "mart_3", "mart_4", "mart_5", "mart_6", "mart_7", "mart_8", "mart_9"}
	roles, err := pgwarehouse.ApplyPolicies(ctx, pool, reader, "", schemas, rules.List())
	b.Cleanup(func() {
		for _, r := range roles {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = pool.Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})
	require.NoError(b, err, "apply the policies")

	b.ReportAllocs()
	for b.Loop() {
		drifts, err := pgwarehouse.AccessDrift(ctx, pool, reader, schemas, rules.List())
		if err != nil {
			b.Fatal(err)
		}
		if len(drifts) != 0 {
			b.Fatalf("just applied, got %d differences, first %s", len(drifts), drifts[0])
		}
	}
}
