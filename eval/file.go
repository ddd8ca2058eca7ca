// Package eval measures the bot's answers against a file of questions with
// known answers: in full mode it asks them through the whole workflow (the
// configured model) and scores execution accuracy; in retrieval mode it
// calls no model and scores what the generator would be shown: the recall
// of the gold query's tables, columns and values in the chosen context,
// and the prompt's size. docs/eval.md documents the file format.
package eval

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// File is an eval file: a set of items.
type File struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Items       []Item `yaml:"items"`
}

// Item is one conversation whose last question is scored.
type Item struct {
	ID       string `yaml:"id"`
	Category string `yaml:"category"`
	// Turns are asked before Question, in the same thread; their answers
	// are not scored.
	Turns []Turn `yaml:"turns"`
	// Question is the scored question.
	Question string `yaml:"question"`
	// SQL is the gold query: its rows are the expected answer (unless Rows
	// gives them) and its references are what retrieval must find.
	SQL string `yaml:"sql"`
	// Rows are the expected rows, when not the gold query's.
	Rows [][]any `yaml:"rows"`
	// Match says how rows are compared.
	Match Match `yaml:"match"`
	// Decline marks a question the bot must not answer with data (off
	// topic, or beyond the data).
	Decline bool `yaml:"decline"`
	// Values are stored values the value lookup must find for Question
	// (fuzzy names): "table.column: value" or just the value.
	Values []string `yaml:"values"`
	// AskBack marks a question the bot must ask back about, with the
	// choices it must offer; with Choose, the choice's answer is scored.
	AskBack *AskBack `yaml:"ask_back"`
}

// AskBack is what an item expects the bot to ask back.
type AskBack struct {
	// Options are the choices the bot must offer (2 to 5; it may offer
	// more), compared without case.
	Options []string `yaml:"options"`
	// Choose, when set, is the option then chosen: the question it asks,
	// in the same thread, is answered and scored against SQL or Rows.
	Choose string `yaml:"choose"`
}

// offered returns the choice of labels whose label is option, without
// case.
func offered(labels []string, option string) (int, bool) {
	for i, l := range labels {
		if strings.EqualFold(strings.TrimSpace(l), strings.TrimSpace(option)) {
			return i, true
		}
	}
	return 0, false
}

// Turn is an earlier question of an item's conversation, with the query
// that answered it (what retrieval sees of the thread).
type Turn struct {
	Question string `yaml:"question"`
	SQL      string `yaml:"sql"`
}

// Match says how an answer's rows are compared with the expected ones.
type Match struct {
	// Ordered requires the rows in the same order (for rankings).
	Ordered bool `yaml:"ordered"`
	// Tolerance is the relative difference two numbers may have (default
	// 1e-6): 0.01 accepts an average rounded to 2 decimals.
	Tolerance float64 `yaml:"tolerance"`
	// ExtraColumns lets the answer have columns the gold rows lack.
	// Column names are never compared.
	ExtraColumns bool `yaml:"extra_columns"`
}

// Load reads and checks an eval file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load eval file: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load eval file %s: %w", path, err)
	}
	return f, nil
}

// Parse decodes an eval file: every item needs an id, a question, and a
// gold query or rows unless it must be declined; ids are unique.
func Parse(data []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var errs []error
	seen := map[string]bool{}
	for i, it := range f.Items {
		where := fmt.Sprintf("item %d (%s)", i+1, it.ID)
		switch {
		case strings.TrimSpace(it.ID) == "":
			errs = append(errs, fmt.Errorf("item %d: no id", i+1))
		case seen[it.ID]:
			errs = append(errs, fmt.Errorf("%s: the id is used twice", where))
		}
		seen[it.ID] = true
		if strings.TrimSpace(it.Question) == "" {
			errs = append(errs, fmt.Errorf("%s: no question", where))
		}
		asksOnly := it.AskBack != nil && it.AskBack.Choose == ""
		if !it.Decline && !asksOnly && strings.TrimSpace(it.SQL) == "" && it.Rows == nil {
			errs = append(errs, fmt.Errorf("%s: no gold sql or rows (or decline: true, or ask_back without choose)", where))
		}
		if a := it.AskBack; a != nil {
			switch _, chosen := offered(a.Options, a.Choose); {
			case len(a.Options) < 2 || len(a.Options) > 5:
				errs = append(errs, fmt.Errorf("%s: ask_back needs 2 to 5 options, not %d", where, len(a.Options)))
			case a.Choose != "" && !chosen:
				errs = append(errs, fmt.Errorf("%s: ask_back chooses %q, which is not one of its options", where, a.Choose))
			case it.Decline:
				errs = append(errs, fmt.Errorf("%s: an item cannot both decline and ask back", where))
			}
		}
		if it.Category == "" {
			f.Items[i].Category = "uncategorised"
		}
	}
	if len(f.Items) == 0 {
		errs = append(errs, errors.New("no items"))
	}
	return &f, errors.Join(errs...)
}
