package slackapp

import (
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/bot"
)

// The cards follow the phases: one step in progress at a time, a retried
// query sends "Running it" back to pending, a failure marks the step in
// progress as an error, and paths without a query show no card.
func TestTasksFollowThePhases(t *testing.T) {
	t.Parallel()
	type card struct{ ID, Status string }
	for _, tc := range []struct {
		name   string
		phases []bot.Phase
		end    slack.TaskCardStatus
		want   []card
	}{
		{"a question answered", []bot.Phase{bot.PhaseNone, bot.PhaseTables, bot.PhaseQuery, bot.PhaseQuery,
			bot.PhaseRun, bot.PhaseExplain, bot.PhaseExplain, bot.PhaseNone}, slack.TaskCardStatusComplete,
			[]card{{"tables", "complete"}, {"query", "complete"}, {"run", "complete"}, {"explain", "complete"}}},
		{"a query retried", []bot.Phase{bot.PhaseTables, bot.PhaseQuery, bot.PhaseRun, bot.PhaseQuery}, "",
			[]card{{"tables", "complete"}, {"query", "in_progress"}, {"run", "pending"}}},
		{"a query that failed", []bot.Phase{bot.PhaseTables, bot.PhaseQuery, bot.PhaseRun, bot.PhaseFailed, bot.PhaseNone},
			slack.TaskCardStatusComplete, []card{{"tables", "complete"}, {"query", "complete"}, {"run", "error"}}},
		{"a run that stopped", []bot.Phase{bot.PhaseTables, bot.PhaseQuery}, slack.TaskCardStatusError,
			[]card{{"tables", "complete"}, {"query", "error"}}},
		{"Show SQL asked in words", []bot.Phase{bot.PhaseNone, bot.PhaseNone, bot.PhaseNone}, slack.TaskCardStatusComplete, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTasks()
			for _, p := range tc.phases {
				ts.phase(p)
			}
			if tc.end != "" {
				ts.end(tc.end)
			}
			var got []card
			chunks := ts.unsent()
			for _, c := range chunks {
				u := c.(slack.TaskUpdateChunk)
				assert.Equal(t, taskTitles[u.ID], u.Title)
				got = append(got, card{u.ID, string(u.Status)})
			}
			assert.Equal(t, tc.want, got)
			ts.sent(chunks)
			assert.Empty(t, ts.unsent(), "sent once")
		})
	}
}

// A card that moved on while its update was on the way is sent again.
func TestTasksSentWhileMoving(t *testing.T) {
	t.Parallel()
	ts := newTasks()
	ts.phase(bot.PhaseTables)
	inFlight := ts.unsent()
	ts.phase(bot.PhaseQuery)
	ts.sent(inFlight)
	var got []string
	for _, c := range ts.unsent() {
		u := c.(slack.TaskUpdateChunk)
		got = append(got, u.ID+" "+string(u.Status))
	}
	assert.Equal(t, []string{"tables complete", "query in_progress"}, got)
}
