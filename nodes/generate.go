package nodes

import (
	"context"
	"strings"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
)

// GenerateQuery asks the model for one query, in the backend's language,
// that answers the question. On a retry the prompt carries the previous
// query and the exact error.
func (n *Nodes) GenerateQuery(ctx context.Context, s *State) error {
	d := n.Warehouse.Dialect()
	data := prompts.GenerateQuery{
		Prompt:   d.Prompt,
		Domain:   n.Domain,
		Question: s.Question(),
		Today:    n.Now().Format("2006-01-02"),
		Examples: n.Examples,
		MaxRows:  n.maxRows(),
	}
	if s.Intent == IntentFollowUp {
		data.EarlierQuery = earlierQuery(s)
	}
	if s.ErrorKind == ErrInvalidQuery {
		s.RetryCount++
		data.PreviousQuery, data.PreviousError = s.Query.Text, s.ErrorDetail
		s.clearError()
	}
	cat, err := n.Warehouse.Catalog(ctx)
	if err != nil {
		dataFailure(s, err)
		return nil
	}
	data.Schemas, data.Catalog = cat.Schemas(), d.Describe(cat.Tables)
	reply, err := n.complete(ctx, s, llm.Step(d.Step), data)
	if err != nil {
		modelFailure(s, err)
		return nil
	}
	g, ok := d.Parse(reply)
	if !ok {
		s.note("generator reply held no query: " + truncate(reply, 200))
	}
	s.Query.Backend, s.Query.Text = n.Warehouse.Name(), g.Text
	s.setGenerated(g.Explanation, g.Assumptions)
	return nil
}

// maxRows is the most rows an answer shows: the configured cap, or the
// backend's own when it is lower.
func (n *Nodes) maxRows() int {
	if m := n.Warehouse.Dialect().MaxRows; m > 0 && m < n.MaxRows {
		return m
	}
	return n.MaxRows
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

// earlierQuery returns the query a follow-up builds on: the referenced
// answer's, else the latest in the history.
func earlierQuery(s *State) string {
	latest := ""
	for _, t := range s.History {
		if t.Query.IsZero() {
			continue
		}
		if s.ReferencedQueryID != "" && t.QueryID == s.ReferencedQueryID {
			return t.Query.Text
		}
		latest = t.Query.Text
	}
	return latest
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
