// Package answer is the bot's reply as the workflow produces it, free of any
// surface's syntax: text with neutral emphasis, the result to show as a
// table, a chart, assumptions, actions and follow-up questions. Each surface
// renders it its own way (package blockkit for Slack, package web's reply
// JSON for the page, package terminal for the command line), and the stored
// turn keeps it so a reply can be shown again later (a reloaded web page).
package answer

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Kind is what a reply is.
type Kind string

// The kinds of reply.
const (
	// KindAnswer answers a question from a result.
	KindAnswer Kind = "answer"
	// KindNotice says something that is not an answer: a decline, the note
	// of a CSV export, a thanks for feedback.
	KindNotice Kind = "notice"
	// KindError says what went wrong and what to try instead.
	KindError Kind = "error"
	// KindQuery shows the query of an earlier answer (Show SQL).
	KindQuery Kind = "query"
	// KindClarify asks back: Text is a short question about what the
	// question meant, and each of Choices asks it again with one reading.
	KindClarify Kind = "clarify"
)

// Choice is one option of a question the bot asks back: its label, and
// the question that choosing it asks in the thread (the question it
// clarifies, with the choice).
type Choice struct {
	Label string `json:"label"`
	Ask   string `json:"ask"`
}

// Action is a button under an answer. Its value is the answer's query id,
// unless it has its own.
type Action struct {
	// ID is the action id the surfaces route on (an intent).
	ID    string `json:"id"`
	Label string `json:"label"`
	// Value, when set, is what the button carries instead of the query id
	// (a schedule's id).
	Value string `json:"value,omitempty"`
}

// ValueOf is what a pressed action carries: its own value, else the
// answer's query id.
func (x Action) ValueOf(queryID string) string {
	if x.Value != "" {
		return x.Value
	}
	return queryID
}

// Answer is one reply.
type Answer struct {
	Kind Kind `json:"kind"`
	// Question is the question answered, as the bot understood it.
	Question string `json:"question,omitempty"`
	// Text is the reply's prose.
	Text Text `json:"text,omitempty"`
	// Questions are questions the user could ask instead (a notice's or an
	// error's); choosing one asks it.
	Questions []string `json:"questions,omitempty"`
	// Result is the result to show as a table; nil when there is none. A
	// single value is said in Text and shows no table (see ShowsTable).
	Result *warehouse.Result `json:"result,omitempty"`
	// Units are the units of Result's number columns that the catalog's
	// descriptions state, by lower-case column name ("price" → £).
	Units map[string]Unit `json:"units,omitempty"`
	// Links are the links file's rules that apply to Result: its cells
	// (and their mentions in Text) link to what they name.
	Links Links `json:"links,omitempty"`
	// TotalRows is how many rows the result had when a stored reply keeps
	// fewer (Marshal); 0: Result holds them all. See Rows.
	TotalRows int `json:"total_rows,omitempty"`
	// Chart draws the result above its table; nil: none.
	Chart *chart.Spec `json:"chart,omitempty"`
	// Assumptions are the interpretation choices the user should know.
	Assumptions []string `json:"assumptions,omitempty"`
	// QueryID is the value of the actions; empty means none.
	QueryID string   `json:"query_id,omitempty"`
	Actions []Action `json:"actions,omitempty"`
	// Feedback asks for 👍/👎 on the answer (with QueryID).
	Feedback bool `json:"feedback,omitempty"`
	// VerifiedBy, when not empty, marks the answer's query as one the data
	// team verified: a Slack user ID, "file" (the examples file) or a name.
	VerifiedBy string `json:"verified_by,omitempty"`
	// Elapsed is how long answering took; zero hides it.
	Elapsed time.Duration `json:"elapsed,omitempty"`
	// DataAsOf is when Result ran, for an answer served from a recent
	// result without running its query; zero: it ran now.
	DataAsOf time.Time `json:"data_as_of,omitzero"`
	// Backend names where the data came from; optional.
	Backend string `json:"backend,omitempty"`
	// Query is the query Show SQL shows (KindQuery).
	Query *warehouse.Shown `json:"query,omitempty"`
	// FollowUps are questions the user may want to ask next; choosing one
	// asks it in the same thread.
	FollowUps []string `json:"follow_ups,omitempty"`
	// Choices are the options of a question asked back (KindClarify);
	// choosing one asks its Ask in the same thread.
	Choices []Choice `json:"choices,omitempty"`
}

// ShowsTable reports whether the answer shows its result as a table: not
// when there is no row, nor for a single value that the text already says.
func (a *Answer) ShowsTable() bool {
	r := a.Result
	if r == nil || len(r.Columns) == 0 || len(r.Rows) == 0 {
		return false
	}
	single := len(r.Rows) == 1 && len(r.Columns) == 1 && !r.Truncated
	return !single || len(a.Text) == 0
}

// Rows is how many rows the result had, whether or not Result still
// holds them all.
func (a *Answer) Rows() int {
	if a.Result == nil {
		return 0
	}
	return max(a.TotalRows, len(a.Result.Rows))
}

// Plain is the reply as one line of plain text, for notifications, logs
// and fallbacks.
func (a *Answer) Plain() string {
	if t := strings.TrimSpace(a.Text.Plain()); t != "" {
		return t
	}
	if r := a.Result; r != nil && len(r.Columns) > 0 {
		return fmt.Sprintf("Here is the result: %s.", Plural(a.Rows(), "row", "rows"))
	}
	if q := strings.TrimSpace(a.Question); q != "" {
		return "Answer to: " + q
	}
	return "Here is your answer."
}

// maxStoredRows bounds the rows a stored reply keeps: what any surface
// shows (Slack's table holds 99), not the whole result, which the result
// cache and the export have.
const maxStoredRows = 100

// Marshal encodes the reply for storage, its result cut to the rows a
// surface shows; Unmarshal reads its values back as they were (an int64,
// a float64: warehouse.JSONValue), so a reloaded answer shows the numbers
// the live one did.
func Marshal(a *Answer) ([]byte, error) {
	c := *a
	if r := a.Result; r != nil {
		stored := *r
		if len(r.Rows) > maxStoredRows {
			stored.Rows, stored.RowCount = r.Rows[:maxStoredRows], maxStoredRows
			c.TotalRows = a.Rows()
		}
		rows := make([][]any, len(stored.Rows))
		for i, row := range stored.Rows {
			rows[i] = make([]any, len(row))
			for j, v := range row {
				rows[i][j] = warehouse.JSONValue(v)
			}
		}
		stored.Rows, c.Result = rows, &stored
	}
	return json.Marshal(&c)
}

// Unmarshal decodes a stored reply (Marshal).
func Unmarshal(data []byte) (*Answer, error) {
	var a Answer
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("decode the stored reply: %w", err)
	}
	if a.Result != nil {
		for _, row := range a.Result.Rows {
			for j, v := range row {
				row[j] = warehouse.ReadJSONValue(v)
			}
		}
	}
	return &a, nil
}

// Plural returns "1 row" or "3 rows", the count with thousands separators.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(fmt.Sprint(n)) + " " + many
}
