package pgwarehouse

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// kindOf classifies err, preferring the caller's own cancellation: the
// statement the server then cancels reports 57014 like a timeout does.
func (e *Executor) kindOf(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		// The caller's own end, never a round trip's deadline (classify).
		if errors.Is(err, ctxErr) {
			return err
		}
		return fmt.Errorf("%w: %w", ctxErr, err)
	}
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "42501" && !isSettingChange(pgErr) {
		if e.cfg.Policy != "" {
			return outsidePolicy(pgErr, e.cfg)
		}
		return denied(pgErr, e.cfg.Role, e.cfg.Schemas)
	}
	return classify(err)
}

// deniedObject reads what PostgreSQL's "permission denied for table
// author" names: the kind of object and its name.
var deniedObject = regexp.MustCompile(`^permission denied for (table|view|materialized view|foreign table|sequence|schema) (.+)$`)

// deniedFunction reads the function PostgreSQL's "permission denied for
// function salary_of" names: one no view or row-level security policy of
// the policy's calls (RestrictRoutines).
var deniedFunction = regexp.MustCompile(`^permission denied for function (.+)$`)

// denied is the error of a query that names something the reader role has
// no grant on: a setup problem when the bot should read it, with the GRANT
// that would allow it in the reason (for the operator's log, never for
// users). Anything else the role may not do (a function of the server's,
// a table's owner's rights) is denied with the database's own words.
func denied(pgErr *pgconn.PgError, role string, schemas []string) error {
	reason := pgErr.Message + " (as the reader role " + role + ")"
	if m := deniedObject.FindStringSubmatch(pgErr.Message); m != nil {
		what, name := m[1], m[2]
		grant := "GRANT SELECT ON " + qualify(name, schemas)
		switch what {
		case "schema":
			grant = "GRANT USAGE ON SCHEMA " + pgx.Identifier{name}.Sanitize()
		case "sequence":
			grant = "GRANT SELECT ON SEQUENCE " + qualify(name, schemas)
		}
		reason = pgErr.Message + ": the reader role " + role + " has no grant on it. If the bot should read it, run: " +
			grant + " TO " + pgx.Identifier{role}.Sanitize() + "; (or `analyticsbot grant` for all of ANALYTICS_SCHEMA)"
	}
	return &warehouse.Error{Kind: warehouse.Denied, Reason: reason, Err: pgErr}
}

// outsidePolicy is the error of a query that reaches, as a policy's role,
// for what the policy does not allow: PostgreSQL holding the policy where
// the guard did not. The asker reads what they may not read, as from the
// guard; the operator's log has the database's words, the policy and the
// role.
func outsidePolicy(pgErr *pgconn.PgError, cfg ExecConfig) error {
	what := "what this question needs"
	if m := deniedFunction.FindStringSubmatch(pgErr.Message); m != nil {
		what = "what the function " + m[1] + " returns"
	}
	if m := deniedObject.FindStringSubmatch(pgErr.Message); m != nil {
		switch {
		case m[1] == "schema":
			what = "schema " + m[2]
		case len(cfg.Schemas) == 1:
			what = cfg.Schemas[0] + "." + m[2]
		default:
			what = m[2]
		}
	}
	return &warehouse.Error{Kind: warehouse.Forbidden, Class: "access_denied", Reason: "you may not read " + what,
		Err: fmt.Errorf("%w (policy %q, role %s)", pgErr, cfg.Policy, cfg.Role)}
}

// qualify names a table in the schema it is in when the search path has
// one schema; with several, the operator knows which.
func qualify(name string, schemas []string) string {
	if len(schemas) == 1 {
		return pgx.Identifier{schemas[0], name}.Sanitize()
	}
	return pgx.Identifier{name}.Sanitize()
}

// isSettingChange reports a refused set_config or SET (of role, for one):
// an attempt to step outside the sandbox, not a missing grant.
func isSettingChange(pgErr *pgconn.PgError) bool {
	return strings.HasPrefix(pgErr.Message, "permission denied to set")
}

// classify turns err into a *warehouse.Error of the kind that decides what
// happens next (with no Class: only the guard's rejections have one): SQL the database rejected is worth rewriting, a timeout or
// an unreachable database is not. A canceled or expired context and errors
// of unknown cause are returned as they are.
func classify(err error) error {
	if _, ok := errors.AsType[*warehouse.Error](err); ok {
		return err
	}
	err = pgpool.Classify(err)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgpool.ErrNoAnswer):
		return &warehouse.Error{Kind: warehouse.NoAnswer, Reason: err.Error(), Err: err}
	case errors.Is(err, pgpool.ErrUnavailable):
		return &warehouse.Error{Kind: warehouse.Unavailable, Reason: err.Error(), Err: err}
	case errors.Is(err, pgpool.ErrTimeout):
		return &warehouse.Error{Kind: warehouse.Timeout, Reason: err.Error(), Err: err}
	case errors.As(err, &pgErr) && pgErr.Code == "25006": // read_only_sql_transaction
		return &warehouse.Error{Kind: warehouse.Unsafe, Reason: pgErr.Message, Err: err}
	case errors.As(err, &pgErr) && isFixableSQLState(pgErr.Code):
		reason := pgErr.Message
		if pgErr.Hint != "" {
			reason += " (hint: " + pgErr.Hint + ")"
		}
		return &warehouse.Error{Kind: warehouse.Invalid, Reason: reason, Err: err}
	}
	return err
}

// isFixableSQLState reports SQLSTATE classes a rewritten query can avoid:
// syntax and access rules (42), data exceptions such as a bad cast or a
// division by zero (22), unsupported features (0A), program limits (54) and
// cardinality violations (21).
func isFixableSQLState(code string) bool {
	if len(code) != 5 {
		return false
	}
	switch code[:2] {
	case "42", "22", "0A", "54", "21":
		return true
	}
	return false
}
