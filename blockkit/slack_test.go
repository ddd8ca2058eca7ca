package blockkit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestAsked(t *testing.T) {
	t.Parallel()
	m := Asked("U123", "Games with <script> & more\nsince 2018?")
	got := PlainText(m.Blocks)
	assert.Equal(t, "<@U123> asked: Games with <script> & more since 2018?", strings.TrimSpace(got), "plain text")
	assert.Contains(t, m.Text, "&lt;script&gt; &amp; more", "Slack control characters are escaped")
	assert.Contains(t, m.Text, "<@U123>", "the user is mentioned")
}

func TestHelp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		examples []string
		want     []string
	}{
		{name: "with examples", examples: []string{"Top 5 publishers by games?", "Average price of paid games?"},
			want: []string{"/ask Top 5 publishers by games?", "Try asking:", "“Average price of paid games?”", "no mention needed", "Export CSV"}},
		{name: "without examples", want: []string{"/ask your question", "/ask help"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := Help("/ask", "Steam games", tt.examples)
			got := PlainText(m.Blocks)
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			assert.True(t, strings.HasPrefix(got, "*Ask me about Steam games.*"), "got %q", got)
			if len(tt.examples) == 0 {
				assert.NotContains(t, got, "Try asking", "no examples, no list")
				assert.NotContains(t, got, "2018", "no question about data the bot may not serve")
				assert.NotContains(t, got, "2017", "no follow-up about data the bot may not serve")
			}
			assert.NotEmpty(t, m.Text, "fallback text")
		})
	}
}

func TestQueryOtherLanguage(t *testing.T) {
	t.Parallel()
	m := Query("a1b2c3d4", "How many <games>?", warehouse.Shown{Language: "Cube query", Text: "{\n  \"measures\": [\"Apps.count\"]\n}",
		SQL: `SELECT count("apps".app_id) "apps__count" FROM analytics.apps AS "apps"`, SQLBy: "Cube"})
	got := PlainText(m.Blocks)
	for _, want := range []string{"*Cube query for:* How many <games>?", `"measures": ["Apps.count"]`, "*SQL that Cube runs for it:*", `SELECT count("apps".app_id)`} {
		assert.Contains(t, got, want)
	}
	assert.Contains(t, m.Text, "&lt;games&gt;", "escaped fallback")

	none := PlainText(Query("a1b2c3d4", "", warehouse.Shown{Language: "Cube query", Text: "{}", SQLBy: "Cube"}).Blocks)
	assert.Contains(t, none, "Cube did not return the SQL")

	sql := Query("a1b2c3d4", "How many games?", warehouse.Shown{Language: "SQL", Text: "SELECT 1"})
	assert.Equal(t, SQL("a1b2c3d4", "SELECT 1", "How many games?"), sql, "SQL is shown as SQL")
}
