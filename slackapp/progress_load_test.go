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
// the first "Working on it…" and the answer are never held back.
func TestProgressIntervalUnderLoad(t *testing.T) {
	t.Parallel()
	t.Run("updates are spaced twice the interval with 17 answers under way", func(t *testing.T) {
		t.Parallel()
		const interval = 250 * time.Millisecond
		h := start(t, withConfig(func(c *Config) { c.ProgressInterval = interval }))
		underLoad(t, h, 17)
		ch := channelID("CPROGLOAD")
		q := question{channel: ch, user: user, ts: "1700000701.000100", threadTS: "1700000701.000100", received: time.Now()}
		p := h.app.startProgress(t.Context(), q)
		require.NotEmpty(t, p.workingTS, "the first \"Working on it…\" is posted at once")
		p.watch(t.Context())
		defer p.stop()

		for _, label := range []string{"Reading the tables…", "Writing SQL…"} {
			p.Started(t.Context(), bot.Step{Label: label})
			h.slack.WaitMessage(t, label, func(m fakeslack.Message) bool {
				return m.Channel == ch && m.TS == p.workingTS && strings.Contains(m.Text, label)
			})
		}
		var updates []fakeslack.Call
		for _, c := range h.slack.Calls("chat.update") {
			if c.Args.Get("channel") == ch {
				updates = append(updates, c)
			}
		}
		require.Len(t, updates, 2)
		assert.GreaterOrEqual(t, updates[1].At.Sub(updates[0].At), 2*interval,
			"17 answers under way: twice SLACK_PROGRESS_INTERVAL between two updates")
	})

	t.Run("the answer does not wait for the stretched interval", func(t *testing.T) {
		t.Parallel()
		h := start(t, withConfig(func(c *Config) { c.ProgressInterval = time.Hour }))
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
		// The loop now waits two hours before the next update; the answer
		// stops it and goes out at once.
		stopped := make(chan struct{})
		go func() { p.stop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(30 * time.Second):
			t.Fatal("stopping the progress waited for the progress interval")
		}
	})
}

// docs/slack.md, SLACK_PROGRESS_INTERVAL: the answer's streamed text
// stretches with the progress updates (chat.appendStream is rate-limited
// per app as chat.update is): with 17 answers under way, two appends of
// one answer's text are twice the interval apart, however fast the model
// writes.
func TestStreamedTextStretchesUnderLoad(t *testing.T) {
	t.Parallel()
	const interval = 100 * time.Millisecond
	h := start(t, streaming(), withConfig(func(c *Config) { c.ProgressInterval = interval }))
	underLoad(t, h, 17)
	ch := channelID("CSTREAMLOAD")
	q := question{channel: ch, user: user, ts: "1700000703.000100", threadTS: "1700000703.000100", received: time.Now()}
	st := h.app.newStreamer(q)
	require.NotNil(t, st)
	require.True(t, st.begin(t.Context()))
	st.attach(t.Context())

	// The model writes a word every 10 ms for a second.
	st.chunk(`{"answer": "`)
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		st.chunk("word ")
		time.Sleep(10 * time.Millisecond)
	}
	var appends []fakeslack.Call
	for _, c := range h.slack.Calls("chat.appendStream") {
		if c.Args.Get("channel") == ch {
			appends = append(appends, c)
		}
	}
	require.GreaterOrEqual(t, len(appends), 2, "the text streamed")
	// The interval is measured by the app before each call, the gaps
	// where the fake Slack received them: a call's jitter may take a few
	// milliseconds off a gap, never the 100 ms an unstretched one lacks.
	for i := 1; i < len(appends); i++ {
		assert.GreaterOrEqual(t, appends[i].At.Sub(appends[i-1].At), 3*interval/2,
			"17 answers under way: twice SLACK_PROGRESS_INTERVAL between two appends")
	}
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
			h := start(t, withConfig(func(c *Config) { c.ProgressInterval = tt.interval }))
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
