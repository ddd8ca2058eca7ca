package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
)

// contextJSON is what `context --json` prints.
type contextJSON struct {
	Question string `json:"question"`
	ThreadID string `json:"thread_id,omitempty"`
	Backend  string `json:"backend"`
	// Whole reports that the whole catalog fits the budget and is shown.
	Whole   bool               `json:"whole_catalog"`
	Tables  []contextTableJSON `json:"tables"`
	Others  []string           `json:"other_tables"`
	Omitted int                `json:"omitted_tables"`
	// CatalogTokens and WholeCatalogTokens estimate the catalog part of the
	// prompt and the whole catalog; PromptTokens and WholePromptTokens the
	// whole prompt with each.
	CatalogTokens      int      `json:"catalog_tokens"`
	WholeCatalogTokens int      `json:"whole_catalog_tokens"`
	PromptTokens       int      `json:"prompt_tokens"`
	WholePromptTokens  int      `json:"whole_prompt_tokens"`
	Examples           []string `json:"examples"`
	// Retrieved are the stored examples behind Examples, when retrieved.
	Retrieved []contextExampleJSON `json:"retrieved_examples"`
	// Values are the stored values matched to words of the question.
	Values []contextValueJSON `json:"values"`
	// Listed are the columns with few values, all listed in the catalog.
	Listed []contextListedJSON `json:"listed_values"`
	// SearchTerms are the model's terms grounding scored with (--terms).
	SearchTerms []string `json:"search_terms"`
	// Glossary are the glossary's terms the question names.
	Glossary []contextGlossaryJSON `json:"glossary"`
	// AskBack are the question's words that match several stored values
	// about equally well, which the generator may ask back about.
	AskBack []contextAskBackJSON `json:"ask_back,omitempty"`
	Prompt  string               `json:"prompt,omitempty"`
}

type contextGlossaryJSON struct {
	Term string `json:"term"`
	// Said is what the question says: the term or a synonym of it.
	Said  string `json:"said"`
	Means string `json:"means,omitempty"`
}

type contextAskBackJSON struct {
	Phrase string   `json:"phrase"`
	Column string   `json:"column"`
	Values []string `json:"values"`
}

type contextExampleJSON struct {
	ID       int64   `json:"id"`
	Question string  `json:"question"`
	Status   string  `json:"status"`
	Source   string  `json:"source"`
	Score    float64 `json:"score"`
}

type contextValueJSON struct {
	Column     string  `json:"column"`
	Value      string  `json:"value"`
	Phrase     string  `json:"phrase"`
	Similarity float64 `json:"similarity"`
	// Why says how it matched: exact, stem, place or fuzzy.
	Why string `json:"why"`
}

type contextTableJSON struct {
	Name    string   `json:"name"`
	Score   float64  `json:"score"`
	Reasons []string `json:"reasons"`
	// Columns are the columns kept of a table described in part, with
	// why, and LeftOut how many it leaves out; none when described whole.
	Columns []contextColumnJSON `json:"columns,omitempty"`
	LeftOut int                 `json:"left_out_columns,omitempty"`
}

type contextColumnJSON struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// contextListedJSON is a column whose every value the description lists
// (low cardinality).
type contextListedJSON struct {
	Column string   `json:"column"`
	Values []string `json:"values"`
}

// contextCommand shows what the generator would be given for a question,
// without calling the model.
func contextCommand(ctx context.Context, args []string, out io.Writer) error {
	const form = "context [--thread ID] [--user ID] [--terms T1,T2] [--json] [--prompt] QUESTION"
	fs := newFlagSet("context")
	thread := fs.String("thread", "", "the thread the question follows up on")
	user := fs.String("user", "cli", "whose access policy (ACCESS_FILE) applies: a Slack user ID, or cli for the default")
	asJSON := fs.Bool("json", false, "print one JSON object")
	withPrompt := fs.Bool("prompt", false, "also print the rendered prompt")
	termList := fs.String("terms", "", "comma-separated search terms, as the classifier would name them for the question")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, form, err)
	}
	question := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(question) == "" {
		return fmt.Errorf("%w: %s: the question is missing", errUsage, form)
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	var terms []string
	for _, t := range strings.Split(*termList, ",") {
		if t = strings.TrimSpace(t); t != "" {
			terms = append(terms, t)
		}
	}
	gc, err := b.Context(ctx, bot.Message{ThreadID: *thread, UserID: *user, ChannelID: "cli", Text: question}, terms...)
	if err != nil {
		return err
	}
	g := gc.State.Grounding
	c := contextJSON{
		Question: question, ThreadID: *thread, Backend: b.Backend().Name(), Whole: g.Whole,
		Others: g.Others, Omitted: g.Omitted, CatalogTokens: g.Tokens, WholeCatalogTokens: g.WholeTokens,
		PromptTokens: gc.PromptTokens, WholePromptTokens: gc.WholePromptTokens, Examples: gc.Examples,
		Tables: []contextTableJSON{},
	}
	for _, t := range g.Tables {
		tj := contextTableJSON{Name: t.QualifiedName(), Score: t.Score, Reasons: t.Reasons, LeftOut: t.LeftOut}
		for _, k := range t.Kept {
			tj.Columns = append(tj.Columns, contextColumnJSON{Name: k.Name, Why: k.Why})
		}
		c.Tables = append(c.Tables, tj)
	}
	c.Listed = []contextListedJSON{}
	for _, l := range g.Listed {
		c.Listed = append(c.Listed, contextListedJSON{Column: qualifiedColumn(l.Schema, l.Table, l.Column), Values: l.Values})
	}
	if c.Others == nil {
		c.Others = []string{}
	}
	c.Retrieved = []contextExampleJSON{}
	for _, e := range gc.State.Examples {
		c.Retrieved = append(c.Retrieved, contextExampleJSON{ID: e.ID, Question: e.Question, Status: e.Status, Source: e.Source, Score: e.Score})
	}
	c.Values = []contextValueJSON{}
	for _, m := range gc.State.Matches {
		c.Values = append(c.Values, contextValueJSON{Column: qualifiedColumn(m.Schema, m.Table, m.Column),
			Value: m.Value, Phrase: m.Phrase, Similarity: m.Similarity, Why: m.Why})
	}
	c.SearchTerms = append([]string{}, gc.State.SearchTerms...)
	c.Glossary = []contextGlossaryJSON{}
	for _, m := range gc.State.Glossary {
		c.Glossary = append(c.Glossary, contextGlossaryJSON{Term: m.Entry.Term, Said: m.Phrase, Means: m.Entry.Means})
	}
	for _, a := range gc.Ambiguous {
		c.AskBack = append(c.AskBack, contextAskBackJSON{Phrase: a.Phrase, Column: a.Column, Values: a.Values})
	}
	if *withPrompt {
		c.Prompt = gc.Prompt
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	fmt.Fprintf(out, "question: %s\n", question)
	fmt.Fprintf(out, "prompt: %d tokens (%d with the whole catalog); %s", c.PromptTokens, c.WholePromptTokens, g)
	if len(c.Values) > 0 {
		fmt.Fprintf(out, "values:\n")
		for _, v := range c.Values {
			fmt.Fprintf(out, "  %-40s %-30q %.2f  %s (%q)\n", v.Column, v.Value, v.Similarity, v.Why, v.Phrase)
		}
	}
	if len(c.SearchTerms) > 0 {
		fmt.Fprintf(out, "model terms: %s\n", strings.Join(c.SearchTerms, ", "))
	}
	if len(c.Glossary) > 0 {
		fmt.Fprintf(out, "glossary:\n")
		for _, g := range c.Glossary {
			said := ""
			if !strings.EqualFold(g.Said, g.Term) {
				said = fmt.Sprintf(" (said %q)", g.Said)
			}
			means := ""
			if g.Means != "" {
				means = ": " + g.Means
			}
			fmt.Fprintf(out, "  %s%s%s\n", g.Term, said, means)
		}
	}
	if len(gc.Ambiguous) > 0 {
		fmt.Fprintf(out, "may ask back (several values match about equally well):\n")
		for _, a := range gc.Ambiguous {
			fmt.Fprintf(out, "  %q: %s %s\n", a.Phrase, a.Column, a.Quoted())
		}
	}
	switch {
	case len(c.Retrieved) > 0:
		fmt.Fprintf(out, "examples (retrieved):\n")
		for _, e := range c.Retrieved {
			fmt.Fprintf(out, "  #%-5d %-9s %.2f  %s\n", e.ID, e.Status, e.Score, e.Question)
		}
	case len(c.Examples) > 0:
		fmt.Fprintf(out, "examples:\n")
		for _, e := range c.Examples {
			fmt.Fprintf(out, "  %s\n", e)
		}
	}
	if *withPrompt {
		fmt.Fprintf(out, "\n%s", gc.Prompt)
	}
	return nil
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
