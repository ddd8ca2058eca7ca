package pgwarehouse

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// prompt is the SQL generator's prompt, rendered by package prompts.
//
//go:embed prompt.tmpl
var prompt string

// dialect is PostgreSQL's SQL as the generator and users meet it.
func (b *Backend) dialect() warehouse.Dialect {
	return warehouse.Dialect{
		Language:   "SQL",
		Step:       string(llm.StepGenerateSQL),
		Prompt:     prompt,
		Describe:   describe,
		TableName:  tableName,
		ColumnName: columnName,
		Quoting:    warehouse.QuoteSQL,
		Parse:      parseReply,
		Writing:    "Writing SQL…",
		Checking:   "Checking the SQL…",
		Source:     "the database",
		Scope:      schemaScope(b.cfg.Schemas),
		EmptyHint:  "Whoever runs this bot should check ANALYTICS_SCHEMA and the reader role's access.",
		AuthHint: fmt.Sprintf("Whoever runs this bot should check that the reader role %s can log in (`analyticsbot migrate`, READER_DATABASE_URL).",
			b.cfg.Role),
		Fingerprint:     fingerprint,
		Uncommented:     sqlguard.WithoutComments,
		FingerprintForm: FingerprintForm,
		Tables:          tables,
	}
}

// schemaScope names the schemas for users: `the "analytics" schema`.
func schemaScope(schemas []string) string {
	quoted := make([]string, len(schemas))
	for i, s := range schemas {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	if len(quoted) == 1 {
		return "the " + quoted[0] + " schema"
	}
	return "the " + strings.Join(quoted, ", ") + " schemas"
}

// describe lists tables for the prompt: per table a TABLE line with its
// schema and comment, then its columns with their types, comments and,
// names written as SQL must write them (sqlguard.Ident), comments on one line;
// for a column with few values, those values; a table described in part
// ends with how many columns it leaves out.
func describe(tables []warehouse.Table) string {
	var b strings.Builder
	for _, t := range tables {
		b.WriteString("\nTABLE " + tableName(t))
		if t.Comment != "" {
			b.WriteString(" -- " + warehouse.OneLine(t.Comment))
		}
		b.WriteByte('\n')
		for _, c := range t.Columns {
			b.WriteString("  " + sqlguard.Ident(c.Name) + " " + c.Type)
			comment := warehouse.OneLine(c.Comment)
			switch {
			case comment != "" && len(c.Values) > 0:
				b.WriteString(" -- " + comment + "; values: " + warehouse.DescribeValues(c.Values))
			case comment != "":
				b.WriteString(" -- " + comment)
			case len(c.Values) > 0:
				b.WriteString(" -- values: " + warehouse.DescribeValues(c.Values))
			}
			b.WriteByte('\n')
		}
		if t.LeftOut > 0 {
			b.WriteString("  " + warehouse.DescribeLeftOut(t.LeftOut) + "\n")
		}
	}
	return b.String()
}

// sqlReply is the generator's reply.
type sqlReply struct {
	SQL         string   `json:"sql"`
	Assumptions []string `json:"assumptions"`
	Explanation string   `json:"explanation"`
}

var (
	fencedSQL = regexp.MustCompile("(?s)```(?:sql|SQL|postgresql|postgres)?\\s*\\n(.*?)```")
	// A bare statement starts a line (any case), or is an upper-case SELECT
	// inside a sentence; WITH must open a CTE, so prose "with" is no SQL.
	bareSQL = regexp.MustCompile(`(?ims)^\s*(?:SELECT\s|WITH\s+(?:RECURSIVE\s+)?[\w"]+\s*(?:\([^)]*\))?\s*AS\b).*|(?-i)\bSELECT\s.*`)
)

// parseReply reads the generator's reply: JSON first, then a fenced ```sql
// block, then a bare SELECT/WITH statement.
func parseReply(reply string) (warehouse.Generated, bool) {
	var r sqlReply
	if err := llm.DecodeJSON(reply, &r); err == nil && strings.TrimSpace(r.SQL) != "" {
		return warehouse.Generated{Text: cleanSQL(r.SQL), Assumptions: r.Assumptions, Explanation: r.Explanation}, true
	}
	if m := fencedSQL.FindStringSubmatch(reply); m != nil && strings.TrimSpace(m[1]) != "" {
		return warehouse.Generated{Text: cleanSQL(m[1])}, true
	}
	if m := bareSQL.FindString(reply); m != "" {
		return warehouse.Generated{Text: cleanSQL(m)}, true
	}
	return warehouse.Generated{}, false
}

// cleanSQL trims white space and a trailing semicolon, which the validator
// would otherwise count for nothing and the LIMIT clamp would trip on.
func cleanSQL(sql string) string {
	sql = strings.TrimSpace(sql)
	for strings.HasSuffix(sql, ";") {
		sql = strings.TrimSpace(strings.TrimSuffix(sql, ";"))
	}
	return sql
}
