package nodes

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
)

// earlierTurns is a thread with one answered question.
func earlierTurns() []store.Turn {
	sql := "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
	return []store.Turn{{
		UserMessage: "How many games were released in 2018?",
		BotResponse: "*8,160* games were released in 2018.",
		Intent:      string(IntentAnalytics),
		Query:       pgQuery(sql),
		QueryID:     pgID(sql),
	}}
}

func TestRouteIntent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		state State
		rules []llm.Rule
		opts  []llm.ClientOption

		wantIntent     Intent
		wantSource     string
		wantConfidence float64
		wantKind       ErrorKind
		wantStandalone string
		wantCalls      int
		wantNote       bool
	}{
		{
			name:       "button preset intent",
			state:      State{UserQuery: "[button] export_csv 1a2b3c4d", Intent: IntentExportCSV, ReferencedQueryID: "1a2b3c4d"},
			wantIntent: IntentExportCSV, wantSource: "button", wantConfidence: 1,
		},
		{name: "empty", state: State{UserQuery: ""}, wantKind: ErrEmptyMessage},
		{name: "whitespace", state: State{UserQuery: " \n\t "}, wantKind: ErrEmptyMessage},
		{name: "invisible characters", state: State{UserQuery: "\x00\u200b\ufeff\x1b[2J\x1b]0;t\a"}, wantKind: ErrEmptyMessage},
		{name: "too long", state: State{UserQuery: strings.Repeat("a", 4001)}, wantKind: ErrMessageTooLong},
		{
			name:       "4,000 two-byte characters are not too long",
			state:      State{UserQuery: strings.Repeat("é", 4000)},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"off_topic","confidence":0.6}`)},
			wantIntent: IntentOffTopic, wantSource: "model", wantConfidence: 0.6, wantCalls: 1,
		},
		{
			name:       "export phrase",
			state:      State{UserQuery: "can I download that as a CSV?"},
			wantIntent: IntentExportCSV, wantSource: "keyword", wantConfidence: 1,
		},
		{
			name:       "show sql phrase",
			state:      State{UserQuery: "Show me the SQL"},
			wantIntent: IntentShowSQL, wantSource: "keyword", wantConfidence: 1,
		},
		{
			name:       "a question that uses the word export goes to the classifier",
			state:      State{UserQuery: "Which publishers export the most games in 2018?"},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"analytics_query","confidence":0.9}`)},
			wantIntent: IntentAnalytics, wantSource: "model", wantConfidence: 0.9, wantCalls: 1,
		},
		{
			name:       "show sql with more words goes to the classifier",
			state:      State{UserQuery: "show me the query for games released in 2018", History: earlierTurns()},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"show_sql","confidence":0.8}`)},
			wantIntent: IntentShowSQL, wantSource: "model", wantConfidence: 0.8, wantCalls: 1,
		},
		{
			name:       "model picks a question",
			state:      State{UserQuery: "How many games were released in 2018?"},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"analytics_query","confidence":0.93}`)},
			wantIntent: IntentAnalytics, wantSource: "model", wantConfidence: 0.93, wantCalls: 1,
		},
		{
			name:       "model reply in prose and fences",
			state:      State{UserQuery: "tell me a joke"},
			rules:      []llm.Rule{reply(llm.StepClassify, "Sure:\n```json\n{\"intent\": \"off_topic\", \"confidence\": 0.8}\n```")},
			wantIntent: IntentOffTopic, wantSource: "model", wantConfidence: 0.8, wantCalls: 1,
		},
		{
			name:       "garbage reply falls back to a question",
			state:      State{UserQuery: "top genres by revenue"},
			rules:      []llm.Rule{reply(llm.StepClassify, "lol")},
			wantIntent: IntentAnalytics, wantSource: "fallback", wantCalls: 1, wantNote: true,
		},
		{
			name:       "unknown intent falls back to a question",
			state:      State{UserQuery: "top genres by revenue"},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"foo","confidence":0.9}`)},
			wantIntent: IntentAnalytics, wantSource: "fallback", wantCalls: 1, wantNote: true,
		},
		{
			name:       "garbage reply with history falls back to a follow-up",
			state:      State{UserQuery: "and in 2017?", History: earlierTurns()},
			rules:      []llm.Rule{reply(llm.StepClassify, "lol")},
			wantIntent: IntentFollowUp, wantSource: "fallback", wantCalls: 1, wantNote: true,
		},
		{
			name:       "follow-up without history is a new question",
			state:      State{UserQuery: "what about those?"},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"follow_up","confidence":0.7,"question":"ignored"}`)},
			wantIntent: IntentAnalytics, wantSource: "model", wantConfidence: 0.7, wantCalls: 1,
		},
		{
			name:  "follow-up with history keeps the rewrite",
			state: State{UserQuery: "and in 2017?", History: earlierTurns()},
			rules: []llm.Rule{reply(llm.StepClassify,
				`{"intent":"follow_up","confidence":0.85,"question":"  How many games were released in 2017?  "}`)},
			wantIntent: IntentFollowUp, wantSource: "model", wantConfidence: 0.85, wantCalls: 1,
			wantStandalone: "How many games were released in 2017?",
		},
		{
			name:       "confidence above 1 is clamped",
			state:      State{UserQuery: "How many games are free?"},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"analytics_query","confidence":7.5}`)},
			wantIntent: IntentAnalytics, wantSource: "model", wantConfidence: 1, wantCalls: 1,
		},
		{
			name:       "negative confidence is clamped",
			state:      State{UserQuery: "How many games are free?"},
			rules:      []llm.Rule{reply(llm.StepClassify, `{"intent":"analytics_query","confidence":-0.4}`)},
			wantIntent: IntentAnalytics, wantSource: "model", wantConfidence: 0, wantCalls: 1,
		},
		{
			name:      "transient failures until retries run out",
			state:     State{UserQuery: "How many games are free?"},
			rules:     []llm.Rule{failing(llm.StepClassify, "transient: x")},
			opts:      []llm.ClientOption{llm.WithRetries(2)},
			wantKind:  ErrModelUnavailable,
			wantCalls: 3,
		},
		{
			name:      "permanent failure",
			state:     State{UserQuery: "How many games are free?"},
			rules:     []llm.Rule{failing(llm.StepClassify, "content policy")},
			wantKind:  ErrModelRefused,
			wantCalls: 1,
		},
		{
			name:      "no answer within the client timeout",
			state:     State{UserQuery: "How many games are free?"},
			rules:     []llm.Rule{{Step: string(llm.StepClassify), Reply: `{"intent":"analytics_query"}`, Delay: llm.Duration(time.Minute)}},
			opts:      []llm.ClientOption{llm.WithTimeout(20 * time.Millisecond), llm.WithRetries(0)},
			wantKind:  ErrModelTimeout,
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, tt.rules, tt.opts...)
			s := tt.state
			require.NoError(t, n.RouteIntent(context.Background(), &s))

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			if tt.wantKind == "" {
				assert.Equal(t, tt.wantIntent, s.Intent, "intent")
				assert.Equal(t, tt.wantSource, s.IntentSource, "intent source")
				assert.InDelta(t, tt.wantConfidence, s.Confidence, 1e-9, "confidence")
			} else {
				assert.NotEmpty(t, s.ErrorDetail, "got no error detail for the logs, want one")
			}
			assert.Equal(t, tt.wantStandalone, s.Standalone, "standalone rewrite")
			assert.Len(t, model.Calls(), tt.wantCalls, "model calls")
			assert.Equal(t, tt.wantCalls > 0, s.LLMCalls > 0, "got %d LLM calls recorded on the state", s.LLMCalls)
			assert.Equal(t, tt.wantNote, len(s.Notes) > 0, "got notes %q", s.Notes)
		})
	}
}

func TestRouteIntentPrompt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		state       State
		wantInclude []string
		wantExclude []string
	}{
		{
			name:        "new thread",
			state:       State{UserQuery: "How many games are free?"},
			wantInclude: []string{"about Steam games", "cannot be a follow_up", "\nQuestion: How many games are free?"},
			wantExclude: []string{"Conversation so far"},
		},
		{
			name:  "thread with history",
			state: State{UserQuery: "and in 2017?", History: earlierTurns()},
			wantInclude: []string{
				"User: How many games were released in 2018?",
				"Assistant: *8,160* games were released in 2018.",
				`"question": "<for follow_up only`,
				"\nQuestion: and in 2017?",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, []llm.Rule{reply(llm.StepClassify, `{"intent":"analytics_query","confidence":0.9}`)})
			s := tt.state
			require.NoError(t, n.RouteIntent(context.Background(), &s))
			prompt := onlyPrompt(t, model)
			for _, want := range tt.wantInclude {
				assert.Contains(t, prompt, want, "classify prompt")
			}
			for _, unwanted := range tt.wantExclude {
				assert.NotContains(t, prompt, unwanted, "classify prompt")
			}
		})
	}
}

func TestRouteIntentSanitizesInvalidUTF8(t *testing.T) {
	t.Parallel()
	n, model := newNodes(t, []llm.Rule{reply(llm.StepClassify, `{"intent":"analytics_query","confidence":0.9}`)})
	s := State{UserQuery: "How many games\xff\xfe in 2018?"}
	require.NoError(t, n.RouteIntent(context.Background(), &s))

	assert.True(t, utf8.ValidString(s.UserQuery), "got UserQuery %q, want valid UTF-8", s.UserQuery)
	assert.Equal(t, "How many games\uFFFD in 2018?", s.UserQuery, "sanitized question")
	assert.Equal(t, IntentAnalytics, s.Intent, "intent")
	assert.NotEmpty(t, s.Notes, "got no note about the invalid bytes, want one")
	prompt := onlyPrompt(t, model)
	assert.True(t, utf8.ValidString(prompt), "got a prompt with invalid UTF-8, want it sanitized")
	assert.Contains(t, prompt, "Question: How many games\uFFFD in 2018?", "classify prompt")
}

func TestResolveContext(t *testing.T) {
	t.Parallel()
	history := earlierTurns()
	qid := history[0].QueryID
	tests := []struct {
		name  string
		state State
		rules []llm.Rule

		wantResolved   string
		wantReferenced string
		wantKind       ErrorKind
		wantCalls      int
		wantNote       bool
	}{
		{
			name:         "new question",
			state:        State{UserQuery: "How many games are free?", Intent: IntentAnalytics, History: history},
			wantResolved: "How many games are free?",
		},
		{
			name:         "follow-up without history",
			state:        State{UserQuery: "and in 2017?", Intent: IntentFollowUp},
			wantResolved: "and in 2017?",
		},
		{
			name: "classifier already rewrote it",
			state: State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: history,
				Standalone: "How many games were released in 2017?"},
			wantResolved: "How many games were released in 2017?",
		},
		{
			name:  "model rewrite",
			state: State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: history},
			rules: []llm.Rule{reply(llm.StepResolve,
				`{"question":" How many games were released in 2017? ","referenced_query_id":" `+qid+` "}`)},
			wantResolved:   "How many games were released in 2017?",
			wantReferenced: qid,
			wantCalls:      1,
		},
		{
			name:         "model rewrite without a referenced query",
			state:        State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: history},
			rules:        []llm.Rule{reply(llm.StepResolve, `{"question":"How many games were released in 2017?","referenced_query_id":null}`)},
			wantResolved: "How many games were released in 2017?",
			wantCalls:    1,
		},
		{
			name:         "garbage reply keeps the earlier question beside the follow-up",
			state:        State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: history},
			rules:        []llm.Rule{reply(llm.StepResolve, "lol")},
			wantResolved: "and in 2017? (follow-up to: How many games were released in 2018?)",
			wantCalls:    1,
			wantNote:     true,
		},
		{
			name:         "empty rewrite counts as garbage",
			state:        State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: history},
			rules:        []llm.Rule{reply(llm.StepResolve, `{"question":"   "}`)},
			wantResolved: "and in 2017? (follow-up to: How many games were released in 2018?)",
			wantCalls:    1,
			wantNote:     true,
		},
		{
			name:      "model failure",
			state:     State{UserQuery: "and in 2017?", Intent: IntentFollowUp, History: history},
			rules:     []llm.Rule{failing(llm.StepResolve, "bad request")},
			wantKind:  ErrModelRefused,
			wantCalls: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, tt.rules)
			s := tt.state
			require.NoError(t, n.ResolveContext(context.Background(), &s))

			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind (detail %q)", s.ErrorDetail)
			assert.Equal(t, tt.wantResolved, s.ResolvedQuery, "resolved question")
			assert.Equal(t, tt.wantReferenced, s.ReferencedQueryID, "referenced query id")
			assert.Len(t, model.Calls(), tt.wantCalls, "model calls")
			assert.Equal(t, tt.wantNote, len(s.Notes) > 0, "got notes %q", s.Notes)
			if tt.wantCalls == 1 {
				prompt := model.Calls()[0].Prompt
				assert.Contains(t, prompt, "User: How many games were released in 2018?", "resolve prompt")
				assert.Contains(t, prompt, "[query "+qid+"]", "resolve prompt")
				assert.Contains(t, prompt, "\nQuestion: and in 2017?", "resolve prompt")
			}
		})
	}
}
