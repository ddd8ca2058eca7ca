package bot_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// contractorsFile is an access file whose contractors (a Slack user
// group) may read less than everyone else: whoever Slack does not say is
// outside it is refused.
const contractorsFile = `
groups:
  contractors: [S0CONTRACT]
policies:
  - name: contractors
    groups: [contractors]
    tables: ["analytics.none"]
  - name: everyone
    tables: ["analytics.*"]
default: everyone
`

// textAccessUnknown is what someone is told while Slack does not list a
// user group that decides their access.
const textAccessUnknown = "I can't check your access right now: Slack didn't answer. Try again in a minute."

// testAccessUnknown: while Slack does not list a user group that decides
// someone's access, an MCP call of theirs and their Save of a schedule
// are refused with "try again" and recorded as access_unknown (a failure
// to check), not not_admitted (a refusal of the file's): the call in the
// query log, the Save in its reply's outcome and its node's; the schedule
// stays pending and is saved once Slack answers, and a scheduled run is
// tried again rather than stopped.
func testAccessUnknown(t *testing.T, e *testEnv) {
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(contractorsFile), 0o600))
	b := newBot(t, e, script(), func(c *bot.Config) { c.AccessFile = path })
	var down atomic.Bool
	b.SetDirectory(func(context.Context, string) ([]string, error) {
		if down.Load() {
			return nil, errors.New("usergroups.users.list: timeout")
		}
		return nil, nil // known: nobody is a contractor
	})
	ctx := t.Context()

	t.Run("an MCP call", func(t *testing.T) {
		const user = "UMCPDOWN"
		m := bot.Message{UserID: user, ChannelID: "C1"}
		down.Store(true)
		defer down.Store(false)
		_, err := b.Tables(ctx, m)
		var ref *access.Refusal
		require.ErrorAs(t, err, &ref)
		assert.Equal(t, textAccessUnknown, ref.Reason, "what the MCP client is told")
		logs, err := b.DB().QueryLogs(ctx, store.QueryLogFilter{UserID: user})
		require.NoError(t, err)
		require.Len(t, logs, 1, "the call is logged")
		assert.Equal(t, string(nodes.ErrAccessUnknown), logs[0].ErrorKind, "a failure to check, not a refusal")
		assert.Contains(t, logs[0].ErrorDetail, "S0CONTRACT", "the log says which group")

		down.Store(false)
		tables, err := b.Tables(ctx, m)
		require.NoError(t, err, "Slack answers: under the default")
		assert.NotEmpty(t, tables)
	})

	t.Run("a schedule's Save", func(t *testing.T) {
		m := bot.Message{ThreadID: bot.NewThreadID(), UserID: "USAVEDOWN", ChannelID: "C1"}
		askIn := func(text string) *nodes.State {
			t.Helper()
			s, _, err := b.AskState(ctx, bot.Message{ThreadID: m.ThreadID, UserID: m.UserID, ChannelID: m.ChannelID, Text: text})
			require.NoError(t, err)
			require.Empty(t, s.ErrorKind, "%q: %s", text, s.ErrorDetail)
			return s
		}
		askIn("How many games were released in 2018?")
		confirm := askIn("post this here every Monday at 9")
		require.NotEmpty(t, confirm.ScheduleID, "a pending schedule: %s", confirm.ResponseText)

		down.Store(true)
		r, err := b.Press(ctx, m, nodes.ActionScheduleSave, confirm.ScheduleID)
		require.NoError(t, err)
		assert.Contains(t, r.Text, textAccessUnknown, "the owner is told to try again")
		assert.Equal(t, bot.Outcome{Status: bot.OutcomeFailed, Kind: string(nodes.ErrAccessUnknown), Cause: bot.CauseUnavailable},
			bot.Outcome{Status: r.Outcome.Status, Kind: r.Outcome.Kind, Cause: r.Outcome.Cause}, "a failure to check, not a refusal")
		_, res, err := b.PressState(ctx, m, nodes.ActionScheduleSave, confirm.ScheduleID)
		down.Store(false)
		require.NoError(t, err)
		require.NotEmpty(t, res.Steps)
		step := res.Steps[len(res.Steps)-1]
		assert.Equal(t, []string{nodes.NodeManageSchedule, workflow.OutcomeFailed, string(nodes.ErrAccessUnknown)},
			[]string{step.Node, step.Outcome, step.Kind}, "the node's span and metric")
		sch, err := b.DB().ScheduleByID(ctx, confirm.ScheduleID)
		require.NoError(t, err)
		assert.Equal(t, store.SchedulePending, sch.State, "nothing saved, nothing lost")

		r, err = b.Press(ctx, m, nodes.ActionScheduleSave, confirm.ScheduleID)
		require.NoError(t, err)
		require.Contains(t, r.Text, "Saved:", "Slack answers: the same Save works")

		sch, err = b.DB().ScheduleByID(ctx, confirm.ScheduleID)
		require.NoError(t, err)
		slack := &recordingDeliverer{}
		sc := scheduler.New(b, scheduler.Options{Now: func() time.Time { return sch.NextRunAt.Add(time.Second) }, Only: sch.ID})
		sc.Handle(nodes.SurfaceSlack, slack)
		down.Store(true)
		n, err := sc.Tick(ctx)
		down.Store(false)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		assert.Empty(t, slack.posts, "nothing posted")
		sch, err = b.DB().ScheduleByID(ctx, confirm.ScheduleID)
		require.NoError(t, err)
		assert.Equal(t, store.ScheduleActive, sch.State, "tried again, not stopped: %s", sch.StopReason)
		assert.Empty(t, slack.tells, "a run to be tried again is not told")

		// Its retries spent, the owner is told why in words of their own.
		spent := scheduler.New(b, scheduler.Options{Now: func() time.Time { return sch.NextRunAt.Add(time.Second) }, Only: sch.ID, Retries: -1})
		spent.Handle(nodes.SurfaceSlack, slack)
		down.Store(true)
		n, err = spent.Tick(ctx)
		down.Store(false)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		require.Len(t, slack.tells, 1)
		assert.Contains(t, slack.tells[0], "Slack didn't say whether you may still read what it reads", "not “something went wrong”")
		sch, err = b.DB().ScheduleByID(ctx, confirm.ScheduleID)
		require.NoError(t, err)
		assert.Equal(t, store.ScheduleActive, sch.State, "one failed run does not stop it: %s", sch.StopReason)
	})
}
