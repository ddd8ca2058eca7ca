package slackapp

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

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
