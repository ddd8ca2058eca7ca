package nodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

// A list of schedules is read wherever it was asked for, not in the
// thread a schedule posts to: a thread is named by its channel, and in
// the channel's list of everyone's schedules, one that sends its owner a
// message says whom. The confirmation, read in the thread, keeps "in this
// thread" and "send you".
func TestScheduleListWording(t *testing.T) {
	t.Parallel()
	n := (&Nodes{}).Defaults()
	w, err := schedule.ParseSpec("0 9 * * 1", time.UTC)
	require.NoError(t, err)
	thread := store.Schedule{ID: "3fa85f64", OwnerID: "U1", Surface: SurfaceSlack, Question: "Signups", Spec: "0 9 * * 1",
		TimeZone: "UTC", DestKind: string(schedule.DestThread), DestChannel: "C0123", DestThread: "1700000000.000100",
		State: store.SchedulePaused}
	assert.Contains(t, n.scheduleLine(thread, false), "post “Signups” in a thread of <#C0123> every Monday at 09:00 (UTC)")
	assert.Contains(t, DescribeSchedule(thread, w), "post “Signups” in this thread every Monday")

	dm := thread
	dm.DestKind, dm.DestChannel, dm.DestThread = string(schedule.DestDM), "", ""
	assert.Contains(t, n.scheduleLine(dm, true), "send <@U1> “Signups” in a direct message")
	assert.Contains(t, n.scheduleLine(dm, false), "send you “Signups” in a direct message")

	web := thread
	web.Surface = "web"
	assert.Contains(t, n.scheduleLine(web, false), "post “Signups” in the conversation it was made in every Monday")
}
