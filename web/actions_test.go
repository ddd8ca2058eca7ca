package web

import (
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/nodes"
)

func TestActions(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	other := lastMessageEnd(t, chat(t, srv, "", "Hello", nil).all(t)).ThreadID // the same person's other thread
	calls := len(b.Scripted.Calls())

	tests := []struct {
		name       string
		thread     string
		action     string
		value      string
		wantStatus int
		check      func(t *testing.T, resp *http.Response, body []byte)
	}{
		{
			name: "export csv", thread: end.ThreadID, action: string(nodes.IntentExportCSV), value: end.QueryID, wantStatus: http.StatusOK,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				assert.Equal(t, "text/csv; charset=utf-8", resp.Header.Get("Content-Type"), "content type")
				assert.Equal(t, `attachment; filename=how-many-games-were-released-in-2018-`+end.QueryID+`.csv`,
					resp.Header.Get("Content-Disposition"), "a download with the query's file name")
				assert.Equal(t, csv2018, string(body), "CSV")
			},
		},
		{
			name: "show sql", thread: end.ThreadID, action: string(nodes.IntentShowSQL), value: end.QueryID, wantStatus: http.StatusOK,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), "content type")
				var got struct {
					QueryID string     `json:"query_id"`
					SQL     string     `json:"sql"`
					Reply   *replyView `json:"reply"`
					Text    string     `json:"text"`
				}
				require.NoError(t, json.Unmarshal(body, &got), "body %s", body)
				assert.Equal(t, sql2018, got.SQL, "sql")
				assert.Equal(t, end.QueryID, got.QueryID, "query id")
				require.NotNil(t, got.Reply, "the reply")
				assert.Equal(t, &queryView{Language: "SQL", Text: "SELECT count(*) AS games\nFROM analytics.apps\nWHERE release_year = 2018"},
					got.Reply.Query, "the reply shows the SQL, a clause a line")
				assert.Equal(t, q2018, got.Reply.Question, "for the question")
				assert.Contains(t, got.Text, q2018, "text")
			},
		},
		{
			name: "unknown action", thread: end.ThreadID, action: "drop_table", value: end.QueryID, wantStatus: http.StatusBadRequest,
			check: wantErrorPrefix(`unknown action "drop_table"; the actions are export_csv, show_sql, `),
		},
		{
			name: "malformed query id", thread: end.ThreadID, action: string(nodes.IntentShowSQL), value: "1; DROP TABLE x", wantStatus: http.StatusBadRequest,
			check: wantErrorPrefix(`"1; DROP TABLE x" is not a query id (8 hex characters)`),
		},
		{
			name: "a 10 KB value", thread: end.ThreadID, action: string(nodes.IntentShowSQL), value: strings.Repeat("a", 10<<10),
			wantStatus: http.StatusBadRequest,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				assert.Equal(t, `"`+strings.Repeat("a", 39)+`…" is not a query id (8 hex characters)`, errorBody(t, body),
					"the error quotes the value's first 40 characters, not all of it")
			},
		},
		{
			name: "another thread's query", thread: other, action: string(nodes.IntentExportCSV), value: end.QueryID, wantStatus: http.StatusNotFound,
			check: wantError("I couldn't find an earlier result in this thread"),
		},
		{
			name: "show sql in another thread", thread: other, action: string(nodes.IntentShowSQL), value: end.QueryID, wantStatus: http.StatusNotFound,
			check: wantError("I couldn't find an earlier result in this thread"),
		},
		{
			name: "a thread the server never issued", thread: unissuedThreadID(), action: string(nodes.IntentShowSQL), value: end.QueryID,
			wantStatus: http.StatusNotFound, check: wantError(textNoThread),
		},
		{
			name: "not a web thread", thread: "C0123:1700000000.000100", action: string(nodes.IntentShowSQL), value: end.QueryID, wantStatus: http.StatusBadRequest,
			check: wantError("not a web thread id"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := doJSON(t, srv, http.MethodPost, "/api/actions",
				map[string]string{"thread_id": tt.thread, "action": tt.action, "value": tt.value}, nil)
			require.Equal(t, tt.wantStatus, resp.StatusCode, "status; body %s", body)
			tt.check(t, resp, body)
		})
	}

	// A CSV asked for in words cannot come down the stream: the answer
	// offers a button that downloads it.
	typed := lastMessageEnd(t, chat(t, srv, end.ThreadID, "export that as csv", nil).all(t))
	assert.Equal(t, end.QueryID, typed.QueryID, "the export names the answer's query")
	require.NotNil(t, typed.Reply, "the reply")
	assert.Equal(t, end.QueryID, typed.Reply.QueryID, "the button's value")
	assert.Contains(t, typed.Reply.Actions, actionRef{Action: "export_csv", Label: "Download CSV"}, "a Download CSV button")

	assert.Equal(t, calls, len(b.Scripted.Calls()), "buttons and exports never call the model")
}

// wantError checks a JSON error body holding substr.
func wantError(substr string) func(t *testing.T, resp *http.Response, body []byte) {
	return func(t *testing.T, resp *http.Response, body []byte) {
		t.Helper()
		assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), "content type")
		assert.Contains(t, errorBody(t, body), substr, "error message")
	}
}

// wantErrorPrefix checks that the error a client reads starts with
// prefix: the reason itself, not the server's words for the kind of error.
func wantErrorPrefix(prefix string) func(t *testing.T, resp *http.Response, body []byte) {
	return func(t *testing.T, resp *http.Response, body []byte) {
		t.Helper()
		assert.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), "content type")
		assert.True(t, strings.HasPrefix(errorBody(t, body), prefix), "error message %q starts with %q", errorBody(t, body), prefix)
	}
}

// With RESULT_FRESHNESS, asking again in a new conversation is answered
// from the first result: the reply says when its data is from and offers
// Refresh, whose press answers with the result run again, without the
// model.
func TestRefreshOnTheWeb(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, "", func(c *bot.Config) { c.ResultFreshness = 10 * time.Minute })
	srv := newTestServer(t, b, Config{})
	// The same person in the same channel ("web") asks twice.
	lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	again := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	require.NotNil(t, again.Reply)
	assert.Regexp(t, `data as of \d{4}-\d\d-\d\d \d\d:\d\d UTC`, again.Reply.Status, "the reply says when its data is from")
	assert.Contains(t, again.Reply.Actions, actionRef{Action: "refresh", Label: "Refresh"}, "a Refresh button")

	calls := len(b.Scripted.Calls())
	resp, body := doJSON(t, srv, http.MethodPost, "/api/actions",
		map[string]string{"thread_id": again.ThreadID, "action": "refresh", "value": again.QueryID}, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "body %s", body)
	var got struct {
		Reply *replyView `json:"reply"`
	}
	require.NoError(t, json.Unmarshal(body, &got), "body %s", body)
	require.NotNil(t, got.Reply)
	assert.Contains(t, got.Reply.Text.Plain(), "8,160", "the answer, run again")
	assert.NotContains(t, got.Reply.Status, "data as of", "it ran now")
	assert.Equal(t, calls, len(b.Scripted.Calls()), "Refresh makes no model call")
}

// README lists every action POST /api/actions takes, and no other: those
// the server names when it refuses an unknown one, Slack's feedback element
// ("feedback", its value "feedback_up:<query_id>") and the web's own
// feedback_note among them. None of them is refused as unknown. README's answer to a
// press names every field of it.
func TestReadmeNamesEveryAction(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, list, ok := strings.Cut(string(readme), "\nThe actions `POST /api/actions` takes")
	require.True(t, ok, "README lists the actions")
	list, _, _ = strings.Cut(list, "\n\nA `reply` is")
	var inReadme []string
	for _, item := range regexp.MustCompile("(?m)^- (.*?): ").FindAllStringSubmatch(list, -1) {
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(item[1], -1) {
			inReadme = append(inReadme, m[1])
		}
	}

	b := newTestBot(t, "")
	srv := newTestServer(t, b, Config{})
	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	resp, body := doJSON(t, srv, http.MethodPost, "/api/actions",
		map[string]string{"thread_id": end.ThreadID, "action": "drop_table", "value": end.QueryID}, nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "body %s", body)
	_, named, ok := strings.Cut(errorBody(t, body), "; the actions are ")
	require.True(t, ok, "an unknown action's error names the actions: %s", body)
	accepted := strings.Split(named, ", ")
	assert.Contains(t, accepted, "feedback", "Slack's feedback element, as the reply's feedback presses it")
	assert.Contains(t, accepted, actionFeedbackNote, "the note on a 👎")
	assert.ElementsMatch(t, accepted, inReadme, "the actions the server names, and README's")

	for _, action := range inReadme {
		value := "0badc0de"
		if action == "feedback" {
			value = "feedback_up:0badc0de"
		}
		_, body := doJSON(t, srv, http.MethodPost, "/api/actions",
			map[string]string{"thread_id": end.ThreadID, "action": action, "value": value}, nil)
		assert.NotContains(t, string(body), "unknown action", "%s is an action the server takes", action)
	}

	_, row, ok := strings.Cut(string(readme), "\n| `POST /api/actions` ")
	require.True(t, ok, "README's table has POST /api/actions")
	row, _, _ = strings.Cut(row, "\n")
	typ := reflect.TypeOf(actionResponse{})
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		assert.Contains(t, row, `"`+name+`"`, "README names the field %q of a press's answer", name)
	}
}
