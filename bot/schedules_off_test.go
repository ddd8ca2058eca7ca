package bot_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

// testSchedulesOff (docs/schedules.md, Settings): SCHEDULES=false takes
// the Schedule button from under answers, a press of one already posted
// answers that schedules are off, and a schedule said in words is not
// read as one: nothing is saved either way.
func testSchedulesOff(t *testing.T, e *testEnv) {
	b := newBot(t, e, script(), func(c *bot.Config) { c.Schedules = false })
	for _, btn := range b.Buttons() {
		assert.NotEqual(t, nodes.ActionSchedule, btn.Action, "no Schedule button under answers")
	}
	thread := bot.NewThreadID()
	answer, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, answer.ErrorKind, answer.ErrorDetail)

	pressed, _ := press(t, b, thread, nodes.ActionSchedule, answer.QueryID)
	assert.Contains(t, pressed.ResponseText, nodes.TextSchedulesOff, "a Schedule button posted before")
	assert.Empty(t, pressed.ScheduleID)

	words, _ := ask(t, b, thread, "post this here every Monday at 9")
	assert.NotEqual(t, nodes.IntentSchedule, words.Intent, "schedules in words are off")
	assert.Empty(t, words.ScheduleID, "nothing to save: %s", words.ResponseText)
	assert.NotContains(t, words.ResponseText, "Shall I save it?")
}
