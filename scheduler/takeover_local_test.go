package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// dyingLocal is the web chat's deliverer in a replica that dies while the
// run is marked as being posted: it says where the run goes, then waits
// to be stopped and never records it.
type dyingLocal struct {
	bot.LocalDeliverer
	delivering chan struct{}
}

func (d dyingLocal) Deliver(ctx context.Context, sch store.Schedule, r bot.Reply) (bot.Delivered, error) {
	if _, err := d.LocalDeliverer.Deliver(ctx, sch, r); err != nil {
		return bot.Delivered{}, err
	}
	close(d.delivering)
	<-ctx.Done()
	return bot.Delivered{}, ctx.Err()
}

// docs/schedules.md: a web (or terminal) run's replica that dies while the
// run is marked as being posted leaves it to a taker, which cannot ask
// anyone whether it was posted and writes the turn: the run shows in its
// thread rather than never.
func TestTakeoverOfALocalRunWritesItsTurn(t *testing.T) {
	dbURL := testDB(t)
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	b := bottest.New(t, dbURL, "")
	thread := bot.NewThreadID()
	r := newRuns(t, b, due, scheduler.Options{Lease: time.Minute}, func(s *store.Schedule) {
		s.Surface, s.SourceChannel, s.SourceThread = nodes.SurfaceWeb, "web", thread
		s.DestKind, s.DestChannel, s.DestThread = "thread", "web", thread
	})
	dying := scheduler.New(b, scheduler.Options{Now: r.clk.Now, Only: r.sch.ID, Runner: "dying", Lease: time.Minute})
	d := dyingLocal{LocalDeliverer: b.LocalDeliverer(), delivering: make(chan struct{})}
	dying.Handle(nodes.SurfaceWeb, d)

	runCtx, kill := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = dying.Tick(runCtx)
	}()
	select {
	case <-d.delivering:
	case <-time.After(time.Minute):
		t.Fatal("the dying runner never delivered the run")
	}
	kill()
	<-done
	turns, err := b.DB().RecentTurns(ctx, thread, 10)
	require.NoError(t, err)
	assert.Empty(t, turns, "the dying runner wrote no turn")

	r.clk.Set(due.Add(90 * time.Second))
	require.Equal(t, 1, r.tick(t), "the lapsed claim is taken over")
	turns, err = b.DB().RecentTurns(ctx, thread, 10)
	require.NoError(t, err)
	require.Len(t, turns, 1, "the taker writes the run's turn")
	assert.Equal(t, r.sch.Question, turns[0].UserMessage)
	assert.Contains(t, turns[0].BotResponse, "8,160", "the run's answer")
	assert.Equal(t, []string{"abandoned ", "posted "}, r.runs(t), "the dead runner's attempt, then the taker's")
}
