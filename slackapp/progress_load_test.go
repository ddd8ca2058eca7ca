package slackapp

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// underLoad holds n places of the app's turns, as n answers under way
// would, until the test ends.
func underLoad(t *testing.T, h *harness, n int) {
	t.Helper()
	turns := h.app.disp.turns
	for turns.Running() < n {
		release, err := turns.Admit(t.Context(), nil)
		require.NoError(t, err)
		t.Cleanup(release)
	}
}

// docs/slack.md, SLACK_PROGRESS_INTERVAL: with more than 16 answers under
// way the least time between two progress updates of one answer
// stretches (×2 up to 32), through the fake Slack's chat.update calls;
// the first "Working on it…" and the answer are never held back. The
// app's clock is the test's (fakeClock): time passes only when the test
// moves it, so no update's spacing depends on the machine's speed.
func TestProgressIntervalUnderLoad(t *testing.T) {
	t.Parallel()
	t.Run("updates are spaced twice the interval with 17 answers under way", func(t *testing.T) {
		t.Parallel()
		const interval = 250 * time.Millisecond
		clock := newFakeClock()
		h := start(t, withConfig(func(c *Config) { c.ProgressInterval = interval }), withApp(func(a *App) { a.clock = clock }))
		underLoad(t, h, 17)
		ch := channelID("CPROGLOAD")
		q := question{channel: ch, user: user, ts: "1700000701.000100", threadTS: "1700000701.000100", received: time.Now()}
		p := h.app.startProgress(t.Context(), q)
		require.NotEmpty(t, p.workingTS, "the first \"Working on it…\" is posted at once")
		p.watch(t.Context())
		defer stopProgress(t, p)
		shown := func() []string {
			var labels []string
			for _, c := range h.slack.Calls("chat.update") {
				if c.Args.Get("channel") == ch {
					labels = append(labels, strings.TrimPrefix(c.Args.Get("text"), "⏳ "))
				}
			}
			return labels
		}

		p.Started(t.Context(), bot.Step{Label: "Reading the tables…"})
		h.slack.WaitMessage(t, "the first step", func(m fakeslack.Message) bool {
			return m.Channel == ch && m.TS == p.workingTS && strings.Contains(m.Text, "Reading the tables…")
		})
		clock.WaitWaiting(t, 1) // the update sent, the next one waits
		p.Started(t.Context(), bot.Step{Label: "Writing SQL…"})
		require.Zero(t, clock.Advance(interval), "17 answers under way: the next update waits longer than SLACK_PROGRESS_INTERVAL")
		assert.Equal(t, []string{"Reading the tables…"}, shown(), "no update within the interval")
		require.Equal(t, 1, clock.Advance(interval), "17 answers under way: the next update waits twice SLACK_PROGRESS_INTERVAL, no more")
		h.slack.WaitMessage(t, "the second step, once twice the interval passed", func(m fakeslack.Message) bool {
			return m.Channel == ch && m.TS == p.workingTS && strings.Contains(m.Text, "Writing SQL…")
		})
		assert.Equal(t, []string{"Reading the tables…", "Writing SQL…"}, shown(), "one update per step")
	})

	t.Run("the answer does not wait for the stretched interval", func(t *testing.T) {
		t.Parallel()
		clock := newFakeClock()
		h := start(t, withConfig(func(c *Config) { c.ProgressInterval = time.Hour }), withApp(func(a *App) { a.clock = clock }))
		underLoad(t, h, 17)
		ch := channelID("CPROGSTOP")
		q := question{channel: ch, user: user, ts: "1700000702.000100", threadTS: "1700000702.000100", received: time.Now()}
		p := h.app.startProgress(t.Context(), q)
		require.NotEmpty(t, p.workingTS, "the first \"Working on it…\" is posted at once")
		p.watch(t.Context())
		p.Started(t.Context(), bot.Step{Label: "Writing SQL…"})
		h.slack.WaitMessage(t, "the first update", func(m fakeslack.Message) bool {
			return m.Channel == ch && m.TS == p.workingTS && strings.Contains(m.Text, "Writing SQL…")
		})
		// The loop now waits for the next update, and the test's clock
		// never moves: only the answer can end the wait, stopping the
		// progress so that it goes out at once.
		clock.WaitWaiting(t, 1)
		stopProgress(t, p)
	})
}

// stopProgress stops p, as the answer does, and fails t when the stop
// waits for the progress interval: with the test's clock, which never
// ends a wait on its own, such a stop would never return. The 30 s are
// a bound for the busiest machine, not what is asserted.
func stopProgress(t *testing.T, p *progress) {
	t.Helper()
	stopped := make(chan struct{})
	go func() { p.stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(30 * time.Second):
		t.Error("stopping the progress waited for the progress interval")
	}
}

// docs/slack.md, SLACK_PROGRESS_INTERVAL: the answer's streamed text
// stretches with the progress updates (chat.appendStream is rate-limited
// per app as chat.update is): with 17 answers under way, two appends of
// one answer's text are twice the interval apart, however fast the model
// writes. The model writes a word at each tick of the test's clock, so
// what is sent when depends on no machine's speed: a chunk is appended,
// or not, before chunk returns.
func TestStreamedTextStretchesUnderLoad(t *testing.T) {
	t.Parallel()
	const interval = 100 * time.Millisecond
	clock := newFakeClock()
	h := start(t, streaming(), withConfig(func(c *Config) { c.ProgressInterval = interval }), withApp(func(a *App) { a.clock = clock }))
	underLoad(t, h, 17)
	ch := channelID("CSTREAMLOAD")
	q := question{channel: ch, user: user, ts: "1700000703.000100", threadTS: "1700000703.000100", received: time.Now()}
	st := h.app.newStreamer(q)
	require.NotNil(t, st)
	require.True(t, st.begin(t.Context()))
	st.attach(t.Context())
	appended := func() []string {
		var texts []string
		for _, c := range h.slack.Calls("chat.appendStream") {
			if c.Args.Get("channel") == ch {
				texts = append(texts, c.Args.Get("chunks"))
			}
		}
		return texts
	}

	// The stream started at 0; the model writes a word every 10 ms.
	st.chunk(`{"answer": "`)
	tick := 10 * time.Millisecond
	for at := time.Duration(0); at < 2*interval; at += tick {
		st.chunk("word ")
		clock.Advance(tick)
	}
	require.Empty(t, appended(), "17 answers under way: nothing appended within twice SLACK_PROGRESS_INTERVAL of the start")
	st.chunk("word ")
	require.Len(t, appended(), 1, "the text appended once twice SLACK_PROGRESS_INTERVAL passed")
	assert.Equal(t, 21, strings.Count(appended()[0], "word"), "every word written so far, in one append")

	for at := time.Duration(0); at < 2*interval-tick; at += tick {
		clock.Advance(tick)
		st.chunk("word ")
	}
	assert.Len(t, appended(), 1, "17 answers under way: no second append within twice SLACK_PROGRESS_INTERVAL of the first")
	clock.Advance(tick)
	st.chunk("word ")
	require.Len(t, appended(), 2, "the second append, twice SLACK_PROGRESS_INTERVAL after the first")
	assert.Equal(t, 20, strings.Count(appended()[1], "word"), "the words written since the first append")
}

// docs/slack.md, SLACK_PROGRESS_INTERVAL: 0 (or less) spaces no updates:
// each step the workflow starts is shown as soon as the one before it
// is, in the "working…" message, however many answers are under way.
func TestProgressIntervalZeroSendsEachUpdate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		interval time.Duration
	}{
		{"zero", 0},
		{"less than zero", -time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The app's clock never moves: an update that waited for any
			// interval at all would never be sent.
			clock := newFakeClock()
			h := start(t, withConfig(func(c *Config) { c.ProgressInterval = tt.interval }), withApp(func(a *App) { a.clock = clock }))
			underLoad(t, h, 17) // would double any interval above zero
			ch := channelID("CPROGZERO")
			q := question{channel: ch, user: user, ts: "1700000704.000100", threadTS: "1700000704.000100", received: time.Now()}
			p := h.app.startProgress(t.Context(), q)
			require.NotEmpty(t, p.workingTS, "the first \"Working on it…\" is posted at once")
			p.watch(t.Context())
			defer p.stop()

			labels := []string{"Reading the tables…", "Writing SQL…", "Running the query…", "Explaining the result…"}
			for _, label := range labels {
				p.Started(t.Context(), bot.Step{Label: label})
				h.slack.WaitMessage(t, label, func(m fakeslack.Message) bool {
					return m.Channel == ch && m.TS == p.workingTS && strings.Contains(m.Text, label)
				})
			}
			var shown []string
			for _, c := range h.slack.Calls("chat.update") {
				if c.Args.Get("channel") == ch {
					shown = append(shown, strings.TrimPrefix(c.Args.Get("text"), "⏳ "))
				}
			}
			assert.Equal(t, labels, shown, "one update per step, in order")
		})
	}
}
