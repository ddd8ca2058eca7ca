package bot_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
)

func TestTurns(t *testing.T) {
	t.Parallel()
	turns := bot.NewTurns(1, 1, time.Hour)
	ctx := context.Background()
	first, err := turns.Admit(ctx, func() { t.Error("a free place is taken at once") })
	require.NoError(t, err)

	queued := make(chan struct{})
	admitted := make(chan func(), 1)
	go func() {
		release, err := turns.Admit(ctx, func() { close(queued) })
		assert.NoError(t, err)
		admitted <- release
	}()
	<-queued
	_, err = turns.Admit(ctx, func() { t.Error("a full queue is refused at once, not waited in") })
	require.ErrorIs(t, err, bot.ErrBusy, "one running, one waiting: the third is refused")
	assert.Equal(t, 1, turns.Running())
	assert.Equal(t, 1, turns.Waiting())

	first()
	second := <-admitted
	assert.Equal(t, 1, turns.Running(), "the waiting turn took the place")
	assert.Equal(t, 0, turns.Waiting())

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = turns.Admit(canceled, nil)
	assert.ErrorIs(t, err, context.Canceled, "an ended caller is not admitted")
	second()
	assert.Equal(t, 0, turns.Running())
}

func TestTurnsWaitLimit(t *testing.T) {
	t.Parallel()
	turns := bot.NewTurns(1, 10, 20*time.Millisecond)
	release, err := turns.Admit(context.Background(), nil)
	require.NoError(t, err)
	defer release()
	_, err = turns.Admit(context.Background(), nil)
	assert.ErrorIs(t, err, bot.ErrBusy, "waited the limit, then refused")
	assert.Equal(t, 0, turns.Waiting())
}

func TestTurnsDefaults(t *testing.T) {
	t.Parallel()
	turns := bot.NewTurns(0, 0, 0)
	assert.Equal(t, bot.DefaultMaxTurns, turns.Limit())
	assert.Equal(t, bot.DefaultTurnWait, turns.MaxWait())
}
