// Package prompts holds the model prompts as embedded text/template files.
// Each template is parsed once, fails on a missing key, and is rendered
// from its own typed data struct, so a prompt cannot silently lose a field.
package prompts

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"text/template"

	"gopkg.in/yaml.v3"

	"github.com/analyticsbot/analyticsbot/store"
)

//go:embed *.tmpl examples.yaml
var files embed.FS

var templates = template.Must(template.New("prompts").
	Option("missingkey=error").
	Funcs(template.FuncMap{"join": strings.Join}).
	ParseFS(files, "*.tmpl"))

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
}

// Resolve is the data of resolve.tmpl.
type Resolve struct {
	Question string
	History  []Exchange
}

// GenerateSQL is the data of generate_sql.tmpl.
type GenerateSQL struct {
	Domain   string
	Question string
	Today    string
	Schema   string
	Tables   []store.Table
	Examples []Example
	MaxRows  int
	// EarlierSQL is the SQL of the answer a follow-up builds on.
	EarlierSQL    string
	PreviousSQL   string
	PreviousError string
}

// GenerateCube is the data of generate_cube.tmpl: the generator's prompt
// when the bot answers from a Cube semantic layer.
type GenerateCube struct {
	Domain   string
	Question string
	Today    string
	// Meta describes the cubes, their measures, dimensions and segments.
	Meta    string
	MaxRows int
	// EarlierQuery is the Cube query (JSON) of the answer a follow-up
	// builds on.
	EarlierQuery  string
	PreviousQuery string
	PreviousError string
}

// Interpret is the data of interpret.tmpl.
type Interpret struct {
	Question  string
	SQL       string
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
	switch data.(type) {
	case Classify:
		name = "classify.tmpl"
	case Resolve:
		name = "resolve.tmpl"
	case GenerateSQL:
		name = "generate_sql.tmpl"
	case GenerateCube:
		name = "generate_cube.tmpl"
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

// ParseExamples decodes a YAML list of examples; each needs a question and SQL.
func ParseExamples(data []byte) ([]Example, error) {
	var ex []Example
	if err := yaml.Unmarshal(data, &ex); err != nil {
		return nil, fmt.Errorf("parse examples: %w", err)
	}
	for i, e := range ex {
		if strings.TrimSpace(e.Question) == "" || strings.TrimSpace(e.SQL) == "" {
			return nil, fmt.Errorf("parse examples: example %d needs a question and sql", i+1)
		}
	}
	return ex, nil
}
