package terminal

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// attack is a warehouse value that, printed as it is, clears the screen
// and retitles the window (chr(27)||'[2J'||chr(27)||']0;pwned'||chr(7)).
const attack = "\x1b[2J\x1b]0;pwned\a"

// hostile is an answer every field of which, from the warehouse or the
// model, holds characters a terminal acts on.
func hostile() *answer.Answer {
	return &answer.Answer{
		Kind: answer.KindAnswer,
		Text: answer.Text{{Text: "Top: " + attack}, {Text: "\u009b31m", Bold: true}, {Text: "x\u202egnp.exe", Code: true},
			{Text: "here", Link: "https://x.test/\u009c\x1b]0;t\a"}},
		Result: &warehouse.Result{
			Columns:  []warehouse.Column{{Name: "name\x1b[8m", Kind: warehouse.KindText}, {Name: "n", Kind: warehouse.KindNumber}},
			Rows:     [][]any{{attack, int64(1)}, {"a\rb\x7f\x00", int64(2)}},
			RowCount: 2,
		},
		Chart: &chart.Spec{Type: chart.Bar, Categories: []string{attack, "b"},
			Series: []chart.Series{{Name: "n\x1b[5m", Values: []float64{1, 2}}}},
		Assumptions: []string{"all\x1b[2K rows"}, FollowUps: []string{"And \x1b[1Ain 2017?"},
	}
}

// ownStyle matches the escape sequences Render writes itself: bold, dim,
// reset and OSC 8 hyperlinks.
var ownStyle = regexp.MustCompile(`\x1b\[[012]m|\x1b\]8;;[^\x1b\a]*\x1b\\`)

// Text from the warehouse or the model never drives the terminal: its
// control characters print as �, plain or styled, while the bot's own
// bold still works.
func TestRenderInert(t *testing.T) {
	t.Parallel()
	for _, ansi := range []bool{false, true} {
		got := Render(hostile(), Options{ANSI: ansi, Numbered: true})
		rest := ownStyle.ReplaceAllString(got, "")
		for _, c := range rest {
			if c != '\n' && (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || (c >= 0x202a && c <= 0x202e)) {
				t.Errorf("ANSI %v: the output holds %U:\n%q", ansi, c, got)
			}
		}
		assert.Contains(t, rest, "Top: �[2J�]0;pwned�", "ANSI %v: the prose shows the sequence, inert", ansi)
		assert.Contains(t, rest, "‘x�gnp.exe’", "ANSI %v: a bidi override shown, not obeyed", ansi)
		assert.Contains(t, rest, "\n�[2J�]0;pwned�  1\n", "ANSI %v: the cell, inert and aligned", ansi)
		assert.Contains(t, rest, "\na b��           2\n", "ANSI %v: a carriage return, DEL and NUL in a cell", ansi)
		assert.Contains(t, rest, "name�[8m", "ANSI %v: the header", ansi)
		assert.Contains(t, rest, "Assumption: all�[2K rows", "ANSI %v", ansi)
		assert.Contains(t, rest, "1. And �[1Ain 2017?", "ANSI %v", ansi)
		assert.NotContains(t, got, "x.test", "ANSI %v: a link whose address holds controls is its text alone", ansi)
		if ansi {
			assert.Contains(t, got, "\x1b[1m�31m\x1b[0m", "the bot's bold around the inert text")
		}
	}
}

func TestInert(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "Größe 日本 🎮\tok\nnext", "Größe 日本 🎮\tok\nnext"},
		{"escape", "\x1b[2J", "�[2J"},
		{"crlf ends a line", "a\r\nb\rc", "a\nb�c"},
		{"C1 and DEL", "\u0085\u009b\x7f", "���"},
		{"bidi", "\u202a\u202e\u2066\u2069", "����"},
		{"not UTF-8", "a\xffb", "a�b"},
	} {
		if got := Inert(tc.in); got != tc.want {
			t.Errorf("%s: Inert(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// A table's columns are as wide as what they show: a long name is cut,
// a name on two lines is one, and wide characters take two columns.
func TestRenderTableLayout(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a_very_long_column_name_", 4) + "end"
	a := &answer.Answer{Kind: answer.KindAnswer, Text: answer.Plain("Names."),
		Result: &warehouse.Result{
			Columns: []warehouse.Column{{Name: long, Kind: warehouse.KindText}, {Name: "name\nx", Kind: warehouse.KindText},
				{Name: "n", Kind: warehouse.KindNumber}},
			Rows:     [][]any{{"a", "日本語", int64(1)}, {"b", "🎮 game", int64(22)}, {"c", "abc", int64(3)}},
			RowCount: 3,
		}}
	got := Render(a, Options{})
	want := `Names.

a_very_long_column_name_a_very_long_col…  name x   n
----------------------------------------  -------  --
a                                         日本語    1
b                                         🎮 game  22
c                                         abc       3

  3 rows
`
	assert.Equal(t, want, got)
}
