package nodes

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
)

// GenerateSQL asks the model for one query that answers the question. On a
// retry the prompt carries the previous SQL and the exact error.
func (n *Nodes) GenerateSQL(ctx context.Context, s *State) error {
	if n.Cube != nil {
		return n.generateCube(ctx, s)
	}
	data := prompts.GenerateSQL{
		Domain:   n.Domain,
		Question: s.Question(),
		Today:    n.Now().Format("2006-01-02"),
		Schema:   n.Schema,
		Examples: n.Examples,
		MaxRows:  n.MaxRows,
	}
	if s.Intent == IntentFollowUp {
		data.EarlierSQL = earlierSQL(s)
	}
	if s.ErrorKind == ErrInvalidSQL {
		s.RetryCount++
		data.PreviousSQL, data.PreviousError = s.SQL, s.ErrorDetail
		s.ErrorKind, s.ErrorDetail = "", ""
	}
	tables, _, err := n.tables(ctx)
	if err != nil {
		dbFailure(s, err)
		return nil
	}
	data.Tables = tables
	reply, err := n.complete(ctx, s, llm.StepGenerateSQL, data)
	if err != nil {
		modelFailure(s, err)
		return nil
	}
	r, ok := parseSQLReply(reply)
	if !ok {
		s.note("generator reply held no SQL: " + truncate(reply, 200))
	}
	s.SQL = r.SQL
	s.setGenerated(r.Explanation, r.Assumptions)
	return nil
}

// setGenerated records the generator's explanation and non-empty
// assumptions, and marks the new query as not yet validated.
func (s *State) setGenerated(explanation string, assumptions []string) {
	s.Explanation = strings.TrimSpace(explanation)
	s.Assumptions = s.Assumptions[:0]
	for _, a := range assumptions {
		if a = strings.TrimSpace(a); a != "" {
			s.Assumptions = append(s.Assumptions, a)
		}
	}
	s.Valid, s.ValidationError = false, ""
}

// earlierSQL returns the SQL a follow-up builds on: the referenced query's,
// else the latest in the history.
func earlierSQL(s *State) string {
	latest := ""
	for _, t := range s.History {
		if t.SQL == "" {
			continue
		}
		if s.ReferencedQueryID != "" && t.QueryID == s.ReferencedQueryID {
			return t.SQL
		}
		latest = t.SQL
	}
	return latest
}

// dbFailure records a database error on s with the kind that decides what
// happens next: SQL the database rejected is worth regenerating; a timeout
// or an unreachable database is not.
func dbFailure(s *State, err error) {
	var pgErr *pgconn.PgError
	var cubeErr *cube.QueryError
	switch {
	case errors.Is(err, cube.ErrUnavailable):
		s.fail(ErrCubeDown, err.Error())
	case errors.Is(err, cube.ErrUnauthorized):
		s.fail(ErrCubeAuth, err.Error())
	case errors.As(err, &cubeErr):
		s.fail(ErrInvalidSQL, cubeErr.Message)
	case errors.Is(err, store.ErrUnavailable):
		s.fail(ErrDatabaseDown, err.Error())
	case errors.Is(err, errNoTables):
		s.fail(ErrNoData, err.Error())
	case errors.Is(err, store.ErrQueryTimeout), errors.Is(err, context.DeadlineExceeded):
		s.fail(ErrQueryTimeout, err.Error())
	case errors.As(err, &pgErr) && pgErr.Code == "25006": // read_only_sql_transaction
		s.fail(ErrUnsafeSQL, pgErr.Message)
	case errors.As(err, &pgErr) && isFixableSQLState(pgErr.Code):
		detail := pgErr.Message
		if pgErr.Hint != "" {
			detail += " (hint: " + pgErr.Hint + ")"
		}
		s.fail(ErrInvalidSQL, detail)
	default:
		s.fail(ErrInternal, err.Error())
	}
}

// isFixableSQLState reports SQLSTATE classes a rewritten query can avoid:
// syntax and access rules (42), data exceptions such as a bad cast or a
// division by zero (22), unsupported features (0A) and program limits (54).
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

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
