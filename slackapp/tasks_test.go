package slackapp

import (
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/nodes"
)

// The cards follow the nodes: one step in progress at a time, a retried
// query sends "Running it" back to pending, a failure marks the step in
// progress as an error, and paths without a query show no card.
func TestTasksFollowTheNodes(t *testing.T) {
	t.Parallel()
	type card struct{ ID, Status string }
	for _, tc := range []struct {
		name  string
		nodes []string
		end   slack.TaskCardStatus
		want  []card
	}{
		{"a question answered", []string{nodes.NodeRouteIntent, nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeValidateQuery,
			nodes.NodeExecuteQuery, nodes.NodeInterpret, nodes.NodeFormatAnswer, nodes.NodeSaveTurn}, slack.TaskCardStatusComplete,
			[]card{{"tables", "complete"}, {"query", "complete"}, {"run", "complete"}, {"explain", "complete"}}},
		{"a query retried", []string{nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeExecuteQuery, nodes.NodeGenerateQuery}, "",
			[]card{{"tables", "complete"}, {"query", "in_progress"}, {"run", "pending"}}},
		{"a query that failed", []string{nodes.NodeResolveContext, nodes.NodeGenerateQuery, nodes.NodeExecuteQuery, nodes.NodeHandleError, nodes.NodeSaveTurn},
			slack.TaskCardStatusComplete, []card{{"tables", "complete"}, {"query", "complete"}, {"run", "error"}}},
		{"a run that stopped", []string{nodes.NodeResolveContext, nodes.NodeGenerateQuery}, slack.TaskCardStatusError,
			[]card{{"tables", "complete"}, {"query", "error"}}},
		{"Show SQL asked in words", []string{nodes.NodeRouteIntent, nodes.NodeShowSQL, nodes.NodeSaveTurn}, slack.TaskCardStatusComplete, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := newTasks()
			for _, n := range tc.nodes {
				ts.node(n)
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
	ts.node(nodes.NodeResolveContext)
	inFlight := ts.unsent()
	ts.node(nodes.NodeGenerateQuery)
	ts.sent(inFlight)
	var got []string
	for _, c := range ts.unsent() {
		u := c.(slack.TaskUpdateChunk)
		got = append(got, u.ID+" "+string(u.Status))
	}
	assert.Equal(t, []string{"tables complete", "query in_progress"}, got)
}
