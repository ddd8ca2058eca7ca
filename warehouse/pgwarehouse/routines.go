package pgwarehouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// PostgreSQL lets PUBLIC execute every function it is not told otherwise
// about, so a SECURITY DEFINER function in an analytics schema reads, for
// every role, whatever its owner may: salaries a policy denies included.
// RestrictRoutines takes that away in the analytics schemas, and each role
// gets EXECUTE on what the views and row-level security policies it reads
// call (routineGrants): PostgreSQL checks a function a view calls against
// whoever reads the view, not the view's owner.

// PublicRoutines lists the routines of schemas, outside extensions, that
// PUBLIC may execute: with the guard off, every role could call them.
func PublicRoutines(ctx context.Context, pool *pgxpool.Pool, schemas []string) ([]string, error) {
	rows, err := pool.Query(ctx, `
		SELECT format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = ANY($1)`+outsideExtensions+`
		  AND has_function_privilege('public', p.oid, 'EXECUTE')
		ORDER BY 1`, schemas)
	if err != nil {
		return nil, fmt.Errorf("list the functions PUBLIC may execute: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("list the functions PUBLIC may execute: %w", err)
	}
	return names, nil
}

// outsideExtensions keeps the routines p that belong to no extension.
const outsideExtensions = `
		  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`

// RestrictRoutines takes EXECUTE on the functions, procedures and
// aggregates of schemas away from PUBLIC, in one transaction on pool, and
// from the functions their owners create later where the login may act
// for them (see restrictRoutines). It returns what it changed, and what it
// could not, in sentences for the operator.
func RestrictRoutines(ctx context.Context, pool *pgxpool.Pool, schemas []string) ([]string, error) {
	var changed []string
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		changed, err = restrictRoutines(ctx, tx, schemas)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("take EXECUTE on the functions of %s from PUBLIC: %w", strings.Join(schemas, ", "), err)
	}
	return changed, nil
}

// restrictRoutines revokes PUBLIC's EXECUTE on the routines of schemas
// that belong to no extension (an extension's operators and casts serve
// ordinary queries: citext's equality is a function) and whose owner the
// login may act for, and the default EXECUTE of PUBLIC on the functions
// the schemas' and routines' owners create later. PostgreSQL's default
// privileges for functions cannot be limited to a schema: they cover all
// the owner creates in the database, so superusers' are left alone (their
// later extensions would lose PUBLIC's EXECUTE, pg_trgm's for the bot
// included) and `access apply` must run again after they add a function.
func restrictRoutines(ctx context.Context, tx pgx.Tx, schemas []string) ([]string, error) {
	rows, err := tx.Query(ctx, `
		SELECT format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)),
		       pg_get_userbyid(p.proowner), pg_has_role(current_user, p.proowner, 'USAGE')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = ANY($1)`+outsideExtensions+`
		  AND has_function_privilege('public', p.oid, 'EXECUTE')
		ORDER BY 1`, schemas)
	if err != nil {
		return nil, err
	}
	var revoked, kept []string
	var name, owner string
	var may bool
	_, err = pgx.ForEachRow(rows, []any{&name, &owner, &may}, func() error {
		if may {
			revoked = append(revoked, name)
		} else {
			kept = append(kept, name+" (owned by "+owner+")")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range revoked {
		if _, err := tx.Exec(ctx, "REVOKE EXECUTE ON ROUTINE "+f+" FROM PUBLIC"); err != nil {
			return nil, fmt.Errorf("REVOKE EXECUTE ON ROUTINE %s FROM PUBLIC: %w", f, err)
		}
	}
	if len(revoked) > 0 {
		out = append(out, "PUBLIC may no longer execute "+strings.Join(revoked, ", ")+
			": only the roles whose views or row-level security policies call them may")
	}
	if len(kept) > 0 {
		out = append(out, "could not take EXECUTE from PUBLIC on "+strings.Join(kept, ", ")+
			": only their owners (or a superuser) can, so every role may still call them")
	}

	// The owners of the schemas and of their routines, whose later
	// functions PUBLIC may still execute by default. Where nothing can be
	// done, that is said only when the schemas have routines at all.
	var some bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ANY($1))`,
		schemas).Scan(&some); err != nil {
		return nil, err
	}
	rows, err = tx.Query(ctx, `
		WITH owners AS (
			SELECT nspowner AS owner FROM pg_namespace WHERE nspname = ANY($1)
			UNION
			SELECT p.proowner FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ANY($1))
		SELECT r.rolname, r.rolsuper, pg_has_role(current_user, r.oid, 'MEMBER')
		FROM owners o JOIN pg_roles r ON r.oid = o.owner
		WHERE EXISTS (
			SELECT 1 FROM aclexplode(coalesce(
				(SELECT d.defaclacl FROM pg_default_acl d WHERE d.defaclrole = r.oid AND d.defaclnamespace = 0 AND d.defaclobjtype = 'f'),
				acldefault('f', r.oid))) a
			WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE')
		ORDER BY 1`, schemas)
	if err != nil {
		return nil, err
	}
	type ownerOf struct {
		name      string
		super, ok bool
	}
	owners, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ownerOf, error) {
		var o ownerOf
		return o, row.Scan(&o.name, &o.super, &o.ok)
	})
	if err != nil {
		return nil, err
	}
	for _, o := range owners {
		switch {
		case (o.super || !o.ok) && !some:
			// Nothing to protect yet, and nothing this login can do.
		case o.super:
			out = append(out, "functions "+o.name+" (a superuser) adds to "+strings.Join(schemas, ", ")+" later stay executable by PUBLIC "+
				"until `analyticsbot access apply` runs again: PostgreSQL's default privileges would cover all it creates in this database, extensions included")
		case !o.ok:
			out = append(out, "functions "+o.name+" creates later stay executable by PUBLIC until `analyticsbot access apply` runs again: "+
				"only a member of "+o.name+" can change its default privileges")
		default:
			stmt := "ALTER DEFAULT PRIVILEGES FOR ROLE " + pgx.Identifier{o.name}.Sanitize() + " REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC"
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return nil, fmt.Errorf("%s: %w", stmt, err)
			}
			out = append(out, "functions "+o.name+" creates from now on in this database are not executable by PUBLIC ("+stmt+
				"): grant EXECUTE on them to the roles that need them")
		}
	}
	return out, nil
}

// routineGrants gives role EXECUTE on the routines of schemas that reading
// what it may read runs, and returns their names: the functions and
// operators the views it may SELECT from call (and the views they read, in
// turn), and those of the row-level security policies of the tables it
// reads, directly or through a view, as pg_depend records them. A
// materialized view runs nothing when read; a SECURITY DEFINER function's
// own calls are checked against its owner, so they are not followed. With
// exact, role loses EXECUTE on every other routine of schemas first (a
// policy's role); otherwise it only gains (the reader, whose other grants
// are the deployment's). PostgreSQL records what a function body calls
// only for SQL-standard bodies (BEGIN ATOMIC): a function that a
// PL/pgSQL function or a quoted SQL body calls must be granted by hand.
func routineGrants(ctx context.Context, tx pgx.Tx, role string, schemas []string, exact bool) ([]string, error) {
	r := pgx.Identifier{role}.Sanitize()
	if exact {
		for _, s := range schemas {
			stmt := "REVOKE EXECUTE ON ALL ROUTINES IN SCHEMA " + pgx.Identifier{s}.Sanitize() + " FROM " + r
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return nil, fmt.Errorf("%s: %w", stmt, err)
			}
		}
	}
	rows, err := tx.Query(ctx, `
		WITH RECURSIVE readable AS (
			SELECT c.oid, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
			WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
			  AND has_any_column_privilege($2, c.oid, 'SELECT')
		), reach(classid, objid) AS (
			SELECT 'pg_rewrite'::regclass::oid, w.oid FROM pg_rewrite w JOIN readable t ON t.oid = w.ev_class WHERE t.relkind = 'v'
			UNION
			SELECT 'pg_policy'::regclass::oid, p.oid FROM pg_policy p JOIN readable t ON t.oid = p.polrelid
			UNION
			SELECT nxt.classid, nxt.objid
			FROM reach x
			JOIN pg_depend d ON d.classid = x.classid AND d.objid = x.objid
			CROSS JOIN LATERAL (
				SELECT d.refclassid, d.refobjid
				WHERE d.refclassid IN ('pg_proc'::regclass, 'pg_operator'::regclass)
				UNION ALL
				SELECT 'pg_rewrite'::regclass::oid, w.oid FROM pg_rewrite w JOIN pg_class c ON c.oid = w.ev_class
				WHERE d.refclassid = 'pg_class'::regclass AND w.ev_class = d.refobjid AND c.relkind = 'v'
				UNION ALL
				SELECT 'pg_policy'::regclass::oid, p.oid FROM pg_policy p
				WHERE d.refclassid = 'pg_class'::regclass AND p.polrelid = d.refobjid
			) nxt(classid, objid)
			WHERE x.classid <> 'pg_proc'::regclass OR NOT (SELECT f.prosecdef FROM pg_proc f WHERE f.oid = x.objid)
		)
		SELECT DISTINCT format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
		FROM reach x JOIN pg_proc p ON p.oid = x.objid JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE x.classid = 'pg_proc'::regclass AND n.nspname = ANY($1)
		ORDER BY 1`, schemas, role)
	if err != nil {
		return nil, err
	}
	routines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find the functions %s's views and policies call: %w", role, err)
	}
	for _, f := range routines {
		stmt := "GRANT EXECUTE ON ROUTINE " + f + " TO " + r
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return routines, nil
}

// GrantRoutines gives role, in one transaction on pool, EXECUTE on the
// routines of schemas that the views and row-level security policies it
// may read call (routineGrants), taking nothing away, and returns them.
// Like every step of `migrate`, it runs in turn (pgpool.SetupTx).
func GrantRoutines(ctx context.Context, pool *pgxpool.Pool, role string, schemas []string) ([]string, error) {
	var routines []string
	err := pgpool.SetupTx(ctx, pool, func(tx pgx.Tx) error {
		var err error
		routines, err = routineGrants(ctx, tx, role, schemas, false)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("let %s call what its views call: %w", role, err)
	}
	return routines, nil
}
