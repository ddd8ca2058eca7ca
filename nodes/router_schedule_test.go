package nodes

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/llm"
)

// Schedule words the deterministic reader does not recognise reach the
// classifier, which is offered the schedule intent when schedules are on
// and the thread has an answer to schedule, and only then.
func TestRouteIntentSchedule(t *testing.T) {
	t.Parallel()
	const words = "keep me posted on this every week or so"
	tests := []struct {
		name       string
		schedules  bool
		history    bool
		wantOffer  bool
		wantIntent Intent
		wantSource string
	}{
		{name: "offered and taken", schedules: true, history: true, wantOffer: true, wantIntent: IntentSchedule, wantSource: "model"},
		{name: "schedules off", history: true, wantIntent: IntentFollowUp, wantSource: "fallback"},
		{name: "nothing to schedule", schedules: true, wantIntent: IntentAnalytics, wantSource: "fallback"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, []llm.Rule{reply(llm.StepClassify, `{"intent":"schedule","confidence":0.8}`)})
			if tt.schedules {
				n.Schedules = requireDB(t)
			}
			s := State{UserQuery: words}
			if tt.history {
				s.History = earlierTurns()
			}
			require.NoError(t, n.RouteIntent(context.Background(), &s))
			assert.Equal(t, tt.wantIntent, s.Intent)
			assert.Equal(t, tt.wantSource, s.IntentSource)
			prompt := onlyPrompt(t, model)
			if tt.wantOffer {
				assert.Contains(t, prompt, "\n- schedule: the user wants an earlier answer sent again")
			} else {
				assert.NotContains(t, prompt, "- schedule:")
				assert.NotEmpty(t, s.Notes, "the refused intent is noted for the logs")
			}
		})
	}
}

// The router reads the commands beside the conversation itself, without
// the model: a note on a 👎 when feedback is on, and a request for one's
// schedules outside Slack when schedules are on; anything else is a
// question.
func TestRouteIntentAside(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		text      string
		channel   string
		feedback  bool
		schedules bool
		want      Intent
		wantNote  string
	}{
		{name: "note", text: "feedback: the year is wrong", channel: "C1", feedback: true, want: IntentFeedback, wantNote: "the year is wrong"},
		{name: "note, long", text: "Feedback:" + strings.Repeat(" very", 1000), channel: "C1", feedback: true, want: IntentFeedback, wantNote: strings.TrimSpace(strings.Repeat(" very", 1000))},
		{name: "note, feedback off", text: "feedback: the year is wrong", channel: "C1", want: IntentAnalytics},
		{name: "schedules on the web", text: "list my schedules", channel: "web", schedules: true, want: IntentListSchedules},
		{name: "schedules in the terminal", text: "schedules", channel: "terminal", schedules: true, want: IntentListSchedules},
		{name: "schedules in Slack", text: "schedules", channel: "C1", schedules: true, want: IntentAnalytics},
		{name: "schedules off", text: "schedules", channel: "web", want: IntentAnalytics},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, []llm.Rule{reply(llm.StepClassify, `{"intent":"analytics_query","confidence":0.9}`)})
			n.Feedback, n.MaxMessageLen = tt.feedback, 100
			if tt.schedules {
				db := requireDB(t)
				n.Schedules, n.ScheduleKeeper = db, db
			}
			s := State{UserQuery: tt.text, ChannelID: tt.channel}
			require.NoError(t, n.RouteIntent(context.Background(), &s))
			assert.Equal(t, tt.want, s.Intent, "intent")
			assert.Equal(t, tt.wantNote, s.Note, "note")
			if tt.want != IntentAnalytics {
				assert.Empty(t, model.Calls(), "model calls")
			}
		})
	}
}
