package fakeslack_test

import (
	"context"
	"strings"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

func task(id, title string, status slack.TaskCardStatus) slack.TaskUpdateChunk {
	c := slack.NewTaskUpdateChunk(id, title)
	c.Status = status
	return c
}

// Task and plan chunks as slack-go sends them: a plan, then task cards
// updated in place by id, text after them.
func TestStreamChunks(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()

	_, ts, err := api.StartStreamContext(ctx, "D1", slack.MsgOptionTS("1.000"), slack.MsgOptionTaskDisplayMode(slack.TaskDisplayModePlan),
		slack.MsgOptionChunks(slack.NewPlanUpdateChunk("Answering"), task("tables", "Finding the tables", slack.TaskCardStatusInProgress)))
	require.NoError(t, err)
	_, _, err = api.AppendStreamContext(ctx, "D1", ts, slack.MsgOptionChunks(
		task("tables", "Finding the tables", slack.TaskCardStatusComplete), task("query", "Writing the query", slack.TaskCardStatusInProgress)))
	require.NoError(t, err)
	_, _, err = api.AppendStreamContext(ctx, "D1", ts, slack.MsgOptionChunks(slack.NewMarkdownTextChunk("**8160** games")))
	require.NoError(t, err)
	_, _, err = api.StopStreamContext(ctx, "D1", ts, slack.MsgOptionChunks(task("query", "Writing the query", slack.TaskCardStatusComplete)))
	require.NoError(t, err)

	m := fake.Messages()[0]
	assert.Equal(t, "plan", m.TaskDisplayMode)
	assert.Equal(t, "Answering", m.Plan)
	assert.Equal(t, "**8160** games", m.Text)
	assert.Equal(t, []fakeslack.Task{
		{ID: "tables", Title: "Finding the tables", Status: "complete"},
		{ID: "query", Title: "Writing the query", Status: "complete"},
	}, m.Tasks)
}

// What Slack refuses in chunks is refused, invalid_chunks with the place.
func TestStreamChunksRefused(t *testing.T) {
	t.Parallel()
	noStatus := slack.NewTaskUpdateChunk("a", "A")
	long := task("a", "A", slack.TaskCardStatusComplete)
	long.Details = strings.Repeat("d", 257)
	badSource := task("a", "A", slack.TaskCardStatusComplete)
	badSource.Sources = []slack.TaskCardSource{{Type: "url", Text: "no url"}}
	for _, tc := range []struct {
		name  string
		chunk slack.StreamChunk
		where string
	}{
		{"no status", noStatus, "/chunks/0/status"},
		{"unknown status", task("a", "A", "done"), "/chunks/0/status"},
		{"no id", task("", "A", slack.TaskCardStatusPending), "/chunks/0/id"},
		{"no title", task("a", "", slack.TaskCardStatusPending), "/chunks/0/title"},
		{"details too long", long, "/chunks/0/details"},
		{"source without url", badSource, "/chunks/0/sources/0"},
		{"plan without title", slack.NewPlanUpdateChunk(""), "/chunks/0/title"},
		{"empty text", slack.NewMarkdownTextChunk(""), "/chunks/0/text"},
		{"text too long", slack.NewMarkdownTextChunk(strings.Repeat("x", 12001)), "/chunks/0/text"},
		{"unknown type", slack.MarkdownTextChunk{Type: "thinking", Text: "x"}, "/chunks/0/type"},
		{"no blocks", slack.NewBlocksChunk(), "/chunks/0/blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fake := fakeslack.New(t)
			api := newClient(fake, fakeslack.BotToken)
			_, _, err := api.StartStreamContext(context.Background(), "D1", slack.MsgOptionTS("1.000"), slack.MsgOptionChunks(tc.chunk))
			var se slack.SlackErrorResponse
			require.ErrorAs(t, err, &se)
			assert.Equal(t, "invalid_chunks", se.Err)
			assert.Contains(t, strings.Join(se.ResponseMetadata.Messages, " "), "[json-pointer:"+tc.where+"]")
			assert.Empty(t, fake.Messages(), "nothing streamed")
		})
	}

	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()
	_, _, err := api.StartStreamContext(ctx, "D1", slack.MsgOptionTS("1.000"), slack.MsgOptionTaskDisplayMode("grid"))
	assert.ErrorContains(t, err, "invalid_arguments", "task_display_mode is timeline or plan")
	_, ts, err := api.StartStreamContext(ctx, "D1", slack.MsgOptionTS("1.000"), slack.MsgOptionChunks(slack.NewPlanUpdateChunk("Plan")))
	require.NoError(t, err)
	assert.Equal(t, "timeline", fake.Messages()[0].TaskDisplayMode, "the default")
	_, _, err = api.AppendStreamContext(ctx, "D1", ts)
	assert.ErrorContains(t, err, "invalid_arguments", "an append adds something")
}

// Under the Agent messaging experience, suggested prompts go to the
// conversation; a call naming a thread is answered ok and shows nothing.
func TestSuggestedPromptsByExperience(t *testing.T) {
	t.Parallel()
	fake := fakeslack.New(t)
	api := newClient(fake, fakeslack.BotToken)
	ctx := context.Background()
	params := slack.AssistantThreadsSetSuggestedPromptsParameters{ChannelID: "D1", ThreadTS: "1.000"}
	params.AddPrompt("Games in 2018", "How many games were released in 2018?")

	require.NoError(t, api.SetAssistantThreadsSuggestedPromptsContext(ctx, params))
	require.Len(t, fake.SuggestedPrompts(), 1, "the assistant view takes a thread")

	fake.SetExperience(fakeslack.AgentView)
	require.NoError(t, api.SetAssistantThreadsSuggestedPromptsContext(ctx, params), "Slack answers ok")
	assert.Len(t, fake.SuggestedPrompts(), 1, "but shows nothing")
	params.ThreadTS = ""
	require.NoError(t, api.SetAssistantThreadsSuggestedPromptsContext(ctx, params))
	require.Len(t, fake.SuggestedPrompts(), 2)
	assert.Equal(t, fakeslack.Prompts{Channel: "D1", Prompts: []fakeslack.Prompt{{Title: "Games in 2018", Message: "How many games were released in 2018?"}}},
		fake.SuggestedPrompts()[1])
}
