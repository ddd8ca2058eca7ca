package slackapp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A schedule that posts in a channel, or in a thread of one, stops once
// its owner is no longer a member of that channel, even the one they made
// it in, or once their Slack account is deactivated: the run posts
// nothing there, and they are told why in a direct message.
func TestChannelSchedulesStopOnceTheirOwnerLeft(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	ch, root := channelID("CLEFT"), "1700002301.000100"
	answered(t, h, ch, root)
	inChannel := storedSchedules(t, h, threadID(ch, root), ch, due, 1)[0]
	inThread := storedSchedules(t, h, threadID(ch, root), ch, due, 1, func(s *store.Schedule) {
		s.Question, s.DestKind, s.DestThread = "Thread report "+ch, "thread", ch+":"+root
	})[0]
	gone := storedSchedules(t, h, threadID(ch, root), ch, due, 1, func(s *store.Schedule) {
		s.Question, s.OwnerID = "Deactivated report "+ch, "UGONE001"
	})[0]

	h.slack.SetMembers(ch, "UBOB0001", "UGONE001") // the owner leaves the channel
	h.slack.SetUserDeactivated("UGONE001")
	clk.Set(due)
	require.Equal(t, 3, tick(t, sc))
	assert.Empty(t, h.posts(ch, "📅"), "nothing posted in the channel or its thread")
	for _, s := range []store.Schedule{inChannel, inThread} {
		h.slack.WaitMessage(t, "a DM to the owner about "+s.Question, func(m fakeslack.Message) bool {
			return m.Channel == "D"+user && strings.Contains(says(m), "I stopped your schedule “"+s.Question+"”: "+
				"you are no longer a member of the channel it posts to.")
		})
	}
	for _, s := range []store.Schedule{inChannel, inThread, gone} {
		got, err := h.bot.DB().ScheduleByID(context.Background(), s.ID)
		require.NoError(t, err)
		assert.Equal(t, store.ScheduleStopped, got.State, s.Question)
	}
	got, err := h.bot.DB().ScheduleByID(context.Background(), gone.ID)
	require.NoError(t, err)
	assert.Equal(t, "your Slack account is deactivated.", got.StopReason)
}

// A run reads as its owner is now: row-level security sees the address
// Slack gives them today (users.info), not the one they had when they
// saved it. When Slack cannot say who they are, the run reads nothing and
// posts nothing: it is tried again, then the owner is told.
func TestScheduledRunReadsAsItsOwnerIsNow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	due := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clk := bottest.NewClock(due.Add(-time.Hour))
	h, sc := scheduled(t, clk, "replica-1", ownState(t))
	pool, err := pgxpool.New(ctx, needDB(t))
	require.NoError(t, err)
	defer pool.Close()
	// The identity functions are the bot schema's (ownState's).
	identity := store.IdentitySchema(h.bot.Config().BotSchema)
	_, err = pool.Exec(ctx, `
		CREATE TABLE IF NOT EXISTS analytics.slack_sched_orders (order_id int, customer_email text);
		TRUNCATE analytics.slack_sched_orders;
		INSERT INTO analytics.slack_sched_orders VALUES (7101, 'ana@example.com'), (7102, 'ana.new@example.com');
		GRANT SELECT ON analytics.slack_sched_orders TO analyticsbot_reader;
		ALTER TABLE analytics.slack_sched_orders ENABLE ROW LEVEL SECURITY;
		DROP POLICY IF EXISTS own_orders ON analytics.slack_sched_orders;
		CREATE POLICY own_orders ON analytics.slack_sched_orders FOR SELECT
			USING (customer_email = (SELECT `+identity+`.user_email()))`)
	require.NoError(t, err)

	ch, root := channelID("CNOWME"), "1700002401.000100"
	answered(t, h, ch, root)
	orders := func(owner, question string) func(*store.Schedule) {
		return func(s *store.Schedule) {
			s.OwnerID, s.OwnerEmail, s.Question = owner, "ana@example.com", question
			s.Query = warehouse.Query{Backend: s.Query.Backend, Text: "SELECT order_id, customer_email FROM analytics.slack_sched_orders ORDER BY order_id"}
		}
	}
	s := storedSchedules(t, h, threadID(ch, root), ch, due, 1, orders("UANA0001", "Ana's orders "+ch))[0]
	h.slack.SetUserEmail("UANA0001", "Ana.New@Example.com") // changed in Slack since

	clk.Set(due)
	require.Equal(t, 1, tick(t, sc))
	posts := h.posts(ch, s.Question)
	require.Len(t, posts, 1)
	assert.Contains(t, says(posts[0]), "7102", "the rows of the address Slack gives now")
	assert.NotContains(t, says(posts[0]), "7101", "never the rows of the address saved with it")
	// What `analyticsbot schedules list --json` shows is the address the
	// run read as, not the old one.
	now, err := h.bot.DB().ScheduleByID(ctx, s.ID)
	require.NoError(t, err)
	assert.Equal(t, "ana.new@example.com", now.OwnerEmail, "the stored address is the one Slack gave at the run")

	// Slack does not answer users.info for an owner it was not asked about.
	unknown := storedSchedules(t, h, threadID(ch, root), ch, due.Add(24*time.Hour), 1, orders("UBEA0001", "Bea's orders "+ch))[0]
	h.slack.SetError("users.info", "internal_error")
	later := due.Add(24 * time.Hour)
	for _, at := range []time.Duration{0, time.Minute, 3 * time.Minute} { // SCHEDULE_RETRIES=2, 1m doubling
		clk.Set(later.Add(at))
		want := 1
		if at == 0 {
			want = 2 // Ana's runs too, and posts
		}
		require.Equal(t, want, tick(t, sc), "attempt at +%s", at)
	}
	assert.Empty(t, h.posts(ch, unknown.Question), "nothing posted as someone Slack did not vouch for")
	note := ownerNote(t, h, "UBEA0001", "I couldn't run your schedule “"+unknown.Question+"”")
	assert.Contains(t, says(note), "Slack didn't confirm who you are now, so I read nothing as you, 3 tries")
	runs, err := h.bot.DB().ScheduleRuns(ctx, unknown.ID, 10)
	require.NoError(t, err)
	require.Len(t, runs, 3)
	for _, r := range runs {
		assert.Equal(t, store.RunFailed, r.Outcome)
		assert.Equal(t, "owner_unknown", r.ErrorKind)
	}
}
