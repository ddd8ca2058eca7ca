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
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// viewsPolicies adds to the matrix's policies one that names a view over
// the salaries exactly, for people who may not read the salaries.
const viewsPolicies = `
  - name: summary
    users: [USUM]
    tables: ["hr.v_salaries", "hr.employees"]
    deny_tables: ["hr.salaries"]
`

// TestPolicyRolesViewsAndPartitions: after `access apply`, with no guard,
// a policy's role reads no view over what the policy denies (or masks), no
// view over such a view, and no parent of a partition or inheritance child
// it denies; an allowed partition and a view over allowed columns it
// reads, and a view named exactly whatever the view reads. PostgreSQL
// names what it refused; the backend tells the asker with the guard's
// words.
func TestPolicyRolesViewsAndPartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := storetest.NewWithURL(t)
	require.NoError(t, bottest.LoadAccessFixtures(ctx, db))
	_, err := db.Pool().Exec(ctx, `CREATE VIEW hr.v_salary_names AS SELECT name FROM hr.v_salaries WHERE amount > 80000;
		GRANT SELECT ON hr.v_salary_names TO analyticsbot_reader`)
	require.NoError(t, err)
	file := bottest.AccessFile("everyone")
	i := strings.Index(file, "default:")
	rules, err := access.Parse([]byte(file[:i] + strings.TrimPrefix(viewsPolicies, "\n") + file[i:]))
	require.NoError(t, err)
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_views_" + hex.EncodeToString(suffix[:])
	roles, err := pgwarehouse.ApplyPolicies(ctx, db.Pool(), reader, "", []string{"hr"}, rules.List())
	require.NoError(t, err)
	t.Cleanup(func() {
		for _, r := range roles {
			id := pgx.Identifier{r}.Sanitize()
			_, _ = db.Pool().Exec(context.Background(), "DROP OWNED BY "+id+"; DROP ROLE "+id)
		}
	})

	// "" reads; else PostgreSQL's refusal.
	cases := []struct {
		name, sql string
		want      map[string]string // by policy; a policy left out reads
	}{
		{"a view over a denied table", "SELECT amount FROM hr.v_salaries",
			map[string]string{"analysts": "permission denied for view v_salaries", "everyone": "permission denied for view v_salaries"}},
		{"a materialized view over a denied table", "SELECT amount FROM hr.mv_salaries",
			map[string]string{"analysts": "permission denied for materialized view mv_salaries", "everyone": "permission denied for materialized view mv_salaries",
				"summary": "permission denied for materialized view mv_salaries"}},
		{"a view over a view over a denied table", "SELECT name FROM hr.v_salary_names",
			map[string]string{"analysts": "permission denied for view v_salary_names", "everyone": "permission denied for view v_salary_names",
				"summary": "permission denied for view v_salary_names"}},
		{"a view returning a masked column", "SELECT count(*) FROM hr.v_emails",
			map[string]string{"analysts": "permission denied for view v_emails", "everyone": "permission denied for view v_emails",
				"summary": "permission denied for view v_emails"}},
		{"the parent of a denied partition", "SELECT sum(amount) FROM hr.payroll",
			map[string]string{"analysts": "permission denied for table payroll", "everyone": "permission denied for table payroll",
				"summary": "permission denied for table payroll"}},
		{"a denied partition", "SELECT sum(amount) FROM hr.payroll_eu",
			map[string]string{"analysts": "permission denied for table payroll_eu", "everyone": "permission denied for table payroll_eu",
				"summary": "permission denied for table payroll_eu"}},
		{"an allowed partition", "SELECT sum(amount) FROM hr.payroll_us",
			map[string]string{"everyone": "permission denied for table payroll_us", "summary": "permission denied for table payroll_us"}},
		{"the parent of a denied inheritance child", "SELECT count(*) FROM hr.staff",
			map[string]string{"analysts": "permission denied for table staff", "everyone": "permission denied for table staff",
				"summary": "permission denied for table staff"}},
		{"a view over allowed columns", "SELECT name, country FROM hr.v_people",
			map[string]string{"summary": "permission denied for view v_people"}},
		{"the salaries", "SELECT amount FROM hr.salaries",
			map[string]string{"analysts": "permission denied for table salaries", "everyone": "permission denied for table salaries",
				"summary": "permission denied for table salaries"}},
	}
	for _, policy := range []string{"full", "analysts", "everyone", "summary"} {
		exec := newExec(t, url, pgwarehouse.ExecConfig{Role: roles[policy], Schemas: []string{"hr"}})
		for _, c := range cases {
			_, err := exec.Query(ctx, c.sql)
			want := c.want[policy]
			if want == "" {
				assert.NoError(t, err, "%s as %s", c.name, policy)
				continue
			}
			var pgErr *pgconn.PgError
			if assert.True(t, errors.As(err, &pgErr), "%s as %s: got %v, want the database's refusal", c.name, policy, err) {
				assert.Equal(t, "42501", pgErr.Code, "%s as %s", c.name, policy)
				assert.Equal(t, want, pgErr.Message, "%s as %s", c.name, policy)
			}
		}
	}

	// As the backend answers: the guard refuses the view in the words it
	// refuses a table with, and so does the database behind it.
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: pgwarehouse.ExecConfig{DatabaseURL: url, Schemas: []string{"hr"}},
		PolicyRoles: roles})
	t.Cleanup(b.Close)
	analysts, err := rules.Admit(t.Context(), access.Who{UserID: "UANA", ChannelID: "CDATA"})
	require.NoError(t, err)
	asAnalyst := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "UANA", Access: analysts})
	for _, c := range []struct{ sql, want string }{
		{"SELECT amount FROM hr.v_salaries", "access_denied: you may not read hr.v_salaries"},
		{"SELECT amount FROM mv_salaries", "access_denied: you may not read hr.mv_salaries"},
		{"SELECT sum(amount) FROM hr.payroll", "access_denied: you may not read hr.payroll"},
		{"SELECT sum(amount) FROM hr.payroll_eu", "access_denied: you may not read hr.payroll_eu"},
		{"SELECT count(*) FROM hr.staff", "access_denied: you may not read hr.staff"},
	} {
		_, err := b.Check(asAnalyst, c.sql, 10)
		assertKind(t, warehouse.Forbidden, err, c.sql)
		assert.EqualError(t, err, c.want, c.sql)
	}
	lax := warehouse.WithCaller(ctx, warehouse.Caller{UserID: "UANA", Access: laxPolicy{name: "analysts"}})
	_, err = b.Check(lax, "SELECT amount FROM v_salaries", 10)
	assertKind(t, warehouse.Forbidden, err, "a guard that lets it through: the role refuses it")
	assert.EqualError(t, err, "access_denied: you may not read hr.v_salaries")
	r, err := b.Check(asAnalyst, "SELECT name, country FROM hr.v_people ORDER BY name", 10)
	require.NoError(t, err)
	res, err := b.Run(asAnalyst, r)
	require.NoError(t, err)
	assert.Len(t, res.Rows, 4, "a view over what the policy allows")
}
