package nodes

import (
	"context"
	"errors"

	"github.com/analyticsbot/analyticsbot/sqlguard"
)

// unsafeClasses are rejections a retry must not try to talk its way around:
// the model tried to write, lock or stack statements.
var unsafeClasses = map[sqlguard.Class]bool{
	sqlguard.ClassStacked:    true,
	sqlguard.ClassNotSelect:  true,
	sqlguard.ClassWritingCTE: true,
	sqlguard.ClassSelectInto: true,
	sqlguard.ClassLocking:    true,
}

// ValidateSQL checks the generated SQL without a model: the guard on the
// parse tree, then an EXPLAIN in a read-only transaction so that unknown
// columns and type errors come back as errors the generator can fix.
func (n *Nodes) ValidateSQL(ctx context.Context, s *State) error {
	s.Valid = false
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
	err = sqlguard.Check(s.SQL, sqlguard.Policy{Schemas: []string{n.Schema}, Tables: names})
	var rej *sqlguard.Rejection
	if errors.As(err, &rej) {
		s.ValidationError = rej.Reason
		kind := ErrInvalidSQL
		if unsafeClasses[rej.Class] {
			kind = ErrUnsafeSQL
		}
		s.fail(kind, string(rej.Class)+": "+rej.Reason)
		return nil
	}
	if err := n.Exec.Explain(ctx, s.SQL); err != nil {
		dbFailure(s, err)
		s.ValidationError = s.ErrorDetail
		return nil
	}
	s.Valid = true
	return nil
}
