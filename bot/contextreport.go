package bot

import "strings"

// ContextReport is what the generator would be given for a question, as
// `analyticsbot context --json` prints it and the MCP server's get_context
// returns it.
type ContextReport struct {
	Question string `json:"question"`
	ThreadID string `json:"thread_id,omitempty"`
	Backend  string `json:"backend"`
	// Whole reports that the whole catalog fits the budget and is shown.
	Whole   bool           `json:"whole_catalog"`
	Tables  []ContextTable `json:"tables"`
	Others  []string       `json:"other_tables"`
	Omitted int            `json:"omitted_tables"`
	// CatalogTokens and WholeCatalogTokens estimate the catalog part of the
	// prompt and the whole catalog; PromptTokens and WholePromptTokens the
	// whole prompt with each.
	CatalogTokens      int      `json:"catalog_tokens"`
	WholeCatalogTokens int      `json:"whole_catalog_tokens"`
	PromptTokens       int      `json:"prompt_tokens"`
	WholePromptTokens  int      `json:"whole_prompt_tokens"`
	Examples           []string `json:"examples"`
	// Retrieved are the stored examples behind Examples, when retrieved.
	Retrieved []ContextExample `json:"retrieved_examples"`
	// Values are the stored values matched to words of the question.
	Values []ContextValue `json:"values"`
	// Listed are the columns with few values, all listed in the catalog.
	Listed []ContextListed `json:"listed_values"`
	// SearchTerms are the model's terms grounding scored with (--terms).
	SearchTerms []string `json:"search_terms"`
	// Glossary are the glossary's terms the question names.
	Glossary []ContextGlossary `json:"glossary"`
	// AskBack are the question's words that match several stored values
	// about equally well, which the generator may ask back about.
	AskBack []ContextAskBack `json:"ask_back,omitempty"`
	Prompt  string           `json:"prompt,omitempty"`
}

type ContextGlossary struct {
	Term string `json:"term"`
	// Said is what the question says: the term or a synonym of it.
	Said  string `json:"said"`
	Means string `json:"means,omitempty"`
}

type ContextAskBack struct {
	Phrase string   `json:"phrase"`
	Column string   `json:"column"`
	Values []string `json:"values"`
}

type ContextExample struct {
	ID       int64   `json:"id"`
	Question string  `json:"question"`
	Status   string  `json:"status"`
	Source   string  `json:"source"`
	Score    float64 `json:"score"`
}

type ContextValue struct {
	Column     string  `json:"column"`
	Value      string  `json:"value"`
	Phrase     string  `json:"phrase"`
	Similarity float64 `json:"similarity"`
	// Why says how it matched: exact, stem, place or fuzzy.
	Why string `json:"why"`
}

type ContextTable struct {
	Name    string   `json:"name"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
	// Columns are the columns kept of a table described in part, with
	// why, and LeftOut how many it leaves out; none when described whole.
	Columns []ContextColumn `json:"columns,omitempty"`
	LeftOut int             `json:"left_out_columns,omitempty"`
}

type ContextColumn struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// ContextListed is a column whose every value the description lists
// (low cardinality).
type ContextListed struct {
	Column string   `json:"column"`
	Values []string `json:"values"`
	// Why says why: a code of a top table, for which lower tables' columns
	// gave way, or the room the tables left (grounding.ListedTop,
	// grounding.ListedRoom).
	Why string `json:"why"`
}

// Report is the report of what the generator would be given, for thread
// (empty for a new conversation) on backend; its Prompt is left empty.
func (gc GeneratorContext) Report(thread, backend string) ContextReport {
	g := gc.State.Grounding
	c := ContextReport{
		Question: gc.State.UserQuery, ThreadID: thread, Backend: backend, Whole: g.Whole,
		Others: g.Others, Omitted: g.Omitted, CatalogTokens: g.Tokens, WholeCatalogTokens: g.WholeTokens,
		PromptTokens: gc.PromptTokens, WholePromptTokens: gc.WholePromptTokens, Examples: gc.Examples,
		Tables: []ContextTable{},
	}
	for _, t := range g.Tables {
		tj := ContextTable{Name: t.QualifiedName(), Score: t.Score, Reasons: t.Reasons, LeftOut: t.LeftOut}
		for _, k := range t.Kept {
			tj.Columns = append(tj.Columns, ContextColumn{Name: k.Name, Why: k.Why})
		}
		c.Tables = append(c.Tables, tj)
	}
	c.Listed = []ContextListed{}
	for _, l := range g.Listed {
		c.Listed = append(c.Listed, ContextListed{Column: qualifiedColumn(l.Schema, l.Table, l.Column), Values: l.Values, Why: l.Why})
	}
	if c.Others == nil {
		c.Others = []string{}
	}
	c.Retrieved = []ContextExample{}
	for _, e := range gc.State.Examples {
		c.Retrieved = append(c.Retrieved, ContextExample{ID: e.ID, Question: e.Question, Status: e.Status, Source: e.Source, Score: e.Score})
	}
	c.Values = []ContextValue{}
	for _, m := range gc.State.Matches {
		c.Values = append(c.Values, ContextValue{Column: qualifiedColumn(m.Schema, m.Table, m.Column),
			Value: m.Value, Phrase: m.Phrase, Similarity: m.Similarity, Why: m.Why})
	}
	c.SearchTerms = append([]string{}, gc.State.SearchTerms...)
	c.Glossary = []ContextGlossary{}
	for _, m := range gc.State.Glossary {
		c.Glossary = append(c.Glossary, ContextGlossary{Term: m.Entry.Term, Said: m.Phrase, Means: m.Entry.Means})
	}
	for _, a := range gc.Ambiguous {
		c.AskBack = append(c.AskBack, ContextAskBack{Phrase: a.Phrase, Column: a.Column, Values: a.Values})
	}
	return c
}

// qualifiedColumn names a column with its table and schema, or a semantic
// layer's member (already "Cube.member") as it is.
func qualifiedColumn(schema, table, column string) string {
	if strings.Contains(column, ".") {
		return column
	}
	if schema == "" {
		return table + "." + column
	}
	return schema + "." + table + "." + column
}
