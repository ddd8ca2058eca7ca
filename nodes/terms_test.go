package nodes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
)

// The classifier's reply may name search terms; whatever it says there,
// the intent stands, and only short plain words are kept.
func TestRouteIntentSearchTerms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		want        []string
		intent      Intent
	}{
		{name: "terms", reply: `{"intent":"analytics_query","confidence":0.9,"terms":["publishers"," Ubisoft  Montreal ","release year"]}`,
			want: []string{"publishers", "Ubisoft Montreal", "release year"}, intent: IntentAnalytics},
		{name: "garbage in the list is dropped", reply: `{"intent":"analytics_query","confidence":0.9,"terms":["apps",42,null,"DROP TABLE x;--","","!!!","apps","` +
			"a very long term that goes on and on past forty characters" + `"]}`,
			want: []string{"apps"}, intent: IntentAnalytics},
		{name: "names with punctuation", reply: `{"intent":"analytics_query","confidence":0.9,"terms":["Dungeons & Dragons","O'Brien","sub-genre","steam_appid","St. Louis","50%","a/b"]}`,
			want: []string{"Dungeons & Dragons", "O'Brien", "sub-genre", "steam_appid", "St. Louis"}, intent: IntentAnalytics},
		{name: "not a list", reply: `{"intent":"analytics_query","confidence":0.9,"terms":"publishers"}`, intent: IntentAnalytics},
		{name: "an object", reply: `{"intent":"analytics_query","confidence":0.9,"terms":{"a":1}}`, intent: IntentAnalytics},
		{name: "at most eight", reply: `{"intent":"analytics_query","confidence":0.9,"terms":["a1","b","c","d","e","f","g","h","i","j"]}`,
			want: []string{"a1", "b", "c", "d", "e", "f", "g", "h"}, intent: IntentAnalytics},
		{name: "none for other intents", reply: `{"intent":"off_topic","confidence":0.9,"terms":["weather"]}`, intent: IntentOffTopic},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, []llm.Rule{reply(llm.StepClassify, tc.reply)})
			s := State{UserQuery: "Which studios put out the most games?"}
			require.NoError(t, n.RouteIntent(context.Background(), &s))
			assert.Equal(t, tc.intent, s.Intent)
			assert.Equal(t, "model", s.IntentSource, "notes: %v", s.Notes)
			assert.Equal(t, tc.want, s.SearchTerms)
			assert.Equal(t, 1, model.CallCount(llm.StepClassify), "no extra model call")
		})
	}
}

// The terms reach grounding, which says so, and a glossary entry the
// question names is shown to the generator with what it means.
func TestSearchTermsAndGlossaryReachTheGenerator(t *testing.T) {
	t.Parallel()
	n, model := newNodes(t, []llm.Rule{reply(llm.StepClassify,
		`{"intent":"analytics_query","confidence":0.9,"terms":["publishers"]}`)})
	g, err := lexicon.ParseGlossary([]byte("terms:\n  - term: studio\n    synonyms: [label]\n    means: a publisher (analytics.publishers)\n"))
	require.NoError(t, err)
	n.Lexicon = &lexicon.Lexicon{Glossary: g}
	s := State{UserQuery: "Which studios put out the most games?"}
	require.NoError(t, n.RouteIntent(context.Background(), &s))
	data, err := n.GeneratorPrompt(context.Background(), &s)
	require.NoError(t, err)
	var reasons []string
	for _, tb := range s.Grounding.Tables {
		if tb.Name == "publishers" {
			reasons = tb.Reasons
		}
	}
	assert.Contains(t, reasons, "model term: publishers")
	require.Len(t, s.Glossary, 1)
	assert.Equal(t, "studio", s.Glossary[0].Entry.Term)
	prompt, err := prompts.Render(data)
	require.NoError(t, err)
	assert.Contains(t, prompt, "What terms of the question mean here (the team's glossary):\n- studio: a publisher (analytics.publishers)\n")
	assert.Equal(t, 1, model.CallCount(llm.StepClassify))
}
