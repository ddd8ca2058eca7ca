package web

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/pgpool"
)

// maxNewQuestionRoundTrips is what a new question in a new conversation
// costs the databases, the bot's own and the reader's, counted by
// pgpool.RoundTrips: issue 31 brought it from 17 to 11, 30-batch to 10 (the examples' search
// and the value lookup in one batch). Each is one write
// and one read for the bot, so this is a ceiling that must not silently
// rise; lower it when a change saves more. The list a failure prints says
// what each is for (BENCHMARKS.md, "31-db").
const maxNewQuestionRoundTrips = 10

// A new question through POST /api/chat/stream, as BenchmarkLoad200Web
// asks them, makes no more round trips than maxNewQuestionRoundTrips, and
// is answered; a second question in its conversation still reads the
// first turn (its history is skipped only while the thread is new).
func TestRoundTripsOfANewQuestion(t *testing.T) {
	t.Parallel()
	b := newTestBot(t, demoScript(""))
	handler := New(b, Config{}, testLogger(t))
	var rt pgpool.RoundTrips
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.ServeHTTP(w, r.WithContext(pgpool.CountRoundTrips(r.Context(), &rt)))
	}))
	t.Cleanup(srv.Close)

	// The first question of a bot finds where pg_trgm and the stem index
	// are, and its connections prepare their statements: not counted.
	lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	rt.Reset()
	end := lastMessageEnd(t, chat(t, srv, "", q2018, nil).all(t))
	assert.Empty(t, end.Debug.ErrorKind)
	assert.Contains(t, end.Text, "8,160", "the answer")
	assert.Equal(t, answerPath, end.Debug.Nodes)
	assert.LessOrEqual(t, rt.Len(), maxNewQuestionRoundTrips, "round trips of a new question:\n%s", &rt)
	assert.False(t, readsHistory(rt.List()), "a new conversation has no history to read:\n%s", &rt)
	t.Logf("round trips of a new question:\n%s", &rt)

	rt.Reset()
	next := lastMessageEnd(t, chat(t, srv, end.ThreadID, "And in 2017?", nil).all(t))
	assert.Empty(t, next.Debug.ErrorKind)
	assert.Contains(t, next.Text, "6,357", "the follow-up answered from the first turn's query")
	assert.True(t, readsHistory(rt.List()), "the second question reads the first turn:\n%s", &rt)
}

// readsHistory reports whether one of trips reads a thread's turns.
func readsHistory(trips []pgpool.RoundTrip) bool {
	return slices.ContainsFunc(trips, func(r pgpool.RoundTrip) bool {
		return slices.ContainsFunc(r.Statements, func(s string) bool {
			return strings.HasPrefix(strings.TrimSpace(s), "SELECT") && strings.Contains(s, "FROM conversation_turns")
		})
	})
}
