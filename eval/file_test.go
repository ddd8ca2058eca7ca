package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	f, err := Parse([]byte(`
name: t
items:
  - id: a
    question: How many games?
    sql: SELECT count(*) FROM apps
    match: {ordered: true, tolerance: 0.01, extra_columns: true}
  - id: b
    category: decline
    question: Tell me a joke
    decline: true
`))
	require.NoError(t, err)
	require.Len(t, f.Items, 2)
	assert.Equal(t, "uncategorised", f.Items[0].Category, "an item without a category")
	assert.Equal(t, Match{Ordered: true, Tolerance: 0.01, ExtraColumns: true}, f.Items[0].Match)
	assert.True(t, f.Items[1].Decline)

	asks, err := Parse([]byte("items:\n  - {id: a, question: q, ask_back: {options: [x, y]}}"))
	require.NoError(t, err, "asking back needs no gold query")
	assert.Equal(t, &AskBack{Options: []string{"x", "y"}}, asks.Items[0].AskBack)

	tests := []struct {
		name, yaml, want string
	}{
		{"no items", `name: t`, "no items"},
		{"no id", "items:\n  - question: q\n    sql: SELECT 1", "no id"},
		{"twice the same id", "items:\n  - {id: a, question: q, sql: SELECT 1}\n  - {id: a, question: q, sql: SELECT 1}", "used twice"},
		{"no question", "items:\n  - {id: a, sql: SELECT 1}", "no question"},
		{"no answer", "items:\n  - {id: a, question: q}", "no gold sql or rows"},
		{"a misspelt field", "items:\n  - {id: a, question: q, sql: SELECT 1, ordred: true}", "ordred"},
		{"ask back with one option", "items:\n  - {id: a, question: q, ask_back: {options: [x]}}", "ask_back needs 2 to 5 options, not 1"},
		{"ask back with six options", "items:\n  - {id: a, question: q, ask_back: {options: [a, b, c, d, e, f]}}", "ask_back needs 2 to 5 options, not 6"},
		{"ask back choosing no option", "items:\n  - {id: a, question: q, sql: SELECT 1, ask_back: {options: [x, y], choose: z}}", `chooses "z", which is not one of its options`},
		{"ask back choosing without gold", "items:\n  - {id: a, question: q, ask_back: {options: [x, y], choose: x}}", "no gold sql or rows"},
		{"ask back and decline", "items:\n  - {id: a, question: q, decline: true, ask_back: {options: [x, y]}}", "cannot both decline and ask back"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
