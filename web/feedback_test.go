package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// 👍/👎 through the web API: the answer's blocks carry the feedback
// buttons, a 👎 asks for a note, the note is stored with it, and bad
// presses get clear errors; no model call.
func TestFeedback(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	require.NotNil(t, end.Reply, "the reply")
	assert.True(t, end.Reply.Feedback, "the answer asks for 👍/👎")
	calls := len(b.Scripted.Calls())

	type reply struct {
		SQL     string     `json:"sql"`
		Text    string     `json:"text"`
		Reply   *replyView `json:"reply"`
		AskNote bool       `json:"ask_note"`
	}
	post := func(body map[string]string) (*http.Response, reply) {
		t.Helper()
		body["thread_id"] = end.ThreadID
		resp, data := doJSON(t, srv, http.MethodPost, "/api/actions", body, nil)
		var got reply
		if resp.StatusCode == http.StatusOK {
			require.NoError(t, json.Unmarshal(data, &got), "body %s", data)
		}
		return resp, got
	}
	resp, got := post(map[string]string{"action": "feedback", "value": "feedback_down:" + end.QueryID})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.True(t, got.AskNote, "a 👎 asks what was wrong")
	assert.Contains(t, got.Text, "What was wrong?")
	assert.Empty(t, got.SQL, "a rating's reply shows no query (README)")

	resp, got = post(map[string]string{"action": "feedback_note", "value": end.QueryID, "note": "  2018 is not over  "})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.False(t, got.AskNote)
	assert.Empty(t, got.SQL, "a note's reply shows no query")
	var note, user string
	require.NoError(t, b.DB().Pool().QueryRow(context.Background(),
		`SELECT note, user_id FROM feedback WHERE thread_id = $1 AND query_id = $2 AND rating = -1`, end.ThreadID, end.QueryID).Scan(&note, &user))
	assert.Equal(t, "2018 is not over", note)
	assert.Equal(t, "web", user)

	resp, got = post(map[string]string{"action": "feedback_up", "value": end.QueryID})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.False(t, got.AskNote)
	assert.True(t, strings.HasPrefix(got.Text, "Thanks for the 👍"), got.Text)
	assert.Empty(t, got.SQL, "a rating's reply shows no query (README)")

	resp, _ = post(map[string]string{"action": "feedback_up", "value": "0badc0de"})
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "an answer the thread does not have")
	resp, _ = post(map[string]string{"action": "feedback", "value": "feedback_up:nope"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	for _, blank := range []string{"", " ", " \n\t "} {
		body := map[string]string{"action": "feedback_note", "value": end.QueryID, "note": blank, "thread_id": end.ThreadID}
		resp, data := doJSON(t, srv, http.MethodPost, "/api/actions", body, nil)
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "an empty note %q is the client's mistake", blank)
		assert.JSONEq(t, `{"error": "the note is empty: write what was wrong"}`, string(data), "words for the note box, not Slack's “feedback:”")
	}
	resp, _ = post(map[string]string{"action": "verify_example", "value": end.QueryID})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "the web user is not an example admin")
	assert.Equal(t, calls, len(b.Scripted.Calls()), "feedback never calls the model")
}
