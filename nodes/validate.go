package nodes

import (
	"context"
	"errors"

	"github.com/analyticsbot/analyticsbot/sqlguard"
)

// trigramFunctions are pg_trgm's read-only functions, allowed on top of the
// guard's built-in list: the demo schema ships the extension for fuzzy name
// search.
var trigramFunctions = []string{"similarity", "word_similarity", "strict_word_similarity"}

// GuardPolicy is the static guard's policy for SQL the bot runs: relations
// of schemas (unqualified names among tables), the guard's function
// allowlist plus pg_trgm's, and, when maxRows > 0, a LIMIT of one row more
// than a result keeps, so the executor can still tell a result was cut.
func GuardPolicy(schemas, tables []string, maxRows int) sqlguard.Policy {
	p := sqlguard.Policy{Schemas: schemas, Tables: tables, Functions: trigramFunctions}
	if maxRows > 0 {
		p.RowLimit = maxRows + 1
	}
	return p
}

// ValidateSQL checks the generated SQL without a model: the guard on the
// parse tree, then an EXPLAIN in a read-only transaction so that unknown
// columns and type errors come back as errors the generator can fix.
func (n *Nodes) ValidateSQL(ctx context.Context, s *State) error {
	s.Valid = false
	if n.Cube != nil {
		return n.validateCube(ctx, s)
	}
	if s.SQL == "" {
		s.ValidationError = "the reply held no SQL statement; reply with JSON holding the sql field"
		s.fail(ErrInvalidSQL, s.ValidationError)
		return nil
	}
	_, names, err := n.tables(ctx)
	if err != nil {
		dbFailure(s, err)
		return nil
	}
	runSQL, err := sqlguard.Guard(s.SQL, GuardPolicy([]string{n.Schema}, names, n.MaxRows))
	var rej *sqlguard.Rejection
	if errors.As(err, &rej) {
		s.ValidationError = rej.Reason
		kind := ErrInvalidSQL
		if rej.Class.Unsafe() {
			kind = ErrUnsafeSQL
		}
		s.fail(kind, string(rej.Class)+": "+rej.Reason)
		return nil
	}
	if err != nil {
		return err
	}
	if err := n.Exec.Explain(ctx, runSQL); err != nil {
		dbFailure(s, err)
		s.ValidationError = s.ErrorDetail
		return nil
	}
	s.Valid, s.RunSQL = true, runSQL
	return nil
}
