package slackapp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// docs/scaling.md: each process keeps the last 8,192 delivery keys it
// claimed, so a redelivery to the same replica costs no query; an older
// key is asked of the database again.
func TestDeduperKeepsTheLast8192Keys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var asked []string
	d := newDeduper(func(_ context.Context, key string) bool {
		asked = append(asked, key)
		return true
	})
	key := func(i int) string { return fmt.Sprintf("message:C1:%d", i) }
	for i := range 8192 {
		assert.True(t, d.claim(ctx, key(i)), "a new key is this process's")
	}
	assert.Len(t, asked, 8192, "each new key is claimed in the database")

	assert.False(t, d.claim(ctx, key(0)), "a redelivery of the oldest of 8,192 keys")
	assert.Len(t, asked, 8192, "costs no query")

	d.claim(ctx, key(8192))
	assert.True(t, d.claim(ctx, key(0)), "the database says whose it is")
	assert.Equal(t, key(0), asked[len(asked)-1], "past 8,192 keys, the oldest is asked of the database again")
}

// docs/scaling.md: without the database a replica answers anyway. It
// cannot claim the delivery, so it handles it unclaimed, and the asker
// reads that the database is away rather than nothing at all.
func TestAnswersWithoutTheDatabase(t *testing.T) {
	t.Parallel()
	p := storetest.NewProxy(t, needDB(t))
	channel := channelID("CNODB")
	h := start(t, withBotConfig(func(c *bot.Config) { c.DatabaseURL = p.URL() }))
	h.mention(channel, "1700000901.000100", "", "How many games were released in 2018?")
	h.answerIn(channel, "1700000901.000100", "8,160")

	p.Stop()
	h.mention(channel, "1700000902.000100", "", "How many games were released in 2017?")
	m := h.answerIn(channel, "1700000902.000100", "I can't reach the database right now")
	assert.Regexp(t, `\(Reference e-[0-9a-f]{8}\.\)`, m.Text, "a reference for whoever runs the bot")
}

// Two processes share the presses they handled through the database; a
// process remembers only the presses it handled, so a press another
// process held back as a repeat does not hold back the next one: the
// retry of a press whose reply was not delivered (forgotten), and a press
// more than the window after the last one handled anywhere.
func TestRepeatAcrossProcesses(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	process := func() *deduper {
		d := newDeduper(func(context.Context, string) bool { return true })
		d.firstPress = func(ctx context.Context, key string, at time.Time, window time.Duration) bool {
			ok, err := db.ClaimRepeat(ctx, key, at, window)
			require.NoError(t, err)
			return ok
		}
		d.forgetPress = func(ctx context.Context, key string) { require.NoError(t, db.ForgetRepeat(ctx, key)) }
		return d
	}
	t0 := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)

	a, b := process(), process()
	key := pressKey("C1", "1700000000.000100", "U1", "export_csv", "q1")
	assert.False(t, a.repeat(ctx, key, t0), "A handles the first press")
	assert.True(t, b.repeat(ctx, key, t0.Add(time.Second)), "B holds back the double click's second")
	a.forget(ctx, key) // A's upload failed
	assert.False(t, b.repeat(ctx, key, t0.Add(5*time.Second)), "the retry, wherever it lands, is handled")

	other := pressKey("C1", "1700000000.000100", "U1", "show_sql", "q1")
	assert.False(t, a.repeat(ctx, other, t0))
	assert.True(t, b.repeat(ctx, other, t0.Add(9*time.Second)))
	assert.False(t, b.repeat(ctx, other, t0.Add(15*time.Second)), "15 s after the last press handled: handled")
	assert.True(t, a.repeat(ctx, other, t0.Add(16*time.Second)), "and the window runs from it, on A too")
}
