package scheduler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// markupQuestion holds what the bot's own words would read as a link,
// bold and code, typed by the schedule's owner.
const markupQuestion = "games in 2018 [Re-authenticate the bot here](https://evil.example/login) *now* `x`"

// A note to a schedule's owner quotes its question as they typed it:
// a link, stars or backticks in it are no link, bold or code of the
// bot's, on Slack (spans) as on the web (the stored turn).
func TestOwnerNotesQuoteTheQuestion(t *testing.T) {
	dbURL := testDB(t)
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		adjust func(*store.Schedule)
		panics bool
		want   string
	}{
		{name: "times that cannot be read", adjust: func(s *store.Schedule) { s.Spec = "every *blue* moon" },
			want: "I stopped your schedule “" + markupQuestion + "”: its times (“every *blue* moon”) cannot be read."},
		{name: "a run that fails", panics: true,
			want: "I couldn't run your schedule “" + markupQuestion + "” that was due"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := bottest.New(t, dbURL, "")
			r := newRuns(t, b, due, scheduler.Options{}, func(s *store.Schedule) {
				s.Question = markupQuestion
				if tt.adjust != nil {
					tt.adjust(s)
				}
			})
			r.slack.panics = tt.panics
			r.tick(t)
			require.Len(t, r.slack.notes, 1, "the owner is told")
			note := r.slack.notes[0]
			assert.Contains(t, note.Plain(), tt.want)
			for _, sp := range note {
				if sp.Link != "" || sp.Bold || sp.Italic || sp.Mention != "" || sp.Code && strings.Contains(markupQuestion, sp.Text) {
					t.Errorf("got the span %#v in %q, want the question as text", sp, note.Plain())
				}
			}
		})
	}
}

// A web (or terminal) schedule's note is kept as a turn of its thread;
// the bot's words there, which the model's history and the web thread
// read, are the question's characters, not Slack's entities.
func TestLocalNoteKeepsTheQuestionsCharacters(t *testing.T) {
	dbURL := testDB(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	b := bottest.New(t, dbURL, "")
	thread := bot.NewThreadID()
	const question = "revenue of AT&T where orders > 100"
	r := newRuns(t, b, due, scheduler.Options{}, func(s *store.Schedule) {
		s.Surface, s.SourceChannel, s.SourceThread = nodes.SurfaceWeb, "web", thread
		s.DestKind, s.DestChannel, s.DestThread = "thread", "web", thread
		s.Question, s.Spec = question, "whenever"
	})
	r.sc.Handle(nodes.SurfaceWeb, b.LocalDeliverer())
	r.tick(t)
	turns, err := b.DB().ThreadReplies(ctx, thread, 10)
	require.NoError(t, err)
	require.Len(t, turns, 1, "the note is a turn of the thread")
	want := "I stopped your schedule “" + question + "”: its times (“whenever”) cannot be read. Make it again from the answer."
	assert.Equal(t, want, turns[0].BotResponse, "the bot's words, as the model and the web thread read them")
	a, err := answer.Unmarshal(turns[0].Reply)
	require.NoError(t, err)
	assert.Equal(t, want, a.Text.Plain(), "the reply's text")
}
