package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Runner runs an eval file against a bot.
type Runner struct {
	Bot *bot.Bot
	// Jobs is how many items run at once (1 when 0).
	Jobs int
}

// Result is the outcome of one item.
type Result struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Question string `json:"question"`
	// Full mode.
	Pass       bool          `json:"pass"`
	Why        string        `json:"why,omitempty"`
	ModelCalls int           `json:"model_calls"`
	Tokens     int           `json:"prompt_tokens"`
	Latency    time.Duration `json:"latency_ns"`
	SQL        string        `json:"sql,omitempty"`
	// Retrieval mode: found of total references of each kind.
	Tables, TablesFound   int      `json:"-"`
	Columns, ColumnsFound int      `json:"-"`
	Values, ValuesFound   int      `json:"-"`
	Missing               []string `json:"missing,omitempty"`
	WholeTokens           int      `json:"whole_prompt_tokens,omitempty"`
}

// each runs fn on every item, Jobs at a time, keeping the items' order.
func (r *Runner) each(ctx context.Context, f *File, fn func(context.Context, Item) Result) []Result {
	out := make([]Result, len(f.Items))
	jobs := max(r.Jobs, 1)
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i, it := range f.Items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = fn(ctx, it)
			out[i].ID, out[i].Category, out[i].Question = it.ID, it.Category, it.Question
		}()
	}
	wg.Wait()
	return out
}

// Full asks every item's conversation through the whole workflow and
// scores the last answer's rows.
func (r *Runner) Full(ctx context.Context, f *File) *Report {
	return newReport(f.Name, ModeFull, r.each(ctx, f, r.fullItem))
}

func (r *Runner) fullItem(ctx context.Context, it Item) Result {
	var res Result
	want, err := r.expected(ctx, it)
	if err != nil {
		res.Why = "the gold query does not run: " + err.Error()
		return res
	}
	thread := bot.NewThreadID()
	for _, t := range it.Turns {
		if _, _, err := r.Bot.AskState(ctx, bot.Message{ThreadID: thread, UserID: "eval", ChannelID: "eval", Text: t.Question}); err != nil {
			res.Why = "an earlier turn failed: " + err.Error()
			return res
		}
	}
	start := time.Now()
	s, _, err := r.Bot.AskState(ctx, bot.Message{ThreadID: thread, UserID: "eval", ChannelID: "eval", Text: it.Question})
	res.Latency = time.Since(start)
	if err != nil {
		res.Why = "the workflow failed: " + err.Error()
		return res
	}
	res.ModelCalls, res.Tokens, res.SQL = s.LLMCalls, s.PromptTokens, s.Query.Text
	if it.AskBack != nil {
		if s, res.Why = r.askedBack(ctx, thread, it, s, &res); s == nil {
			return res
		}
	}
	switch {
	case it.AskBack != nil && it.AskBack.Choose == "":
		res.Pass = true
	case it.Decline:
		res.Pass = s.Intent == nodes.IntentOffTopic || len(s.Result.Columns) == 0
		if !res.Pass {
			res.Why = "answered with data a question it should decline"
		}
	case s.ErrorKind != "":
		res.Why = "no answer: " + string(s.ErrorKind)
	default:
		res.Pass, res.Why = sameRows(want, s.Result.Rows, it.Match)
		if s.Result.Truncated {
			res.Pass, res.Why = false, "the answer was cut at the row cap"
		}
	}
	return res
}

// askedBack scores a question the bot must ask back about: its reply must
// be a question back offering the item's options. With a choice to make,
// it asks the chosen option's question in the thread and returns its
// state (the calls and tokens of both count); otherwise the state asked.
// A nil state comes with why the item failed.
func (r *Runner) askedBack(ctx context.Context, thread string, it Item, s *nodes.State, res *Result) (*nodes.State, string) {
	if s.Reply == nil || s.Reply.Kind != answer.KindClarify {
		if s.ErrorKind != "" {
			return nil, "did not ask back: " + string(s.ErrorKind)
		}
		return nil, "answered without asking back"
	}
	var labels []string
	for _, c := range s.Reply.Choices {
		labels = append(labels, c.Label)
	}
	for _, o := range it.AskBack.Options {
		if _, ok := offered(labels, o); !ok {
			return nil, fmt.Sprintf("asked back without the option %q (offered %q)", o, labels)
		}
	}
	if it.AskBack.Choose == "" {
		return s, ""
	}
	i, _ := offered(labels, it.AskBack.Choose)
	chosen, _, err := r.Bot.AskState(ctx, bot.Message{ThreadID: thread, UserID: "eval", ChannelID: "eval", Text: s.Reply.Choices[i].Ask})
	if err != nil {
		return nil, "the workflow failed on the choice: " + err.Error()
	}
	res.ModelCalls, res.Tokens, res.SQL = res.ModelCalls+chosen.LLMCalls, res.Tokens+chosen.PromptTokens, chosen.Query.Text
	return chosen, ""
}

// expected are the rows an item's answer must have: its rows, else its
// gold query's, run through the backend.
func (r *Runner) expected(ctx context.Context, it Item) ([][]any, error) {
	if it.Rows != nil || it.Decline || (it.AskBack != nil && it.AskBack.Choose == "") {
		return it.Rows, nil
	}
	b := r.Bot.Backend()
	q, err := b.Check(ctx, it.SQL, 0)
	if err != nil {
		return nil, err
	}
	res, err := b.Run(ctx, q)
	if err != nil {
		return nil, err
	}
	if res.Truncated {
		return nil, fmt.Errorf("the gold result has more than %d rows", res.RowCount)
	}
	return res.Rows, nil
}

// Retrieval builds what the generator would be shown for every item,
// without a model, and scores the recall of the gold query's references.
func (r *Runner) Retrieval(ctx context.Context, f *File) *Report {
	return newReport(f.Name, ModeRetrieval, r.each(ctx, f, r.retrievalItem))
}

func (r *Runner) retrievalItem(ctx context.Context, it Item) Result {
	var res Result
	var history []store.Turn
	for _, t := range it.Turns {
		turn := store.Turn{UserMessage: t.Question}
		if t.SQL != "" {
			turn.Query = warehouse.Query{Backend: r.Bot.Backend().Name(), Text: t.SQL}
			turn.QueryID = warehouse.IDOf(r.Bot.Backend(), turn.Query)
		}
		history = append(history, turn)
	}
	gc, err := r.Bot.ContextOf(ctx, bot.Message{Text: it.Question}, history)
	if err != nil {
		res.Why = "no context: " + err.Error()
		return res
	}
	res.Tokens, res.WholeTokens = gc.PromptTokens, gc.WholePromptTokens
	g := gc.State.Grounding
	cat, err := r.Bot.Backend().Catalog(ctx)
	if err != nil {
		res.Why = "no catalog: " + err.Error()
		return res
	}
	if it.SQL != "" {
		refs, err := References(it.SQL)
		if err != nil {
			res.Why = "the gold query does not parse: " + err.Error()
			return res
		}
		r.recallTables(&res, refs, g.Tables, cat)
		if len(it.Values) == 0 {
			r.recallValues(ctx, &res, refs, gc, cat)
		}
	}
	// The values an item names are what its question needs; they stand
	// for the gold query's literals.
	for _, v := range it.Values {
		res.Values++
		if matched(gc.State.Matches, v) {
			res.ValuesFound++
		} else {
			res.Missing = append(res.Missing, "value "+v)
		}
	}
	res.Pass = res.TablesFound == res.Tables && res.ColumnsFound == res.Columns && res.ValuesFound == res.Values
	return res
}

// recallTables counts the gold query's tables and columns found among the
// described tables: a column is the gold query's when one of its tables
// has it, and found when one of those is described with it.
func (r *Runner) recallTables(res *Result, refs Refs, shown []grounding.Table, cat *warehouse.Catalog) {
	var described []warehouse.Table
	for _, t := range shown {
		described = append(described, t.Table)
	}
	var gold, goldShown []warehouse.Table
	for _, name := range refs.Tables {
		t, ok := lookupTable(cat.Tables, name)
		if !ok {
			continue // a name the catalog does not have: not retrieval's to find
		}
		gold = append(gold, t)
		res.Tables++
		if shown, ok := lookupTable(described, name); ok {
			res.TablesFound++
			// As described: a table described in part shows only some
			// of its columns.
			goldShown = append(goldShown, shown)
		} else {
			res.Missing = append(res.Missing, "table "+name)
		}
	}
	for _, col := range refs.Columns {
		if !hasColumn(gold, col) {
			// An alias or an output name ("GROUP BY month"), even when
			// some other table has a column of that name.
			continue
		}
		res.Columns++
		// Found only in a described table of the gold query's: "name"
		// shown in some other table is no help.
		if hasColumn(goldShown, col) {
			res.ColumnsFound++
		} else {
			res.Missing = append(res.Missing, "column "+col)
		}
	}
}

// recallValues counts the gold query's string literals that are stored
// values of the column they are compared with, and how many the generator
// is shown as values of that column (shownAsValue).
func (r *Runner) recallValues(ctx context.Context, res *Result, refs Refs, gc bot.GeneratorContext, cat *warehouse.Catalog) {
	backend := r.Bot.Backend().Name()
	for _, l := range refs.Literals {
		t, ok := literalTable(l, refs, cat)
		if !ok {
			continue
		}
		col := store.ValueColumn{Backend: backend, Schema: t.Schema, Table: t.Name, Column: catalogColumn(t, l.Column)}
		stored, err := r.Bot.DB().HasValue(ctx, col, l.Value)
		if err != nil || !stored {
			continue // not a stored value (or not indexed): nothing to find
		}
		res.Values++
		if shownAsValue(gc, col, l.Value, cat) {
			res.ValuesFound++
		} else {
			res.Missing = append(res.Missing, fmt.Sprintf("value %s.%s = %q", t.Name, l.Column, l.Value))
		}
	}
}

// literalTable is the table whose column a literal is compared with: the
// one its qualifier names, else the one table of the query with that column.
func literalTable(l Literal, refs Refs, cat *warehouse.Catalog) (warehouse.Table, bool) {
	if l.Table != "" {
		return lookupTable(cat.Tables, l.Table)
	}
	var found []warehouse.Table
	for _, name := range refs.Tables {
		if t, ok := lookupTable(cat.Tables, name); ok && catalogColumn(t, l.Column) != "" {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return warehouse.Table{}, false
	}
	return found[0], true
}

// lookupTable finds a table by the name a query gives it: qualified, or
// bare when only one schema has it.
func lookupTable(tables []warehouse.Table, name string) (warehouse.Table, bool) {
	var found []warehouse.Table
	for _, t := range tables {
		if strings.EqualFold(t.QualifiedName(), name) || (!strings.Contains(name, ".") && strings.EqualFold(t.Name, name)) {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return warehouse.Table{}, false
	}
	return found[0], true
}

// catalogColumn is the name the table gives column (its own case), or "".
func catalogColumn(t warehouse.Table, column string) string {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, column) {
			return c.Name
		}
	}
	return ""
}

func hasColumn(tables []warehouse.Table, column string) bool {
	return slices.ContainsFunc(tables, func(t warehouse.Table) bool { return catalogColumn(t, column) != "" })
}

// matched reports whether an expected value ("table.column: value" or just
// "value") is among the matches.
func matched(matches []store.ValueMatch, want string) bool {
	where, value, qualified := strings.Cut(want, ": ")
	if !qualified {
		value = want
	}
	return slices.ContainsFunc(matches, func(m store.ValueMatch) bool {
		return m.Value == value && (!qualified || strings.EqualFold(m.Table+"."+m.Column, where) ||
			strings.EqualFold(m.Schema+"."+m.Table+"."+m.Column, where))
	})
}
