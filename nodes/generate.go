package nodes

import (
	"context"
	"fmt"
	"strings"

	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// GenerateQuery asks the model for one query, in the backend's language,
// that answers the question. On a retry the prompt carries the previous
// query and the exact error, with the same context as the first attempt.
func (n *Nodes) GenerateQuery(ctx context.Context, s *State) error {
	if s.ErrorKind == ErrInvalidQuery {
		s.RetryCount++
	}
	first := s.Grounding == nil
	data, err := n.GeneratorPrompt(ctx, s)
	if err != nil {
		dataFailure(s, err)
		return nil
	}
	if first && len(s.Examples) > 0 {
		ids := make([]int64, len(s.Examples))
		for i, e := range s.Examples {
			ids[i] = e.ID
		}
		if err := n.ExampleStore.MarkExamplesUsed(ctx, ids); err != nil {
			n.Logger.WarnContext(ctx, "count example uses", "err", err)
		}
	}
	if s.ErrorKind == ErrInvalidQuery {
		data.PreviousQuery, data.PreviousError = s.Query.Text, s.ErrorDetail
		s.clearError()
	}
	d := n.Warehouse.Dialect()
	reply, err := n.complete(ctx, s, llm.Step(d.Step), data)
	if err != nil {
		modelFailure(s, err)
		return nil
	}
	g, ok := d.Parse(reply)
	if !ok {
		c, asked, why := readClarification(reply, s.Question())
		switch {
		case asked && data.MayAsk:
			s.Clarification = &c
			return nil
		case asked:
			why = "a clarification where the bot may not ask back"
		}
		if why != "" {
			s.note("generator reply held " + why + ": " + truncate(reply, 200))
		} else {
			s.note("generator reply held no query: " + truncate(reply, 200))
		}
	}
	s.Query.Backend, s.Query.Text = n.Warehouse.Name(), g.Text
	s.setGenerated(g.Explanation, g.Assumptions)
	return nil
}

// GeneratorPrompt is what the generator is given for s, without the model:
// the question, the examples, the earlier query of a follow-up, and the
// part of the catalog chosen for the question within SchemaBudget (chosen
// once per question and kept on s for its retries). It reads the backend's
// catalog; `analyticsbot context` shows its result.
func (n *Nodes) GeneratorPrompt(ctx context.Context, s *State) (prompts.GenerateQuery, error) {
	d := n.Warehouse.Dialect()
	data := prompts.GenerateQuery{
		Prompt:   d.Prompt,
		Domain:   n.Domain,
		Question: s.Question(),
		Today:    n.Now().Format("2006-01-02"),
		MaxRows:  n.maxRows(),
	}
	if n.ExampleStore == nil {
		data.Examples = n.Examples
	}
	if s.Intent == IntentFollowUp {
		data.EarlierQuery = n.earlierQuery(ctx, s)
	}
	if s.Grounding == nil {
		cat, err := n.Warehouse.Catalog(ctx)
		if err != nil {
			return data, err
		}
		// The examples' search and the value lookup read the bot's
		// database in one round trip; each keeps its own error. The
		// search goes first: a lookup past its short deadline is then
		// cut without the examples.
		var reads store.Reads
		var searched func(context.Context) ([]store.Example, error)
		if n.ExampleStore != nil && n.ExamplesK > 0 {
			searched = n.ExampleStore.QueueSearchExamples(ctx, &reads, n.Warehouse.Name(), s.Question(), n.ExamplesK*examplePool)
		}
		// Stored values are data: in a channel whose ceiling caps the
		// asker, the generator, whose words (assumptions, explanation)
		// may be posted there, is shown only the values the channel may
		// see, whatever the asker may read (docs/access.md).
		valuesCtx := warehouse.SharedCaller(ctx)
		var looked func(context.Context) ([]store.ValueMatch, error)
		if n.Values != nil {
			looked = n.Values.QueueLookup(valuesCtx, &reads, s.Question())
		}
		reads.Send(ctx)
		var listed map[warehouse.ColumnRef][]string
		if n.Values != nil {
			matches, err := looked(ctx)
			if err != nil {
				// The lookup helps; it never stops an answer.
				s.note("value lookup failed: " + err.Error())
				n.Logger.WarnContext(ctx, "value lookup", "err", err)
			}
			s.Matches = matches
			listed, err = n.Values.Listed(valuesCtx)
			if err != nil {
				s.note("value listing failed: " + err.Error())
				n.Logger.WarnContext(ctx, "value listing", "err", err)
			}
		}
		// The glossary's entries whose meaning the caller may be shown,
		// and only they relate words (glossaryFor).
		var lex *lexicon.Lexicon
		s.Glossary, lex = n.glossaryFor(ctx, s, cat)
		req := grounding.Request{Question: s.Question(), Budget: n.SchemaBudget, Matches: s.Matches,
			Lexicon: lex, Terms: s.SearchTerms, Listed: listed}
		for _, t := range s.History {
			if !t.Query.IsZero() && n.mayShowEarlier(ctx, s, t) {
				req.Earlier = append(req.Earlier, t.Query.Text)
			}
		}
		if n.ExampleStore != nil {
			s.Examples = n.retrieveExamples(ctx, s, cat, searched, n.ExamplesK*examplePool)
			for _, e := range s.Examples {
				req.Examples = append(req.Examples, e.Query)
			}
		} else {
			for _, e := range n.Examples {
				req.Examples = append(req.Examples, e.SQL)
			}
		}
		g := grounding.Build(cat, grounding.Describer{Name: n.Warehouse.Name(), Describe: d.Describe, TableName: d.TableName}, req)
		s.Grounding, s.Schemas, s.Matches = &g, cat.Schemas(), g.Values
	}
	data.Schemas, data.Catalog, data.Values = s.Schemas, s.Grounding.Catalog, valueHints(s.Matches, d)
	for _, m := range s.Glossary {
		if m.Entry.Means != "" {
			data.Glossary = append(data.Glossary, prompts.GlossaryNote{Term: m.Entry.Term, Means: m.Entry.Means})
		}
	}
	n.offerAskBack(ctx, s, &data)
	for _, e := range s.Examples {
		data.Examples = append(data.Examples, prompts.Example{Question: e.Question, SQL: e.Query,
			Assumptions: e.Assumptions, Explanation: e.Explanation})
	}
	return data, nil
}

// examplePool is how many more examples than ExamplesK are asked for, so
// that those whose tables the catalog lacks can be left out.
const examplePool = 4

// maxExamplesSearched bounds how many examples one question's search
// reads while it looks for ExamplesK usable ones (unless ExamplesK asks
// for more at once): the store proposes its best 100 by words for scoring,
// so reading further finds little, and a question pays at most two more
// searches (about 10 ms each, BENCHMARKS.md) behind stale examples.
const maxExamplesSearched = 100

// retrieveExamples returns the ExamplesK stored examples most like the
// question whose tables are all in cat (and, under an access policy, that
// the caller may be shown), of those searched found, asked of the store
// (nil: none searched): an example about tables the bot cannot read
// (another schema, a dropped or renamed table) would mislead the model.
// When the asked were found and too few were usable, it searches again for
// more, up to maxExamplesSearched, so that stale examples ranked first do
// not hide usable ones. Examples help; a failed search leaves them out.
func (n *Nodes) retrieveExamples(ctx context.Context, s *State, cat *warehouse.Catalog,
	searched func(context.Context) ([]store.Example, error), asked int) []store.Example {
	if searched == nil {
		return nil
	}
	known := map[string]bool{}
	for _, t := range cat.Tables {
		known[strings.ToLower(t.QualifiedName())] = true
		known[strings.ToLower(t.Name)] = true
	}
	seen := map[int64]bool{}
	var out []store.Example
	for {
		found, err := searched(ctx)
		if err != nil {
			s.note("example search failed: " + err.Error())
			n.Logger.WarnContext(ctx, "example search", "err", err)
			return out
		}
		for _, e := range found {
			if len(out) == n.ExamplesK {
				break
			}
			if seen[e.ID] {
				continue
			}
			seen[e.ID] = true
			if n.exampleUsable(ctx, e, known) {
				out = append(out, e)
			}
		}
		if len(out) == n.ExamplesK || len(found) < asked || asked >= maxExamplesSearched {
			return out
		}
		asked = min(asked*examplePool, maxExamplesSearched)
		var reads store.Reads
		searched = n.ExampleStore.QueueSearchExamples(ctx, &reads, n.Warehouse.Name(), s.Question(), asked)
		reads.Send(ctx)
	}
}

// exampleUsable reports whether e may be shown to the generator: its
// tables are all known (the catalog's), and the guard lets its query run
// for the caller.
func (n *Nodes) exampleUsable(ctx context.Context, e store.Example, known map[string]bool) bool {
	if tablesOf := n.Warehouse.Dialect().Tables; tablesOf != nil {
		names, err := tablesOf(e.Query)
		if err != nil || !allKnown(names, known) {
			return false
		}
	}
	// Every example must pass the guard: one stored before its query was
	// checked (an earlier version's examples file, a row added by hand)
	// may write or sleep, and the model copies what it is shown.
	return n.mayShowQuery(ctx, e.Query)
}

// mayShowQuery reports whether another person's query (an example, an
// earlier answer of the thread) may be shown to the generator: the guard
// lets it run for ctx's caller, their masked columns counted as denied
// (its SQL would show the model a column they may not read, or a masked
// column's value compared in it), and, in a channel whose ceiling caps
// them, for the ceiling too: the values its SQL names are data, like the
// stored values (GeneratorPrompt).
func (n *Nodes) mayShowQuery(ctx context.Context, query string) bool {
	if err := warehouse.PermitsShown(ctx, n.Warehouse, query); err != nil {
		return false
	}
	if c := warehouse.CallerOf(ctx); c.Access != nil && c.Shared != nil {
		if err := warehouse.PermitsShown(warehouse.SharedCaller(ctx), n.Warehouse, query); err != nil {
			return false
		}
	}
	return true
}

func allKnown(names []string, known map[string]bool) bool {
	for _, name := range names {
		if !known[name] {
			return false
		}
	}
	return true
}

// valueHints groups matched values by column for the prompt, best column
// first, each column named and its values written as the backend's
// queries write them (d): a semantic layer's member as "Publishers.name",
// its values as JSON strings; a table's column with its schema and table,
// its values as SQL literals.
func valueHints(matches []store.ValueMatch, d warehouse.Dialect) []prompts.ValueHint {
	var out []prompts.ValueHint
	for _, m := range matches {
		col := d.NameColumn(warehouse.ColumnRef{Schema: m.Schema, Table: m.Table, Column: m.Column})
		if n := len(out); n > 0 && out[n-1].Column == col {
			out[n-1].Values = append(out[n-1].Values, m.Value)
			continue
		}
		out = append(out, prompts.ValueHint{Column: col, Values: []string{m.Value}, Quoting: d.Quoting})
	}
	return out
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
// assumptions, at most maxAssumptions of them, each cut as limits.go says,
// and marks the new query as not yet validated.
func (s *State) setGenerated(explanation string, assumptions []string) {
	s.Explanation = s.capText("explanation", strings.TrimSpace(explanation), maxExplanationChars)
	s.Assumptions = s.Assumptions[:0]
	kept := 0
	for _, a := range assumptions {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if kept++; kept > maxAssumptions {
			continue
		}
		s.Assumptions = append(s.Assumptions, s.capText("assumption", a, maxAssumptionChars))
	}
	if kept > maxAssumptions {
		s.note(fmt.Sprintf("kept the first %d of %d assumptions", maxAssumptions, kept))
	}
	s.Valid, s.ValidationError = false, ""
}

// earlierQuery returns the query a follow-up builds on: the referenced
// answer's, else the thread's latest; "" when the caller may not be shown
// it (mayShowEarlier).
func (n *Nodes) earlierQuery(ctx context.Context, s *State) string {
	latest := ""
	for _, t := range s.History {
		if t.Query.IsZero() {
			continue
		}
		if s.ReferencedQueryID != "" && t.QueryID == s.ReferencedQueryID {
			if !n.mayShowEarlier(ctx, s, t) {
				return ""
			}
			return t.Query.Text
		}
		if n.mayShowEarlier(ctx, s, t) {
			latest = t.Query.Text
		}
	}
	return latest
}

// mayShowEarlier reports whether the query of t, an earlier turn of s's
// thread, may be shown to the generator for ctx's caller. In a thread
// several people ask in, it may be another's, broader policy's: its
// tables, columns and the values it names are data the caller may not
// read (Show SQL refuses it them), and the generator's assumptions may
// repeat it. Under an access policy another's is held to what an example
// is (mayShowQuery); the caller's own, to what they may run now (a masked
// column they filtered by is theirs to filter by), within the channel's
// ceiling. Without a policy everyone reads everything.
func (n *Nodes) mayShowEarlier(ctx context.Context, s *State, t store.Turn) bool {
	c := warehouse.CallerOf(ctx)
	switch {
	case c.Access == nil:
		return true
	case t.UserID != s.UserID:
		return n.mayShowQuery(ctx, t.Query.Text)
	case warehouse.Permits(ctx, n.Warehouse, t.Query.Text) != nil:
		return false
	}
	return c.Shared == nil || warehouse.Permits(warehouse.SharedCaller(ctx), n.Warehouse, t.Query.Text) == nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
