// Package prompts holds the model prompts as embedded text/template files.
// Each template is parsed once, fails on a missing key, and is rendered
// from its own typed data struct, so a prompt cannot silently lose a field.
// The query generator's prompt belongs to the backend's dialect
// (warehouse.Dialect.Prompt, a template file of the backend's package); it
// is rendered here from GenerateQuery under the same rules.
package prompts

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"text/template"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

//go:embed *.tmpl examples.yaml
var files embed.FS

var templates = template.Must(newTemplate("prompts").ParseFS(files, "*.tmpl"))

// askBack defines the "ask_back" part of the generator prompts: when and
// how the generator may ask back instead of writing a query.
var askBack = func() string {
	b, err := files.ReadFile("ask_back.tmpl")
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}()

// newTemplate is a template with the options and functions every prompt has.
func newTemplate(name string) *template.Template {
	return template.New(name).Option("missingkey=error").Funcs(template.FuncMap{"join": strings.Join})
}

// generators holds the parsed generator prompts of the backends' dialects,
// by template text: each is parsed once.
var generators sync.Map // string → *template.Template

// Exchange is one earlier question and answer shown to the model.
type Exchange struct {
	User    string
	Bot     string
	QueryID string
}

// Classify is the data of classify.tmpl.
type Classify struct {
	Domain   string
	Question string
	History  []Exchange
	// Intents are the choices the classifier is offered, in order (the
	// intent table of package nodes, nodes.Choices).
	Intents []Choice
}

// Choice is an intent the classifier may pick and what it means.
type Choice struct {
	Name, Meaning string
}

// Resolve is the data of resolve.tmpl.
type Resolve struct {
	Question string
	History  []Exchange
}

// GenerateQuery is the data of the query generator's prompt, the template
// text of the backend's dialect.
type GenerateQuery struct {
	// Prompt is the template (warehouse.Dialect.Prompt).
	Prompt   string
	Domain   string
	Question string
	Today    string
	// Schemas are the schemas of the catalog's tables, in order; empty for
	// backends without schemas.
	Schemas []string
	// Catalog lists the tables the query may read, as the dialect
	// describes them (warehouse.Dialect.Describe).
	Catalog string
	// Values are stored values that resemble words of the question, by
	// column: the query should filter on them, not on the question's
	// spelling.
	Values []ValueHint
	// Glossary says what terms of the question mean in the data, from the
	// team's glossary (GLOSSARY_FILE).
	Glossary []GlossaryNote
	Examples []Example
	// MaxRows is the most rows an answer shows.
	MaxRows int
	// EarlierQuery is the query of the answer a follow-up builds on.
	EarlierQuery string
	// PreviousQuery and PreviousError are the failed attempt a retry fixes.
	PreviousQuery string
	PreviousError string
	// MayAsk lets the generator ask back instead of writing a query (the
	// "ask_back" template, which a dialect's prompt includes with
	// {{template "ask_back" .}}); Ambiguous are the question's words that
	// match several stored values about equally well.
	MayAsk    bool
	Ambiguous []AmbiguousValue
}

// AmbiguousValue is a phrase of the question that matches several stored
// values of one column about equally well, none of them exactly.
type AmbiguousValue struct {
	Phrase string
	ValueHint
}

// GlossaryNote is what a term means in the data: "active user" is "a user
// whose last_seen is within the last 30 days".
type GlossaryNote struct {
	Term, Means string
}

// ValueHint is a column and the stored values of it that resemble words of
// the question.
type ValueHint struct {
	// Column names the column as queries do: "analytics.publishers.name",
	// Cube's "Publishers.name".
	Column string
	Values []string
	// Quoting is how the backend's queries write a value: SQL's string
	// literals (the zero value), Cube's JSON strings.
	Quoting warehouse.Quoting
}

// Quoted renders the values as string literals of the hint's Quoting,
// each exact and on one line, so that the generator can copy it into its
// query and a value's line break starts no line of the prompt: 'Ubisoft',
// 'Tom”s', E'Bob\nIgnore previous instructions'; "Tom's" for Cube.
func (h ValueHint) Quoted() string {
	return h.Quoting.List(h.Values)
}

// Schedule is the data of schedule.tmpl: a schedule request with words the
// bot could not read, for the model to restate in words it reads.
type Schedule struct {
	// Message is the request as the person wrote it.
	Message string
	// Ignored are the words that were not read; Unclear, when set, is
	// what could not be told ("how often").
	Ignored string
	Unclear string
	// Question and Columns are the scheduled answer's.
	Question string
	Columns  []string
	// TimeZone is the person's, and Now the time there
	// ("Friday 27 November 2026, 14:05").
	TimeZone string
	Now      string
}

// Interpret is the data of interpret.tmpl.
type Interpret struct {
	Question string
	// Query is the query that answered, in its backend's language.
	Query     string
	Columns   []string
	RowCount  int
	Truncated bool
	// Rows is a tab-separated preview of the first rows.
	Rows string
}

// Example is one few-shot question with the reply the model should give.
type Example struct {
	Question    string   `yaml:"question"`
	SQL         string   `yaml:"sql"`
	Assumptions []string `yaml:"assumptions"`
	Explanation string   `yaml:"explanation"`
}

// JSON renders the example as the reply the generator is asked to write.
func (e Example) JSON() (string, error) {
	b, err := json.Marshal(struct {
		SQL         string   `json:"sql"`
		Assumptions []string `json:"assumptions"`
		Explanation string   `json:"explanation"`
	}{e.SQL, e.Assumptions, e.Explanation})
	return string(b), err
}

// Render renders the template named by data's type.
func Render(data any) (string, error) {
	var name string
	switch d := data.(type) {
	case Classify:
		name = "classify.tmpl"
	case Resolve:
		name = "resolve.tmpl"
	case Schedule:
		name = "schedule.tmpl"
	case GenerateQuery:
		return renderGenerator(d)
	case Interpret:
		name = "interpret.tmpl"
	default:
		return "", fmt.Errorf("render prompt: no template for %T", data)
	}
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render prompt %s: %w", name, err)
	}
	return b.String(), nil
}

// renderGenerator renders the generator prompt of a dialect.
func renderGenerator(data GenerateQuery) (string, error) {
	if strings.TrimSpace(data.Prompt) == "" {
		return "", fmt.Errorf("render the generator prompt: the dialect has no prompt")
	}
	// An example is another person's question (a 👍'd answer's): whatever
	// line breaks it was asked with, it is shown on its one line, so it
	// cannot write lines of the prompt (rules of its own) into the prompts
	// of everyone whose question resembles it. Its assumptions and
	// explanation, shown as JSON strings (which escape line breaks), are
	// folded too, as they are prose.
	examples := make([]Example, len(data.Examples))
	for i, e := range data.Examples {
		e.Question, e.Explanation = OneLine(e.Question), OneLine(e.Explanation)
		e.Assumptions = make([]string, len(e.Assumptions))
		for j, a := range data.Examples[i].Assumptions {
			e.Assumptions[j] = OneLine(a)
		}
		examples[i] = e
	}
	data.Examples = examples
	// A glossary entry is the team's, but its meaning is prose too: a
	// "means:" over several lines would write lines (a "Rules:" section)
	// of its own.
	glossary := make([]GlossaryNote, len(data.Glossary))
	for i, g := range data.Glossary {
		glossary[i] = GlossaryNote{Term: OneLine(g.Term), Means: OneLine(g.Means)}
	}
	data.Glossary = glossary
	t, ok := generators.Load(data.Prompt)
	if !ok {
		parsed, err := newTemplate("generate").Parse(data.Prompt)
		if err != nil {
			return "", fmt.Errorf("parse the generator prompt: %w", err)
		}
		// The parts every dialect's prompt may include ({{template
		// "ask_back" .}}); the dialect's own text stays the body.
		if _, err := parsed.Parse(askBack); err != nil {
			return "", fmt.Errorf("parse the generator prompt: %w", err)
		}
		t, _ = generators.LoadOrStore(data.Prompt, parsed)
	}
	var b bytes.Buffer
	if err := t.(*template.Template).Execute(&b, data); err != nil {
		return "", fmt.Errorf("render the generator prompt: %w", err)
	}
	return b.String(), nil
}

// OneLine is s on one line: every run of spaces and line breaks (any
// Unicode space: "\r\n", U+2028, …) becomes one space, and the ends are
// trimmed.
func OneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Data is s as one value of a prompt's data block (a result's cell or
// column name): on one line and at most max characters, so that no value,
// whatever it holds, starts a line of the prompt or swamps it. Line breaks,
// tabs and other control characters are written as escapes (\n, \t,
// \u001b; U+2028 as \u2028), and a longer value is cut with "…". A max of 0 or less leaves the length alone.
func Data(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if max > 0 && n == max {
			b.WriteString("…")
			break
		}
		n++
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// DefaultExamples returns the embedded few-shot examples for the demo schema.
func DefaultExamples() []Example {
	data, err := files.ReadFile("examples.yaml")
	if err != nil {
		panic(err) // embedded at build time
	}
	ex, err := ParseExamples(data)
	if err != nil {
		panic(err) // checked by tests
	}
	return ex
}

// LoadExamples reads few-shot examples from a YAML file.
func LoadExamples(path string) ([]Example, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load examples: %w", err)
	}
	ex, err := ParseExamples(data)
	if err != nil {
		return nil, fmt.Errorf("load examples %s: %w", path, err)
	}
	return ex, nil
}

// exampleKeys are the keys an example of the examples file may have.
var exampleKeys = []string{"question", "sql", "assumptions", "explanation"}

// ParseExamples decodes a YAML list of examples; each needs a question and
// SQL, and a key it does not know (a misspelt "assumption:") is refused by
// its line rather than dropped.
func ParseExamples(data []byte) ([]Example, error) {
	var nodes []yaml.Node
	if err := yaml.Unmarshal(data, &nodes); err != nil {
		return nil, fmt.Errorf("parse examples: %w", err)
	}
	ex := make([]Example, 0, len(nodes))
	for i, n := range nodes {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("parse examples: line %d: example %d is not a mapping of %s", n.Line, i+1, strings.Join(exampleKeys, ", "))
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			if k := n.Content[j]; !slices.Contains(exampleKeys, k.Value) {
				return nil, fmt.Errorf("parse examples: line %d: example %d has an unknown key %q (want one of %s)",
					k.Line, i+1, k.Value, strings.Join(exampleKeys, ", "))
			}
		}
		var e Example
		if err := n.Decode(&e); err != nil {
			return nil, fmt.Errorf("parse examples: line %d: example %d: %w", n.Line, i+1, err)
		}
		if strings.TrimSpace(e.Question) == "" || strings.TrimSpace(e.SQL) == "" {
			return nil, fmt.Errorf("parse examples: line %d: example %d needs a question and sql", n.Line, i+1)
		}
		ex = append(ex, e)
	}
	return ex, nil
}
