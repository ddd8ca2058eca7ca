package bot_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// recordingDeliverer stands for Slack in the bot package's tests: it
// keeps what each run would post, in the thread the schedule names.
type recordingDeliverer struct {
	mu    sync.Mutex
	posts []bot.Reply
	tells []string // what the schedules' owners were told
}

func (r *recordingDeliverer) Deliver(_ context.Context, sch store.Schedule, s bot.Reply) (bot.Delivered, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.posts = append(r.posts, s)
	return bot.Delivered{ThreadID: sch.DestThread, Channel: sch.DestChannel, TS: "1700000000.000900"}, nil
}

func (r *recordingDeliverer) Tell(_ context.Context, _ store.Schedule, text answer.Text) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tells = append(r.tells, text.Plain())
	return nil
}

// testCubeSchedule schedules an answer of the Cube backend in words and
// runs it: the stored Cube query runs again, without the model, and the
// run's Export CSV gives its rows.
func testCubeSchedule(t *testing.T, ce *cubeEnv) {
	b := cubeBot(t, ce, script(cubeRule("", 0,
		`{"measures": ["Apps.count"], "dimensions": ["Publishers.name"], "order": {"Apps.count": "desc"}, "limit": 5}`)))
	thread := bot.NewThreadID()
	answer, _ := ask(t, b, thread, "Which publishers released the most games?")
	require.Empty(t, answer.ErrorKind, "question: %s", answer.ErrorDetail)

	confirm, _ := ask(t, b, thread, "post this here every Monday at 9")
	require.Empty(t, confirm.ErrorKind, "schedule: %s", confirm.ErrorDetail)
	require.NotEmpty(t, confirm.ScheduleID, "a pending schedule: %s", confirm.ResponseText)
	saved, _ := press(t, b, thread, nodes.ActionScheduleSave, confirm.ScheduleID)
	require.Contains(t, saved.ResponseText, "Saved:")
	sch, err := b.DB().ScheduleByID(context.Background(), confirm.ScheduleID)
	require.NoError(t, err)
	assert.Equal(t, "cube", sch.Query.Backend)

	calls := len(b.Scripted.Calls())
	slack := &recordingDeliverer{}
	sc := scheduler.New(b, scheduler.Options{Now: func() time.Time { return sch.NextRunAt.Add(time.Second) }, Only: sch.ID})
	sc.Handle(nodes.SurfaceSlack, slack)
	n, err := sc.Tick(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Len(t, slack.posts, 1)
	run := slack.posts[0]
	require.True(t, run.Outcome.OK(), "run: %+v", run.Outcome)
	assert.Equal(t, calls, len(b.Scripted.Calls()), "no model call")
	assert.Equal(t, answer.Result.Rows, run.Answer.Result.Rows, "the Cube query's rows again")

	csv, _ := press(t, b, thread, string(nodes.IntentExportCSV), run.QueryID)
	require.Empty(t, csv.ErrorKind, "export of the run: %s", csv.ErrorDetail)
	assert.Equal(t, publishersCSV, string(csv.CSVContent), "the run's CSV, from the thread it was posted in")
}
