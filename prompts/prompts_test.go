package prompts

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyticsbot/analyticsbot/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestRenderGolden(t *testing.T) {
	history := []Exchange{
		{User: "How many games were released in 2018?", Bot: "*8,160* games were released in 2018.", QueryID: "a1b2c3d4"},
	}
	tables := []store.Table{{
		Schema: "analytics", Name: "apps", Comment: "One row per Steam game.",
		Columns: []store.TableColumn{
			{Name: "app_id", Type: "integer", Comment: "Steam application id."},
			{Name: "release_year", Type: "integer"},
		},
	}}
	tests := []struct {
		name string
		data any
	}{
		{"classify_new", Classify{Domain: "Steam games", Question: "How many games were released in 2018?"}},
		{"classify_history", Classify{Domain: "Steam games", Question: "and in 2017?", History: history}},
		{"resolve", Resolve{Question: "and in 2017?", History: history}},
		{"generate_sql", GenerateSQL{Domain: "Steam games", Question: "How many games were released in 2018?", Today: "2026-11-21",
			Schema: "analytics", Tables: tables, Examples: DefaultExamples()[:1], MaxRows: 1000}},
		{"generate_sql_retry", GenerateSQL{Domain: "Steam games", Question: "How many games were released in 2018?", Today: "2026-11-21",
			Schema: "analytics", Tables: tables, MaxRows: 1000,
			PreviousSQL: "SELECT count(*) FROM analytics.apps WHERE year = 2018", PreviousError: `column "year" does not exist`}},
		{"generate_sql_follow_up", GenerateSQL{Domain: "Steam games", Question: "How many games were released in 2017?", Today: "2026-11-21",
			Schema: "analytics", Tables: tables, MaxRows: 1000, EarlierSQL: "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"}},
		{"generate_cube", GenerateCube{Domain: "Steam games", Question: "How many free games were released in 2018?", Today: "2026-11-21",
			Meta:    "Apps: Steam games, one row per game\n  measures: Apps.count (number): Number of games\n  dimensions: Apps.release_year (number)\n  segments: Apps.free: games with a price of 0",
			MaxRows: 100}},
		{"generate_cube_retry", GenerateCube{Domain: "Steam games", Question: "How many free games were released in 2018?", Today: "2026-11-21",
			Meta: "Apps: Steam games", MaxRows: 100, EarlierQuery: `{"measures":["Apps.count"]}`,
			PreviousQuery: `{"measures":["Apps.cnt"]}`, PreviousError: "'Apps.cnt' is not a member; did you mean 'Apps.count'?"}},
		{"interpret", Interpret{Question: "How many games were released in 2018?", SQL: "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018",
			Columns: []string{"games"}, RowCount: 1, Rows: "games\n8160"}},
		{"interpret_empty", Interpret{Question: "Games from 2024?", SQL: "SELECT name FROM analytics.apps WHERE release_year = 2024", Columns: []string{"name"}}},
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
			if !strings.HasSuffix(strings.TrimSpace(got), "Question: "+questionOf(tt.data)) {
				t.Errorf("prompt %s must end with the question line the scripted model matches on", tt.name)
			}
		})
	}
}

func questionOf(d any) string {
	switch d := d.(type) {
	case Classify:
		return d.Question
	case Resolve:
		return d.Question
	case GenerateSQL:
		return d.Question
	case GenerateCube:
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

func TestParseExamples(t *testing.T) {
	if n := len(DefaultExamples()); n < 3 {
		t.Errorf("got %d default examples, want at least 3", n)
	}
	if _, err := ParseExamples([]byte("- question: q\n")); err == nil || !strings.Contains(err.Error(), "example 1") {
		t.Errorf("got %v, want an error naming example 1", err)
	}
}
