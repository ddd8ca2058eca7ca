package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// scheduleWordsRules restate the schedule words of the messages
// testScheduleWords sends, as a model would.
const scheduleWordsRules = `
  - step: classify
    match: '(?m)^Question: keep me posted'
    reply: '{"intent": "schedule", "confidence": 0.8}'
  - step: classify
    match: '(?m)^Question: on this cron'
    reply: '{"intent": "schedule", "confidence": 0.8}'
  - step: schedule
    match: '(?m)^Message: post this to #growth at the end of each week$'
    reply: '{"request": "every Friday at 17:00 to #growth"}'
  - step: schedule
    match: '(?m)^Message: keep me posted'
    reply: '{"request": "every Monday at 09:00 as a direct message"}'
  - step: schedule
    match: '(?m)^Message: ping me about this every few minutes$'
    reply: '{"request": "every 2 minutes"}'
  - step: schedule
    match: '(?m)^Message: send me this first thing every workday$'
    reply: '{"request": "every weekday at 09:00 to #general"}'
  - step: schedule
    match: '(?m)^Message: notify me twice a day$'
    reply: '{"request": ""}'
`

// Schedule words the parser leaves unread are restated by the model in
// words the parser reads; the confirmation says how they were read before
// anything is saved. The model rewords and never decides: a restatement
// that breaks a rule is refused in plain words, one that names a channel
// the person did not is not taken, and without a usable one the first
// reading stands, saying which words it did not read. Words read in full
// cost no model call.
func testScheduleWords(t *testing.T, e *testEnv) {
	b := newBot(t, e, script(scheduleWordsRules))
	ctx := context.Background()
	thread := bot.NewThreadID()
	first, _ := ask(t, b, thread, "How many games were released in 2018?")
	require.Empty(t, first.ErrorKind, "question: %s", first.ErrorDetail)
	calls := func() int { return b.Scripted.CallCount(llm.StepSchedule) }
	// pending asks for a schedule in words and returns the confirmation and
	// the pending schedule it made.
	pending := func(t *testing.T, words string) (*nodes.State, store.Schedule) {
		t.Helper()
		s, _ := ask(t, b, thread, words)
		require.NotEmpty(t, s.ScheduleID, s.ResponseText)
		sch, err := b.DB().ScheduleByID(ctx, s.ScheduleID)
		require.NoError(t, err)
		return s, sch
	}

	t.Run("read in full, no model", func(t *testing.T) {
		before := calls()
		s, _ := ask(t, b, thread, "send me this every Monday at 9")
		require.NotEmpty(t, s.ScheduleID, s.ResponseText)
		assert.Equal(t, before, calls(), "no schedule model call")
		assert.NotContains(t, s.ResponseText, "I read that as")
	})

	t.Run("restated", func(t *testing.T) {
		// As the Slack front end sends a channel picked from its list: its
		// name in the text, its id beside it.
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1",
			Text: "post this to #growth at the end of each week", Channels: map[string]string{"growth": "C0123ABC"}})
		require.NoError(t, err)
		require.NotEmpty(t, s.ScheduleID, s.ResponseText)
		sch, err := b.DB().ScheduleByID(ctx, s.ScheduleID)
		require.NoError(t, err)
		assert.Contains(t, s.ResponseText, "I read that as “every Friday at 17:00 to #growth”: I'll post “How many games were released in 2018?” in #growth every Friday at 17:00 (UTC)")
		assert.Contains(t, s.ResponseText, "Shall I save it?")
		assert.Equal(t, "0 17 * * 5", sch.Spec)
		assert.Equal(t, "C0123ABC", sch.DestChannel, "the channel's id, from the message's link")
		prompt := lastCall(t, b, llm.StepSchedule)
		assert.Contains(t, prompt, "Words the assistant did not read: end of")
		assert.Contains(t, prompt, "with the columns games.")
	})

	t.Run("routed by the classifier", func(t *testing.T) {
		s, _ := ask(t, b, thread, "keep me posted on this every week or so")
		require.NotEmpty(t, s.ScheduleID, s.ResponseText)
		assert.Equal(t, "model", s.IntentSource)
		assert.Contains(t, s.ResponseText, "I read that as “every Monday at 09:00 as a direct message”: I'll send you")
		assert.Contains(t, s.ResponseText, "in a direct message every Monday at 09:00 (UTC)")
	})

	t.Run("restatement breaks a rule", func(t *testing.T) {
		s, _ := ask(t, b, thread, "ping me about this every few minutes")
		assert.Empty(t, s.ScheduleID, "nothing pending")
		assert.Contains(t, s.ResponseText, "I read that as “every 2 minutes”. Every 2 minutes is too often: the shortest interval is every 5 minutes.")
	})

	t.Run("a channel the person did not name", func(t *testing.T) {
		s, sch := pending(t, "send me this first thing every workday")
		assert.Contains(t, s.ResponseText, "I didn't read “first thing”, so check this: I'll send you “How many games were released in 2018?” in a direct message every weekday (Monday to Friday) at 09:00 (UTC)")
		assert.NotContains(t, s.ResponseText, "general")
		assert.Equal(t, "dm", sch.DestKind)
	})

	t.Run("no restatement", func(t *testing.T) {
		s, _ := ask(t, b, thread, "notify me twice a day")
		assert.Empty(t, s.ScheduleID, "nothing pending")
		assert.Contains(t, s.ResponseText, "I couldn't tell how often to send it")
	})

	// A number or a zone the reader did not take whole is never saved as
	// something else: it is read whole, or nothing is offered.
	t.Run("numbers and zones read whole", func(t *testing.T) {
		tests := []struct {
			name, words string
			want        string // in the reply
			saved       bool
			zone        string
			threshold   float64
		}{
			{name: "a number in scientific notation", words: "alert me when games is above 1e9",
				want: "only when games is above 1,000,000,000", saved: true, zone: "UTC", threshold: 1e9},
			{name: "a decimal comma", words: "alert me when games is above 1,5",
				want: "I couldn't read “1,5” as a number: write it like 1000, 1,000, 2.5k, 1.5 million, 1e9 or 20%."},
			{name: "digits in groups", words: "alert me when games is above 1 000 000", want: "I couldn't read “1 000 000” as a number"},
			{name: "a tz name", words: "send me this every day at 2:30am in Europe/London",
				want: "in a direct message every day at 02:30 (Europe/London)", saved: true, zone: "Europe/London"},
			{name: "a city's time", words: "send me this every Monday at 9 New York time",
				want: "every Monday at 09:00 (America/New_York)", saved: true, zone: "America/New_York"},
			{name: "an alert in a zone", words: "alert me when games is above 9,000 in Asia/Tokyo",
				want: "every hour, on the hour (Asia/Tokyo), only when games is above 9,000", saved: true, zone: "Asia/Tokyo", threshold: 9000},
			{name: "a misspelt tz name", words: "send me this every day at 2:30am in Europe/Londn",
				want: "I don't know the time zone “europe/londn”"},
			{name: "an abbreviation", words: "send me this every day at 9am EST", want: "I can't tell which time zone “EST” is"},
			{name: "an offset", words: "send me this every day at 9 UTC+2", want: "I can't take a time zone as an offset (“utc+2”)"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s, _ := ask(t, b, thread, tt.words)
				assert.Contains(t, s.ResponseText, tt.want)
				if !tt.saved {
					assert.Empty(t, s.ScheduleID, "nothing offered for Save: %s", s.ResponseText)
					return
				}
				require.NotEmpty(t, s.ScheduleID, s.ResponseText)
				assert.Contains(t, s.ResponseText, "Shall I save it?")
				sch, err := b.DB().ScheduleByID(ctx, s.ScheduleID)
				require.NoError(t, err)
				assert.Equal(t, tt.zone, sch.TimeZone, "the zone saved")
				assert.Equal(t, tt.threshold, sch.CondThreshold, "the threshold saved")
			})
		}
	})

	// A cron spec the parser refuses is quoted in the reply cut short, as a
	// refused press quotes what it sent: a message of thousands of
	// characters does not come back whole. A short spec is quoted whole.
	t.Run("a long cron spec quoted cut", func(t *testing.T) {
		// A thread of its own: the model is offered the schedule intent
		// only while an answer is among the thread's recent turns.
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "question: %s", first.ErrorDetail)
		badDays := "8," + strings.Repeat("1,", 200) + "1"
		tests := []struct {
			name, words, spec, want string
		}{
			{name: "read by keyword", words: "send me this `0 9 * * " + badDays + "`", spec: badDays,
				want: "“8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1…” is not a valid day of the week in “0 9 * * 8,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1…”: days of the week run from 0 (Sunday) to 6 (Saturday), or sun to sat."},
			{name: "classified by the model", words: "on this cron, send me this `@" + strings.Repeat("a", 3500) + "`", spec: strings.Repeat("a", 3500),
				want: "“@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…” is not a schedule name I know: use @hourly, @daily, @weekly, @monthly or @yearly, or five cron fields."},
			{name: "short spec whole", words: "send me this `0 25 * * *`", spec: "0 25 * * *",
				want: "“25” is not a valid hour in “0 25 * * *”: hours run from 0 to 23."},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				s, _ := ask(t, b, thread, tt.words)
				assert.Empty(t, s.ScheduleID, "nothing offered for Save: %s", s.ResponseText)
				assert.True(t, strings.HasPrefix(s.ResponseText, tt.want+" "+"Or say it in this thread"), "got reply %.300q, want it to open with %q", s.ResponseText, tt.want)
				assert.Less(t, len(s.ResponseText), 600, "reply length")
				if len(tt.spec) > 40 {
					assert.NotContains(t, s.ResponseText+blocksJSON(t, s), tt.spec, "the whole spec came back")
				}
			})
		}
	})

	// Words no reader took are quoted cut too: "I didn't read “…”" does not
	// bring back a message of thousands of characters.
	t.Run("many unread words quoted cut", func(t *testing.T) {
		thread := bot.NewThreadID()
		first, _ := ask(t, b, thread, "How many games were released in 2018?")
		require.Empty(t, first.ErrorKind, "question: %s", first.ErrorDetail)
		unread := strings.Repeat("lorem ", 600)
		// Classified by the model (a long message is not routed by its
		// keywords); no restatement, so the first reading stands.
		s, _ := ask(t, b, thread, "on this cron, send me this every Monday at 9 "+unread)
		require.NotEmpty(t, s.ScheduleID, s.ResponseText)
		assert.True(t, strings.HasPrefix(s.ResponseText, "I didn't read “lorem lorem lorem lorem lorem lorem lor…”, so check this: I'll send you"),
			"got reply %.300q", s.ResponseText)
		assert.Less(t, len(s.ResponseText), 600, "reply length")
	})

	t.Run("the model fails", func(t *testing.T) {
		before := calls()
		s, _ := ask(t, b, thread, "ping me at lunchtime each day")
		assert.Equal(t, before+1, calls(), "one call, with no rule to answer it")
		require.NotEmpty(t, s.ScheduleID, s.ResponseText)
		assert.Contains(t, s.ResponseText, "I didn't read “lunchtime”, so check this: I'll post “How many games were released in 2018?” in this thread every day at 09:00 (UTC)")
		assert.Empty(t, s.ErrorKind, "the first reading stands")
		assert.NotContains(t, s.ResponseText, "scripted model")
	})
}

// lastCall is the prompt of the model's last call for step.
func lastCall(t *testing.T, b *bot.Bot, step llm.Step) string {
	t.Helper()
	var prompt string
	for _, c := range b.Scripted.Calls() {
		if c.Step == step {
			prompt = c.Prompt
		}
	}
	require.NotEmpty(t, prompt, "a %s call", step)
	return strings.TrimSpace(prompt)
}
