package nodes

import (
	"testing"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestInventedNumbers(t *testing.T) {
	t.Parallel()
	res := warehouse.Result{
		Columns:  []warehouse.Column{{Name: "genre"}, {Name: "avg_price"}, {Name: "games"}},
		Rows:     [][]any{{"Action", "7.4567", int64(8160)}, {"Indie", 3.14159, int64(12000)}},
		RowCount: 2,
	}
	tests := []struct {
		name   string
		answer string
		want   int
	}{
		{"numbers from the rows", "*Action* leads with *8,160* games at £7.46 on average; Indie has 12000.", 0},
		{"rounded float", "Indie averages 3.1 or 3.14.", 0},
		{"year from the question", "In 2018 there were 8160.", 0},
		{"small ranks pass", "The top 2 genres are shown.", 0},
		{"invented total", "Together they have 20,160 games.", 1},
		{"year from the SQL", "In 2017 the top genre was Action.", 0},
		{"invented percentage", "That is 47.5% of all games.", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := inventedNumbers(tt.answer, res, "genres in 2018 and last year\nSELECT … WHERE release_year = 2017"); len(got) != tt.want {
				t.Errorf("inventedNumbers(%q) = %v, want %d invented", tt.answer, got, tt.want)
			}
		})
	}
}

func TestSQLKeywordsAndSlug(t *testing.T) {
	t.Parallel()
	if got := sqlKeywords("Show the SQL for the revenue query"); len(got) != 1 || got[0] != "revenue" {
		t.Errorf("sqlKeywords = %v, want [revenue]", got)
	}
	if got := sqlKeywords("show me the sql"); len(got) != 0 {
		t.Errorf("sqlKeywords = %v, want none", got)
	}
	tests := []struct{ in, want string }{
		{"How many games were released in 2018?", "how-many-games-were-released-in-2018"},
		{"???", "query"},
		{"Ünïcode — only", "n-code-only"},
	}
	for _, tt := range tests {
		if got := slug(tt.in); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
