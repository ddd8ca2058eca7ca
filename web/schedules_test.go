package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/scheduler"
	"github.com/analyticsbot/analyticsbot/store"
)

// press posts a button press to /api/actions and returns the reply.
func press(t *testing.T, srv *httptest.Server, thread, action, value string) *replyView {
	t.Helper()
	resp, body := doJSON(t, srv, http.MethodPost, "/api/actions",
		map[string]string{"thread_id": thread, "action": action, "value": value}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "body %s", body)
	var got struct {
		Reply *replyView `json:"reply"`
	}
	require.NoError(t, json.Unmarshal(body, &got), "body %s", body)
	require.NotNil(t, got.Reply, "body %s", body)
	return got.Reply
}

// actionValue is the value of the reply's button action.
func actionValue(t *testing.T, r *replyView, action string) string {
	t.Helper()
	for _, a := range r.Actions {
		if a.Action == action {
			return a.Value
		}
	}
	t.Fatalf("no %s button in %+v", action, r.Actions)
	return ""
}

// In the web chat: the Schedule button offers presets, a preset is
// confirmed in plain words and saved; at its time the scheduler posts the
// run in the conversation, which the page shows when the thread is opened
// again, with no model call.
func TestScheduleOnTheWeb(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	require.NotNil(t, end.Reply)
	assert.Contains(t, end.Reply.Actions, actionRef{Action: "schedule", Label: "Schedule"})

	presets := press(t, srv, end.ThreadID, "schedule", end.QueryID)
	assert.Contains(t, presets.Text.Plain(), "When should I send you “"+q2018+"”?")
	preset := actionValue(t, presets, nodes.ActionSchedulePreset)
	assert.True(t, strings.HasPrefix(preset, end.QueryID+" "), "a preset carries the query id and its spec: %q", preset)

	confirm := press(t, srv, end.ThreadID, nodes.ActionSchedulePreset, end.QueryID+" 0 9 * * 1")
	assert.Contains(t, confirm.Text.Plain(), "I'll post “"+q2018+"” in this conversation every Monday at 09:00 (UTC), first on Monday")
	id := actionValue(t, confirm, nodes.ActionScheduleSave)
	saved := press(t, srv, end.ThreadID, nodes.ActionScheduleSave, id)
	assert.Contains(t, saved.Text.Plain(), "Saved: I'll post")

	sch, err := b.DB().ScheduleByID(context.Background(), id)
	require.NoError(t, err)
	require.NotNil(t, sch.NextRunAt)
	assert.Equal(t, time.Monday, sch.NextRunAt.UTC().Weekday())
	calls := len(b.Scripted.Calls())
	sc := scheduler.New(b, scheduler.Options{Now: func() time.Time { return sch.NextRunAt.Add(10 * time.Second) }, Only: id})
	n, err := sc.Tick(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, calls, len(b.Scripted.Calls()), "no model call")

	resp, data := doJSON(t, srv, http.MethodGet, "/api/threads/"+end.ThreadID, nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "GET thread: %s", data)
	var thread struct {
		Turns []struct {
			Intent string     `json:"intent"`
			Reply  *replyView `json:"reply"`
		} `json:"turns"`
	}
	require.NoError(t, json.Unmarshal(data, &thread), "thread body %s", data)
	last := thread.Turns[len(thread.Turns)-1]
	assert.Equal(t, string(nodes.IntentScheduledRun), last.Intent)
	require.NotNil(t, last.Reply)
	assert.Contains(t, last.Reply.Text.Plain(), "📅 "+q2018+" (every Monday at 09:00)")
	assert.Contains(t, last.Reply.Text.Plain(), "8,160")
	assert.Contains(t, last.Reply.Actions, actionRef{Action: "export_csv", Label: "Export CSV"}, "the run's buttons work in the thread")
}

// "schedules" typed in the web chat lists them, with buttons that pause,
// resume and delete.
func TestListSchedulesOnTheWeb(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	confirm := press(t, srv, end.ThreadID, nodes.ActionSchedulePreset, end.QueryID+" 0 9 1 * *")
	id := actionValue(t, confirm, nodes.ActionScheduleSave)
	press(t, srv, end.ThreadID, nodes.ActionScheduleSave, id)

	list := lastMessageEnd(t, chat(t, srv, "", "my schedules", nil).all(t))
	require.NotNil(t, list.Reply)
	assert.Contains(t, list.Reply.Text.Plain(), "on the 1st of every month at 09:00 (UTC)")
	assert.Contains(t, list.Reply.Text.Plain(), id)
	var pause string
	for _, a := range list.Reply.Actions {
		if a.Action == nodes.ActionSchedulePause && a.Value == id {
			pause = a.Value
		}
	}
	require.Equal(t, id, pause, "a Pause button for it: %+v", list.Reply.Actions)
	paused := press(t, srv, list.ThreadID, nodes.ActionSchedulePause, id)
	assert.Contains(t, paused.Text.Plain(), "Paused “"+q2018+"”. Resume it from schedules.")
}

// A schedule press the bot refuses is answered with the status of other
// refusals and the reason as the error: saving someone else's schedule is
// 403, one that does not exist 404; nothing changes.
func TestRefusedSchedulePressOnTheWeb(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{Token: httpSecret, Tokens: map[string]string{zedSecret: "token:zed"}})
	web, zed := bearerOf(httpSecret), bearerOf(zedSecret)
	end := lastMessageEnd(t, chat(t, srv, "", q2018, web).all(t))
	resp, body := pressAs(t, srv, web, map[string]string{"thread_id": end.ThreadID, "action": nodes.ActionSchedulePreset, "value": end.QueryID + " 0 9 * * 1"})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	var confirm struct {
		Reply *replyView `json:"reply"`
	}
	require.NoError(t, json.Unmarshal(body, &confirm))
	id := actionValue(t, confirm.Reply, nodes.ActionScheduleSave)

	own := lastMessageEnd(t, chat(t, srv, "", q2018, zed).all(t)).ThreadID
	for _, tt := range []struct {
		name, action, id string
		want             int
		text             string
	}{
		{"save another's", nodes.ActionScheduleSave, id, http.StatusForbidden, "Only the person who made this schedule can do that"},
		{"cancel another's", nodes.ActionScheduleCancel, id, http.StatusForbidden, "Only the person who made this schedule can do that"},
		{"pause one that does not exist", nodes.ActionSchedulePause, "0badc0de", http.StatusNotFound, "I can't find that schedule"},
	} {
		resp, body := pressAs(t, srv, zed, map[string]string{"thread_id": own, "action": tt.action, "value": tt.id})
		assert.Equal(t, tt.want, resp.StatusCode, "%s: %s", tt.name, body)
		assert.Contains(t, errorBody(t, body), tt.text, tt.name)
	}
	sch, err := b.DB().ScheduleByID(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, store.SchedulePending, sch.State, "still waiting for its owner")
}
