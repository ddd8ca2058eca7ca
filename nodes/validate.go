package nodes

import (
	"context"
	"errors"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ValidateQuery checks the generated query without a model, the backend's
// way: for SQL the guard on the parse tree, then an EXPLAIN as the reader,
// so that unknown columns and type errors come back as errors the
// generator can fix; for Cube a check against its data model. In a
// channel with a ceiling it first decides who the answer is for
// (chooseAudience), and checks the query under that audience's policy.
func (n *Nodes) ValidateQuery(ctx context.Context, s *State) error {
	s.Valid = false
	ctx = n.chooseAudience(ctx, s)
	r, err := n.Warehouse.Check(ctx, s.Query.Text, n.MaxRows)
	if err != nil {
		dataFailure(s, err)
		if we, ok := errors.AsType[*warehouse.Error](err); ok {
			s.ValidationError = we.Reason
		}
		return nil
	}
	s.Valid, s.Checked, s.Query = true, r, r.Query
	return nil
}
