package nodes

import (
	"context"
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
