package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestRenderGolden(t *testing.T) {
	history := []Exchange{
		{User: "How many games were released in 2018?", Bot: "*8,160* games were released in 2018.", QueryID: "a1b2c3d4"},
	}
	// The choices as nodes.Choices gives them (nodes/intents_test.go checks
	// the table renders them).
	choices := []Choice{
		{"analytics_query", "a new, self-contained question about the data."},
		{"follow_up", `a question that depends on the conversation so far (refines, filters, compares or drills into an earlier answer; uses words like "those", "that", "them", "what about").`},
		{"export_csv", "the user wants the last result as a file (CSV, download, export)."},
		{"show_sql", "the user wants to see the SQL query behind an answer."},
		{"off_topic", "anything that is not a question about the data (greetings, jokes, general knowledge, requests to change data)."},
	}
	scheduling := append(slices.Clone(choices), Choice{"schedule", `the user wants an earlier answer sent again on a recurrence, or an alert when its numbers meet a condition ("send me this every Monday", "ping me if it goes over 100"); not a question about daily, weekly or monthly figures.`})
	tests := []struct {
		name string
		data any
	}{
		{"classify_new", Classify{Domain: "Steam games", Question: "How many games were released in 2018?", Intents: choices}},
		{"classify_history", Classify{Domain: "Steam games", Question: "and in 2017?", History: history, Intents: choices}},
		{"classify_schedules", Classify{Domain: "Steam games", Question: "keep me posted on this every week or so", History: history, Intents: scheduling}},
		{"resolve", Resolve{Question: "and in 2017?", History: history}},
		{"schedule", Schedule{Message: "post this to <#C0123ABC|growth> at the end of each week", Ignored: "end of",
			Question: "How many games were released in 2018?", Columns: []string{"games"},
			TimeZone: "Europe/Berlin", Now: "Friday 27 November 2026, 14:05"}},
		{"schedule_unclear", Schedule{Message: "alert me when revenue spikes", Ignored: "revenue spikes",
			Unclear:  "I couldn't read when to alert you.",
			Question: "Revenue per day", Columns: []string{"day", "revenue"}, TimeZone: "UTC", Now: "Friday 27 November 2026, 13:05"}},
		{"interpret", Interpret{Question: "How many games were released in 2018?", Query: "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018",
			Columns: []string{"games"}, RowCount: 1, Rows: "games\n8160"}},
		{"interpret_empty", Interpret{Question: "Games from 2024?", Query: "SELECT name FROM analytics.apps WHERE release_year = 2024", Columns: []string{"name"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run go test ./prompts -update): %v", err)
			}
			if got != string(want) {
				t.Errorf("prompt %s differs from %s:\ngot:\n%s\nwant:\n%s", tt.name, path, got, want)
			}
			if !strings.HasSuffix(strings.TrimSpace(got), lastLine(tt.data)) {
				t.Errorf("prompt %s must end with the line the scripted model matches on, %q", tt.name, lastLine(tt.data))
			}
		})
	}
}

// lastLine is the line a prompt ends with: the question, or the schedule
// request's message.
func lastLine(d any) string {
	if s, ok := d.(Schedule); ok {
		return "Message: " + s.Message
	}
	return "Question: " + questionOf(d)
}

func questionOf(d any) string {
	switch d := d.(type) {
	case Classify:
		return d.Question
	case Resolve:
		return d.Question
	case GenerateQuery:
		return d.Question
	case Interpret:
		return d.Question
	}
	return ""
}

func TestRenderUnknownType(t *testing.T) {
	if _, err := Render(struct{}{}); err == nil {
		t.Error("Render(struct{}{}) succeeded, want an error")
	}
}

func TestRenderGenerator(t *testing.T) {
	tests := []struct {
		name    string
		prompt  string
		want    string
		wantErr string
	}{
		{name: "fields", prompt: "{{.Domain}}: {{.Catalog}}\nQuestion: {{.Question}}", want: "games: TABLE x\nQuestion: q"},
		{name: "no prompt", prompt: " ", wantErr: "the dialect has no prompt"},
		{name: "unknown field", prompt: "{{.Schema}}", wantErr: "can't evaluate field Schema"},
		{name: "bad template", prompt: "{{.Domain", wantErr: "parse the generator prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(GenerateQuery{Prompt: tt.prompt, Domain: "games", Catalog: "TABLE x", Question: "q"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseExamples(t *testing.T) {
	if n := len(DefaultExamples()); n < 3 {
		t.Errorf("got %d default examples, want at least 3", n)
	}
	if _, err := ParseExamples([]byte("- question: q\n")); err == nil || !strings.Contains(err.Error(), "example 1") {
		t.Errorf("got %v, want an error naming example 1", err)
	}
	// A misspelt key is refused, by its line, not dropped: the team would
	// believe the assumption is shown with the example.
	misspelt := "- question: q1\n  sql: SELECT 1\n- question: q2\n  sql: SELECT 2\n  assumption:\n    - Two is two.\n"
	_, err := ParseExamples([]byte(misspelt))
	want := `parse examples: line 5: example 2 has an unknown key "assumption" (want one of question, sql, assumptions, explanation)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	got, err := ParseExamples([]byte("- question: q\n  sql: SELECT 1\n  assumptions: [a]\n  explanation: e\n"))
	if err != nil || len(got) != 1 || got[0].Explanation != "e" || len(got[0].Assumptions) != 1 {
		t.Errorf("got %+v, %v; want the one example whole", got, err)
	}
	if _, err := ParseExamples([]byte("- just a question\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("got %v, want an error naming line 1", err)
	}
}

func TestData(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{name: "plain", in: "Indie games", max: 20, want: "Indie games"},
		{name: "line breaks and tabs", in: "a\nb\r\nc\td", max: 0, want: `a\nb\r\nc\td`},
		{name: "other controls and separators", in: "x\x1b[2J\u2028y\u0085", max: 0, want: `x\u001b[2J\u2028y\u0085`},
		{name: "cut", in: "ééééé", max: 3, want: "ééé…"},
		{name: "exactly max", in: "abc", max: 3, want: "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Data(tt.in, tt.max); got != tt.want {
				t.Errorf("Data(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}
