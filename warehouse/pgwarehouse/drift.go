package pgwarehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A policy role's grants are decided over the catalog as it was when
// `access apply` ran; the catalog moves on (a new table, a new partition
// or inheritance child, a grant made or revoked by hand). AccessDrift
// compares what each role may read now with what applying its policy
// would grant on the catalog as it is.

// Drift is one relation a policy's role reads differently from what
// `access apply` would grant it now.
type Drift struct {
	// Policy and Role are the policy and its role.
	Policy, Role string
	// Schema and Table name the table, view or partition.
	Schema, Table string
	// Columns are the columns read differently; none when it is the
	// relation itself: the role reads none of it and should read some, or
	// reads some and should read none.
	Columns []string
	// Beyond is true when the role may read what its policy denies, false
	// when it cannot read what its policy allows.
	Beyond bool
}

// String says it for the operator: "analyticsbot_reader_shop_late may
// read fam.people, which its policy late denies".
func (d Drift) String() string {
	what := d.Schema + "." + d.Table
	if len(d.Columns) > 0 {
		cols := make([]string, len(d.Columns))
		for i, c := range d.Columns {
			cols[i] = what + "." + c
		}
		what = strings.Join(cols, ", ")
	}
	if d.Beyond {
		return fmt.Sprintf("%s may read %s, which its policy %s denies", d.Role, what, d.Policy)
	}
	return fmt.Sprintf("%s cannot read %s, which its policy %s allows", d.Role, what, d.Policy)
}

// AccessDrift compares, for each policy's role (PolicyRole of reader), the
// columns of schemas it may read (PostgreSQL's has_column_privilege, with
// USAGE on the schema) with those `access apply` would grant it on the
// catalog as it is now, in one read-only transaction on pool (the login
// that applies the policies). Roles that do not exist are left out. The
// differences come by policy, in the order of policies, then by table.
func AccessDrift[A warehouse.Access](ctx context.Context, pool *pgxpool.Pool, reader string, schemas []string, policies []A) (drifts []Drift, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("compare the policy roles' grants with their policies: %w", err)
		}
	}()
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{AccessMode: pgx.ReadOnly, IsoLevel: pgx.RepeatableRead})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	cat, err := describeAll(ctx, tx, schemas)
	if err != nil {
		return nil, err
	}
	roles := make([]string, len(policies))
	for i, p := range policies {
		roles[i] = PolicyRole(reader, p.Policy())
	}
	has, err := readable(ctx, tx, roles, schemas)
	if err != nil {
		return nil, err
	}
	for i, p := range policies {
		actual, ok := has[roles[i]]
		if !ok {
			continue
		}
		want := map[columnRef]bool{}
		for _, g := range planGrants(cat, warehouse.Decide(cat, p)) {
			for _, c := range g.columns {
				want[columnRef{g.schema, g.table, c}] = true
			}
		}
		for _, t := range cat.Tables {
			drifts = append(drifts, tableDrift(p.Policy(), roles[i], t, want, actual)...)
		}
	}
	return drifts, nil
}

// columnRef is a column of a table.
type columnRef struct{ schema, table, column string }

// tableDrift is how role reads t differently from want: what it reads
// beyond, then what it cannot read.
func tableDrift(policy, role string, t warehouse.Table, want, actual map[columnRef]bool) []Drift {
	var beyond, short []string
	wanted, read := 0, 0
	for _, c := range t.Columns {
		ref := columnRef{t.Schema, t.Name, c.Name}
		switch {
		case actual[ref] && !want[ref]:
			beyond = append(beyond, c.Name)
		case want[ref] && !actual[ref]:
			short = append(short, c.Name)
		}
		if want[ref] {
			wanted++
		}
		if actual[ref] {
			read++
		}
	}
	var drifts []Drift
	if len(beyond) > 0 {
		d := Drift{Policy: policy, Role: role, Schema: t.Schema, Table: t.Name, Beyond: true, Columns: beyond}
		if wanted == 0 {
			d.Columns = nil // none of it is the policy's
		}
		drifts = append(drifts, d)
	}
	if len(short) > 0 {
		d := Drift{Policy: policy, Role: role, Schema: t.Schema, Table: t.Name, Columns: short}
		if read == 0 {
			d.Columns = nil // it reads none of it
		}
		drifts = append(drifts, d)
	}
	return drifts
}

// readable lists, for each of roles that exists, the columns of the
// relations of schemas it may select: with USAGE on the schema and SELECT
// on the table or the column, its own or PUBLIC's.
func readable(ctx context.Context, tx pgx.Tx, roles, schemas []string) (map[string]map[columnRef]bool, error) {
	rows, err := tx.Query(ctx, `
		SELECT r.rolname, n.nspname, c.relname, a.attname,
			has_schema_privilege(r.oid, n.oid, 'USAGE') AND has_column_privilege(r.oid, c.oid, a.attnum, 'SELECT')
		FROM pg_roles r
		CROSS JOIN pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE r.rolname = ANY($1) AND n.nspname = ANY($2) AND c.relkind IN `+relationKinds, roles, schemas)
	if err != nil {
		return nil, fmt.Errorf("read the policy roles' privileges: %w", err)
	}
	has := map[string]map[columnRef]bool{}
	var role string
	var ref columnRef
	var ok bool
	_, err = pgx.ForEachRow(rows, []any{&role, &ref.schema, &ref.table, &ref.column, &ok}, func() error {
		if has[role] == nil {
			has[role] = map[columnRef]bool{}
		}
		if ok {
			has[role][ref] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the policy roles' privileges: %w", err)
	}
	// A role that exists has an entry even with no relation to read.
	var existing []string
	if err := tx.QueryRow(ctx, `SELECT coalesce(array_agg(rolname::text), '{}') FROM pg_roles WHERE rolname = ANY($1)`, roles).Scan(&existing); err != nil {
		return nil, fmt.Errorf("look up the policy roles: %w", err)
	}
	for _, r := range existing {
		if has[r] == nil {
			has[r] = map[columnRef]bool{}
		}
	}
	return has, nil
}
