package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// docs/schedules.md, Settings: SCHEDULES=false turns off the scheduler in
// serve. The scheduler says it runs before it polls, and stopping it waits
// for it to end, so once stopped its log tells whether it ran.
func TestServeRunsTheSchedulerOnlyWithSchedulesOn(t *testing.T) {
	t.Parallel()
	_, dbURL := storetest.NewWithURL(t)
	for _, tc := range []struct {
		name      string
		schedules bool
	}{
		{name: "SCHEDULES=true", schedules: true},
		{name: "SCHEDULES=false", schedules: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			watch := bottest.NewLogWatch("scheduler running")
			cfg := bottest.Config(t, dbURL, "")
			cfg.Schedules = tc.schedules
			b := bottest.Start(t, cfg, slog.New(watch))
			stop := startScheduler(context.Background(), b, nil)
			stop()
			ran := false
			for _, m := range watch.Messages() {
				ran = ran || m == "scheduler running"
			}
			assert.Equal(t, tc.schedules, ran, "got the scheduler running %t, want %t", ran, tc.schedules)
		})
	}
}
