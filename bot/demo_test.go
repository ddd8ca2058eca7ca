package bot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// The offline demo answers the questions it knows and nothing else: twenty
// analytics questions near its own get no canned answer, but a reply that
// says it is the demo, lists what it knows and how to connect a model.
func TestDemoAnswersOnlyWhatItKnows(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := newBot(t, e, "") // no script: the demo's
	require.True(t, b.Demo)

	for _, q := range demo.Questions() {
		s := askAs(t, b, "U1", bot.NewThreadID(), q)
		assert.Empty(t, s.ErrorKind, "%q is one of the demo's: %s", q, s.ResponseText)
		assert.NotEmpty(t, s.Query.Text, q)
	}
	unknown := []string{
		"Which publisher has the most games with over 90% positive reviews?",
		"What is the median playtime of strategy games?",
		"How many games were released in 2018 by Valve?",
		"Which games have the most negative ratings?",
		"Which developers released the most games?",
		"What is the average price of games by year?",
		"How many games were released per month in 2018?",
		"How many free games support Linux?",
		"Top 5 best rated indie games",
		"What share of games are free?",
		"How many games support Mac?",
		"Which genre has the most games?",
		"Average playtime by genre",
		"Most expensive games on Steam",
		"How many achievements does the average game have?",
		"Which tags are most common among RPGs?",
		"How many games did Ubisoft publish?",
		"Games released per year since 2010 with over 1000 reviews",
		"Which publishers released the most games in 2017?",
		"What is the average price of paid games by developer?",
	}
	require.Len(t, unknown, 20)
	// A follow-up the demo suggests, after a question with no year to
	// change: the notice says which follow-ups it knows.
	noYear := bot.NewThreadID()
	askAs(t, b, "U1", noYear, "Which publishers released the most games?")
	s := askAs(t, b, "U1", noYear, "And in 2017?")
	assert.Equal(t, nodes.ErrModelRefused, s.ErrorKind, s.ResponseText)
	assert.Contains(t, s.ResponseText, "follow-ups that change the year of one about a year", s.ResponseText)
	for _, q := range unknown {
		s := askAs(t, b, "U1", bot.NewThreadID(), q)
		assert.Equal(t, nodes.ErrModelRefused, s.ErrorKind, "%q must not get a canned answer", q)
		assert.Empty(t, s.Result.Rows, "%q ran a query", q)
		assert.Contains(t, s.ResponseText, "This is the offline demo", q)
		assert.Contains(t, s.ResponseText, "LLM_PROVIDER", q)
		assert.Equal(t, answer.KindNotice, s.Reply.Kind, "%q: a notice, not an error", q)
		assert.NotContains(t, s.ResponseText, "Reference", q)
		assert.Empty(t, s.ErrorRef, "%q: nothing for an operator to look up (logged as information)", q)
		for _, known := range demo.Questions() {
			assert.Contains(t, blocksJSON(t, s), known, "%q: the reply lists what the demo knows", q)
		}
	}

	// Follow-ups of a known question still work.
	thread := bot.NewThreadID()
	askAs(t, b, "U1", thread, "How many games were released in 2018?")
	s = askAs(t, b, "U1", thread, "And in 2017?")
	require.Empty(t, s.ErrorKind, s.ResponseText)
	assert.Contains(t, s.Answer, "6357")

	// Schedule words the reader leaves unread: the demo cannot restate
	// them, so its own reading stands and says what it did not read.
	s = askAs(t, b, "U1", thread, "ping me at lunchtime each day")
	require.Empty(t, s.ErrorKind, s.ResponseText)
	require.NotEmpty(t, s.ScheduleID, s.ResponseText)
	assert.Contains(t, s.ResponseText, "I didn't read “lunchtime”, so check this: I'll post")
	assert.Equal(t, []string{"schedule words: the model has no restatement"}, s.Notes, "no failed model call")
}

// The offline demo's script takes Show SQL and Export CSV asked in more
// words than the buttons' own, as a model would, and a question that uses
// the word "export" stays a question.
func TestDemoButtonRequestsInWords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := newBot(t, e, "") // no script: the demo's
	require.True(t, b.Demo)
	tests := []struct {
		text       string
		wantIntent nodes.Intent
		wantKind   nodes.ErrorKind
	}{
		{text: "Show me the query for that one, I want to check it", wantIntent: nodes.IntentShowSQL},
		{text: "Can you export it to a CSV so I can open it in a spreadsheet?", wantIntent: nodes.IntentExportCSV},
		{text: "Which publishers export the most games in 2018?", wantIntent: nodes.IntentAnalytics, wantKind: nodes.ErrModelRefused},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			t.Parallel()
			thread := bot.NewThreadID()
			first := askAs(t, b, "U1", thread, demo.Questions()[0])
			require.Empty(t, first.ErrorKind, first.ResponseText)

			s := askAs(t, b, "U1", thread, tt.text)
			assert.Equal(t, tt.wantIntent, s.Intent, "intent")
			assert.Equal(t, "model", s.IntentSource, "intent source")
			assert.Equal(t, tt.wantKind, s.ErrorKind, "error kind: %s", s.ResponseText)
			if tt.wantKind == "" {
				assert.Equal(t, first.QueryID, s.QueryID, "the first answer's query")
			}
		})
	}
}

// The demo's answers lead on to the questions the welcome does not show
// (README): from the welcome's four, following the answers' suggested
// questions reaches all seven, and every suggestion is one the demo
// answers.
func TestDemoFollowUpsReachEveryQuestion(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	b := newBot(t, e, "") // no script: the demo's
	welcome := demo.Questions()[:4]
	asked := map[string]bool{}
	next := append([]string(nil), welcome...)
	for len(next) > 0 {
		q := next[0]
		next = next[1:]
		if asked[q] {
			continue
		}
		asked[q] = true
		s := askAs(t, b, "U1", bot.NewThreadID(), q)
		require.Empty(t, s.ErrorKind, "%q: %s", q, s.ResponseText)
		require.NotNil(t, s.Reply, q)
		for _, f := range s.Reply.FollowUps {
			assert.Contains(t, demo.Questions(), f, "%q suggests a question the demo answers", q)
			next = append(next, f)
		}
	}
	for _, q := range demo.Questions()[4:] {
		assert.True(t, asked[q], "%q is suggested by an answer", q)
	}
	assert.Len(t, asked, len(demo.Questions()))
}
