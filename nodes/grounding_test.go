package nodes

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// With a catalog bigger than the budget the generator is shown the tables
// the question needs, and the retry after a failed query is shown the same.
func TestGeneratorSeesTheTablesTheQuestionNeeds(t *testing.T) {
	t.Parallel()
	n, model := newNodes(t, []llm.Rule{reply(llm.StepGenerateSQL, sqlReply2018)})
	n.SchemaBudget = 1200
	thread := threadID(t)
	s := State{UserQuery: "Which genres have the most games?", Intent: IntentAnalytics, ThreadTS: thread}
	require.NoError(t, n.GenerateQuery(context.Background(), &s))
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	require.NotNil(t, s.Grounding)
	assert.False(t, s.Grounding.Whole, "the demo catalog does not fit 1,200 tokens")
	assert.LessOrEqual(t, s.Grounding.Tokens, 1200)
	first := onlyPrompt(t, model)
	for _, want := range []string{"TABLE analytics.genres", "TABLE analytics.app_genres", "Other tables, not described here: "} {
		assert.Contains(t, first, want)
	}
	assert.NotContains(t, first, "TABLE analytics.platforms", "a table the question does not need")

	// The retry: same context, plus the failed attempt.
	model.Reset()
	s.ErrorKind, s.ErrorDetail = ErrInvalidQuery, `column "x" does not exist`
	require.NoError(t, n.GenerateQuery(context.Background(), &s))
	retry := onlyPrompt(t, model)
	catalogOf := func(p string) string {
		_, rest, _ := strings.Cut(p, "Schema \"analytics\":")
		before, _, _ := strings.Cut(rest, "Examples:")
		return before
	}
	assert.Equal(t, catalogOf(first), catalogOf(retry), "the retry is shown the same tables")
	assert.Contains(t, retry, `Error: column "x" does not exist`)
}

// A follow-up's earlier query keeps its tables in the context, whatever
// words the follow-up uses.
func TestGeneratorKeepsTheThreadsTables(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, []llm.Rule{reply(llm.StepGenerateSQL, sqlReply2018)})
	n.SchemaBudget = 900
	earlier := "SELECT p.name, count(*) FROM analytics.platforms p JOIN analytics.app_platforms ap USING (platform_id) GROUP BY 1"
	s := State{UserQuery: "And only for 2018?", Intent: IntentFollowUp, ThreadTS: threadID(t),
		History: []store.Turn{{UserMessage: "Games per platform?", Query: pgQuery(earlier), QueryID: "0a0a0a0a"}}}
	require.NoError(t, n.GenerateQuery(context.Background(), &s))
	require.NotNil(t, s.Grounding)
	var chosen []string
	for _, tb := range s.Grounding.Tables {
		chosen = append(chosen, tb.QualifiedName())
	}
	assert.Contains(t, chosen, "analytics.platforms")
	assert.Contains(t, chosen, "analytics.app_platforms")
	assert.Contains(t, s.Grounding.Tables[0].Reasons, "used earlier in the thread")
}

// fakeValues is a value lookup that finds the same values for every
// question.
type fakeValues []store.ValueMatch

func (f fakeValues) QueueLookup(context.Context, *store.Reads, string) func(context.Context) ([]store.ValueMatch, error) {
	return func(context.Context) ([]store.ValueMatch, error) { return f, nil }
}

func (f fakeValues) Listed(context.Context) (map[warehouse.ColumnRef][]string, error) {
	return nil, nil
}

// The values the lookup finds go into the prompt, by column, and lift their
// table in the ranking.
func TestGeneratorIsToldStoredValues(t *testing.T) {
	t.Parallel()
	n, model := newNodes(t, []llm.Rule{reply(llm.StepGenerateSQL, sqlReply2018)})
	n.SchemaBudget = 1000
	col := store.ValueColumn{Backend: "postgres", Schema: "analytics", Table: "developers", Column: "name"}
	n.Values = fakeValues{
		{ValueColumn: col, Value: "Ubisoft  Shanghaï", Phrase: "Ubisoft Shanghai", Similarity: 0.88},
		{ValueColumn: col, Value: "Ubisoft Shanghai", Phrase: "Ubisoft Shanghai", Similarity: 1, Exact: true},
	}
	s := State{UserQuery: "How many titles did Ubisoft Shanghai make?", Intent: IntentAnalytics, ThreadTS: threadID(t)}
	require.NoError(t, n.GenerateQuery(context.Background(), &s))
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	prompt := onlyPrompt(t, model)
	assert.Contains(t, prompt, "filter on these exact values, not on the question's spelling:\n"+
		"- analytics.developers.name: 'Ubisoft  Shanghaï', 'Ubisoft Shanghai'\n")
	require.NotEmpty(t, s.Grounding.Tables)
	assert.Equal(t, "analytics.developers", s.Grounding.Tables[0].QualifiedName(), "the table holding the values ranks first")
	assert.Contains(t, s.Grounding.Tables[0].Reasons, `value "Ubisoft Shanghai" in name`)
}
