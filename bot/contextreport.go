package bot

import "strings"

// ContextReport is what the generator would be given for a question, as
// `analyticsbot context --json` prints it and the MCP server's get_context
// returns it.
type ContextReport struct {
	// Question is the question as asked: it is not rewritten.
	Question string `json:"question"`
	// ThreadID is the thread the question follows up in; empty for a new
	// conversation.
	ThreadID string `json:"thread_id,omitempty"`
	// Backend names the backend the question is answered from ("postgres",
	// "cube").
	Backend string `json:"backend"`
	// Whole reports that the whole catalog fits the budget and is shown.
	Whole bool `json:"whole_catalog"`
	// Tables are the tables the catalog part describes, in the order it
	// lists them, with why; with the whole catalog shown, every table.
	Tables []ContextTable `json:"tables"`
	// Others are the tables named without their columns, and Omitted
	// counts those neither described nor named.
	Others  []string `json:"other_tables"`
	Omitted int      `json:"omitted_tables"`
	// CatalogTokens and WholeCatalogTokens estimate the catalog part of the
	// prompt and the whole catalog; PromptTokens and WholePromptTokens the
	// whole prompt with each.
	CatalogTokens      int `json:"catalog_tokens"`
	WholeCatalogTokens int `json:"whole_catalog_tokens"`
	PromptTokens       int `json:"prompt_tokens"`
	WholePromptTokens  int `json:"whole_prompt_tokens"`
	// Examples are the questions of the examples the prompt shows.
	Examples []string `json:"examples"`
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
	// Prompt is the generator's prompt as it would be sent, when asked
	// for (`context --prompt`); Report leaves it empty.
	Prompt string `json:"prompt,omitempty"`
}

// ContextGlossary is a term of the glossary that the question names.
type ContextGlossary struct {
	// Term is the glossary's term.
	Term string `json:"term"`
	// Said is what the question says: the term or a synonym of it.
	Said string `json:"said"`
	// Means is what the glossary says the term means, if it says.
	Means string `json:"means,omitempty"`
}

// ContextAskBack is a phrase of the question that matches several stored
// values of one column about equally well.
type ContextAskBack struct {
	// Phrase is the question's phrase ("Bethesda").
	Phrase string `json:"phrase"`
	// Column names the column as queries do: "schema.table.column", or a
	// semantic layer's member ("Publishers.name").
	Column string `json:"column"`
	// Values are the values it matches about equally well, best first,
	// that the generator may offer as choices.
	Values []string `json:"values"`
}

// ContextExample is a stored example retrieved for the question, whose
// question and query the prompt shows.
type ContextExample struct {
	// ID is the example's id in the bot's database (as `analyticsbot
	// examples show` takes it), and Question its question.
	ID       int64  `json:"id"`
	Question string `json:"question"`
	// Status is verified or candidate, and Source where the example came
	// from: file, feedback or admin.
	Status string `json:"status"`
	Source string `json:"source"`
	// Score is how well the example's question matched this one, by its
	// words or its meaning; a candidate's counts for less.
	Score float64 `json:"score"`
}

// ContextValue is a stored value matched to a phrase of the question, as
// the prompt shows it.
type ContextValue struct {
	// Column names the value's column: "schema.table.column", or a
	// semantic layer's member ("Publishers.name").
	Column string `json:"column"`
	// Value is the stored value, as stored.
	Value string `json:"value"`
	// Phrase is the question's phrase it matched; for a place, the word
	// the question says ("French" for 'France').
	Phrase string `json:"phrase"`
	// Similarity is how alike the value and the phrase are, from 0 to 1:
	// 1 for an exact match, 0.99 for one by word stems.
	Similarity float64 `json:"similarity"`
	// Why says how it matched: exact, stem, place or fuzzy.
	Why string `json:"why"`
}

// ContextTable is a table the catalog part of the prompt describes.
type ContextTable struct {
	// Name is the table's qualified name ("schema.table"), or a cube's.
	Name string `json:"name"`
	// Score ranks the table against the question; 0 for one the question
	// does not touch.
	Score float64 `json:"score"`
	// Reasons say why it scored ("question: release, year", "joins
	// analytics.apps (…)").
	Reasons []string `json:"reasons"`
	// Columns are the columns kept of a table described in part, with
	// why, and LeftOut how many it leaves out; none when described whole.
	Columns []ContextColumn `json:"columns,omitempty"`
	LeftOut int             `json:"left_out_columns,omitempty"`
}

// ContextColumn is a column kept in a table described in part.
type ContextColumn struct {
	// Name is the column's name.
	Name string `json:"name"`
	// Why says why it was kept, as grounding.Column does: "key",
	// "question: release, year", "room left" for one that only filled the
	// budget.
	Why string `json:"why"`
}

// ContextListed is a column whose every value the description lists
// (low cardinality).
type ContextListed struct {
	// Column names the column as ContextValue's Column does, and Values
	// are every value it holds, sorted.
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
