package defog

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"

	"github.com/analyticsbot/analyticsbot/eval"
)

// questionFiles are sql-eval's question files, in the order their items
// are listed, with the prefix of their item ids.
var questionFiles = []struct{ source, file string }{
	{"gen", "questions_gen_postgres.csv"},
	{"basic", "instruct_basic_postgres.csv"},
	{"advanced", "instruct_advanced_postgres.csv"},
}

// match is how every converted item compares rows: sql-eval accepts extra
// columns and any row order, and its gold averages are unrounded.
var match = eval.Match{Ordered: false, Tolerance: 0.01, ExtraColumns: true}

// Conversion reports how Questions turned sql-eval's rows into items.
type Conversion struct {
	// Total is the number of rows in the three files.
	Total int
	// Expanded counts rows whose query used the {a, b} notation for
	// alternative columns, replaced by the first choice.
	Expanded int
	// FirstOfSeveral counts rows whose query cell held several equally
	// right queries; the first is kept.
	FirstOfSeveral int
	// Dropped are the rows left out, with why.
	Dropped []Dropped
}

// Dropped is a row Questions left out.
type Dropped struct {
	ID     string
	Reason string
}

// Questions converts sql-eval's questions into an eval file whose gold
// queries run in one database holding every defog database in the schema
// of its name (see Load).
func Questions() (*eval.File, Conversion, error) {
	var conv Conversion
	f := &eval.File{
		Name: "defog",
		Description: "Defog sql-eval's text-to-SQL questions over the 11 defog-data databases, " +
			"each loaded into the schema of its name by eval/defog.Load.",
	}
	dbs := map[string]*database{}
	for _, name := range Databases() {
		db, err := readDatabase(name)
		if err != nil {
			return nil, conv, fmt.Errorf("questions: %w", err)
		}
		dbs[name] = db
	}
	for _, qf := range questionFiles {
		rows, err := readQuestions(qf.file)
		if err != nil {
			return nil, conv, fmt.Errorf("questions: %w", err)
		}
		for i, row := range rows {
			conv.Total++
			id := fmt.Sprintf("%s-%s-%d", qf.source, row["db_name"], i+1)
			db := dbs[row["db_name"]]
			if db == nil {
				conv.Dropped = append(conv.Dropped, Dropped{id, fmt.Sprintf("unknown database %q", row["db_name"])})
				continue
			}
			gold, err := convertQuery(row["query"], db)
			if err != nil {
				conv.Dropped = append(conv.Dropped, Dropped{id, err.Error()})
				continue
			}
			if gold.expanded {
				conv.Expanded++
			}
			if gold.several {
				conv.FirstOfSeveral++
			}
			question := strings.TrimSpace(row["question"])
			// sql-eval puts the instructions in the prompt beside the
			// question: they are part of what the user says.
			if ins := strings.TrimSpace(row["instructions"]); ins != "" {
				question += "\n\n" + ins
			}
			f.Items = append(f.Items, eval.Item{
				ID:       id,
				Category: row["db_name"] + "/" + row["query_category"],
				Question: question,
				SQL:      gold.sql,
				Match:    match,
			})
		}
	}
	return f, conv, nil
}

// readQuestions reads one embedded question file into rows keyed by the
// header's column names.
func readQuestions(file string) ([]map[string]string, error) {
	data, err := dataFS.ReadFile("data/questions/" + file)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", file, err)
	}
	records := parseCSV(string(data))
	if len(records) < 2 {
		return nil, fmt.Errorf("read %s: no rows", file)
	}
	header := records[0]
	for _, col := range []string{"question", "query", "db_name", "query_category"} {
		if !slices.Contains(header, col) {
			return nil, fmt.Errorf("read %s: no column %q", file, col)
		}
	}
	rows := make([]map[string]string, 0, len(records)-1)
	for i, rec := range records[1:] {
		if len(rec) != len(header) {
			return nil, fmt.Errorf("read %s: record %d has %d fields, want %d", file, i+1, len(rec), len(header))
		}
		row := map[string]string{}
		for j, col := range header {
			row[col] = rec[j]
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// parseCSV reads CSV as Python's csv module (which wrote sql-eval's files)
// does: text after a closing quote stays in the field, without the quote.
// One question has such a stray quote, which encoding/csv rejects even
// with LazyQuotes.
func parseCSV(data string) [][]string {
	var records [][]string
	var rec []string
	var field strings.Builder
	quoted, afterQuote := false, false
	endField := func() {
		rec = append(rec, field.String())
		field.Reset()
		quoted, afterQuote = false, false
	}
	for i := 0; i < len(data); i++ {
		ch := data[i]
		switch {
		case quoted && ch == '"' && i+1 < len(data) && data[i+1] == '"':
			field.WriteByte('"')
			i++
		case quoted && ch == '"':
			quoted, afterQuote = false, true
		case quoted:
			field.WriteByte(ch)
		case ch == '"' && field.Len() == 0 && !afterQuote:
			quoted = true
		case ch == ',':
			endField()
		case ch == '\n':
			endField()
			records = append(records, rec)
			rec = nil
		case ch != '\r':
			field.WriteByte(ch)
		}
	}
	if field.Len() > 0 || len(rec) > 0 {
		endField()
		records = append(records, rec)
	}
	return records
}

// goldQuery is a converted gold query.
type goldQuery struct {
	sql      string
	expanded bool // {a, b} alternatives were expanded
	several  bool // the cell held several queries
}

// convertQuery makes a gold cell runnable in db's schema: its first query,
// with alternative columns expanded and every relation qualified.
func convertQuery(cell string, db *database) (goldQuery, error) {
	// The parser rejects the {a, b} notation; the scanner does not.
	stmts, err := pg_query.SplitWithParser(cell, true)
	if err != nil {
		if stmts, err = pg_query.SplitWithScanner(cell, true); err != nil {
			return goldQuery{}, fmt.Errorf("split: %w", err)
		}
	}
	stmts = slices.DeleteFunc(stmts, func(s string) bool { return strings.TrimSpace(s) == "" })
	if len(stmts) == 0 {
		return goldQuery{}, errors.New("no query")
	}
	var g goldQuery
	g.several = len(stmts) > 1
	sql, expanded, err := expandAlternatives(stmts[0])
	if err != nil {
		return goldQuery{}, err
	}
	g.expanded = expanded
	if g.sql, err = qualifyQuery(sql, db); err != nil {
		return goldQuery{}, err
	}
	return g, nil
}

// qualifyQuery moves every relation of sql into db's schema (see qualify)
// and prints the query back.
func qualifyQuery(sql string, db *database) (string, error) {
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return "", fmt.Errorf("parse: %w", err)
	}
	if n := len(tree.GetStmts()); n != 1 {
		return "", fmt.Errorf("parse: %d statements, want 1", n)
	}
	qualify(tree, db.name, db.from...)
	out, err := pg_query.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("deparse: %w", err)
	}
	return out, nil
}

// Tokens of the {a, b} notation, which PostgreSQL's scanner passes through
// as single characters.
const (
	tokOpenBrace  = pg_query.Token('{')
	tokCloseBrace = pg_query.Token('}')
)

// expandAlternatives replaces sql-eval's alternative columns: "{a, b}"
// (any of the columns is a right answer) becomes its first choice "a", and
// "{}" (GROUP BY {}) repeats the choice of the group before it. It works on
// scanner tokens, so braces in strings and comments are left alone, and it
// refuses what it cannot expand reliably: nested or unbalanced braces and a
// "{}" with no group before it.
func expandAlternatives(sql string) (string, bool, error) {
	scan, err := pg_query.Scan(sql)
	if err != nil {
		return "", false, fmt.Errorf("scan: %w", err)
	}
	toks := scan.GetTokens()
	var out strings.Builder
	last, choice, expanded := 0, "", false
	for i := 0; i < len(toks); i++ {
		switch toks[i].GetToken() {
		case tokCloseBrace:
			return "", false, errors.New("alternative columns: '}' without '{'")
		case tokOpenBrace:
		default:
			continue
		}
		open := toks[i]
		end, depth := -1, 0 // end: where the first choice ends
		j := i + 1
	scan:
		for ; j < len(toks); j++ {
			switch toks[j].GetToken() {
			case tokOpenBrace:
				return "", false, errors.New("alternative columns: nested braces")
			case tokCloseBrace:
				break scan
			case pg_query.Token_ASCII_40:
				depth++
			case pg_query.Token_ASCII_41:
				depth--
			case pg_query.Token_ASCII_44:
				if depth == 0 && end < 0 {
					end = int(toks[j].GetStart())
				}
			}
		}
		if j == len(toks) {
			return "", false, errors.New("alternative columns: '{' without '}'")
		}
		closing := toks[j]
		if end < 0 {
			end = int(closing.GetStart())
		}
		switch first := strings.TrimSpace(sql[open.GetEnd():end]); {
		case first != "":
			choice = first
		case j > i+1:
			return "", false, errors.New("alternative columns: empty first choice")
		case choice == "":
			return "", false, errors.New("alternative columns: '{}' before any group to repeat")
		}
		out.WriteString(sql[last:open.GetStart()])
		out.WriteString(choice)
		last, i, expanded = int(closing.GetEnd()), j, true
	}
	out.WriteString(sql[last:])
	return out.String(), expanded, nil
}
