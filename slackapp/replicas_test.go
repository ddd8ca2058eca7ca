package slackapp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// The tests of this file run two bot processes, each with its own pool,
// result cache in memory, delivery memory and model, on the package's one
// database and one fake Slack: several replicas of `serve` (docs/scaling.md).

// replicaMode delivers to one process the way a mode of Slack does.
type replicaMode struct {
	name string
	opts []harnessOption
	// ask delivers a mention of the bot with q to h.
	ask func(t *testing.T, h *harness, ch, ts, q string)
	// press delivers a click on a button of m to h.
	press func(t *testing.T, h *harness, m fakeslack.Message, actionID, value string)
}

var replicaModes = []replicaMode{
	{
		// Slack sends each envelope to one of the app's connections.
		name: "socket mode",
		ask: func(t *testing.T, h *harness, ch, ts, q string) {
			h.mention(ch, ts, "", q)
		},
		press: func(t *testing.T, h *harness, m fakeslack.Message, actionID, value string) {
			h.press(m, actionID, value)
		},
	},
	{
		// A load balancer sends each request to one process.
		name: "http mode",
		opts: []harnessOption{overHTTP()},
		ask: func(t *testing.T, h *harness, ch, ts, q string) {
			status, body := do(t, h.signed("/slack/events", jsonType, mentionBody(ch, ts, q)))
			require.Equal(t, http.StatusOK, status, "POST /slack/events: %s", body)
		},
		press: func(t *testing.T, h *harness, m fakeslack.Message, actionID, value string) {
			payload := h.slack.BlockAction(user, m.Channel, m.TS, m.ThreadTS, actionID, value)
			body := []byte(url.Values{"payload": {string(payload)}}.Encode())
			status, reply := do(t, h.signed("/slack/interactions", formType, body))
			require.Equal(t, http.StatusOK, status, "POST /slack/interactions: %s", reply)
		},
	},
}

// TestButtonsWorkOnAnotherReplica answers a question in one process and
// presses the answer's buttons in another, which never saw the question and
// so holds nothing of it in memory: the second finds the result and the
// query in Postgres and serves both buttons, with no model call and without
// running the query again.
func TestButtonsWorkOnAnotherReplica(t *testing.T) {
	t.Parallel()
	for _, mode := range replicaModes {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			answerer := start(t, mode.opts...)
			other := start(t, append(mode.opts, sharing(answerer.slack))...)
			ch, ts := channelID("CREPLBTN"), "1700000301.000100"

			mode.ask(t, answerer, ch, ts, q2018)
			m := answerer.answerIn(ch, ts, answer18)
			answerer.waitJobs(1)
			require.Zero(t, other.jobs.Load(), "the other process never saw the question")

			mode.press(t, other, m, "export_csv", queryID(t, m))
			f := other.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch })
			assert.Equal(t, csv2018, string(f.Content), "the file holds the answer's result")
			assert.Equal(t, ts, f.ThreadTS, "uploaded into the answer's thread")
			assert.Equal(t, q2018, f.Title, "titled with the question the other process was asked")

			mode.press(t, other, m, "show_sql", queryID(t, m))
			shown := other.answerIn(ch, ts, "FROM analytics.apps\nWHERE release_year = 2018")
			assert.Contains(t, says(shown), q2018, "the SQL is titled with the question")

			other.waitJobs(2)
			assert.Equal(t, int64(1), answerer.jobs.Load(), "the answering process handled only the question")
			assert.Zero(t, other.modelCalls(), "the buttons make no model call")

			// The export's turn ran no query: its rows came from the result
			// the first process stored, not from running the SQL again.
			logs, err := other.bot.DB().QueryLogs(context.Background(), store.QueryLogFilter{ThreadID: threadID(ch, ts)})
			require.NoError(t, err)
			var export *store.QueryLog
			for i, l := range logs {
				if l.Intent == string(nodes.IntentExportCSV) {
					export = &logs[i]
				}
			}
			require.NotNil(t, export, "the export's turn is logged (logs: %+v)", logs)
			assert.Empty(t, export.ErrorKind, "the export answered")
			assert.Zero(t, export.DBTime, "the export read the stored result and ran no query")
		})
	}
}

// TestMentionReachingTwoReplicasIsAnsweredOnce mentions the bot in a
// channel while two processes are connected over Socket Mode. Slack sends
// each envelope to one connection of its choosing: here the app_mention
// reaches the first process, its twin message event (which the bot leaves
// to the app_mention) the second, and a redelivery of the app_mention, as
// Slack sends when it missed an ack, the second too, all at once. Both
// processes take the mention up; one answer is posted, by one process,
// which alone calls the model.
func TestMentionReachingTwoReplicasIsAnsweredOnce(t *testing.T) {
	t.Parallel()
	first := start(t)
	second := start(t, sharing(first.slack))
	ch, ts := channelID("CREPLTWN"), "1700000302.000100"
	text := "<@" + fakeslack.BotUserID + "> " + q2018

	mention := fakeslack.EventCallback("EvReplMention"+ch, fakeslack.AppMention(ch, user, text, ts, ""))
	envelopes := []struct {
		to *harness
		e  fakeslack.Envelope
	}{
		{first, fakeslack.Envelope{Type: "events_api", Payload: mention}},
		{second, fakeslack.Envelope{Type: "events_api", Payload: fakeslack.EventCallback("EvReplMessage"+ch,
			fakeslack.MessageEvent(ch, "channel", user, text, ts, ""))}},
		{second, fakeslack.Envelope{Type: "events_api", Payload: mention, RetryAttempt: 1, RetryReason: "timeout"}},
	}
	// All three are sent before any ack is awaited, so the processes
	// claim the message at the same time.
	ids := make([]string, len(envelopes))
	for i, d := range envelopes {
		ids[i] = first.slack.SendTo(t, d.to.conn, d.e)
	}
	for i, id := range ids {
		assert.Equal(t, envelopes[i].to.conn, first.slack.WaitAck(t, id).Conn, "envelope %d is acked by the process it reached", i)
	}

	first.answerIn(ch, ts, answer18)
	// Each process takes the mention up once. The second reads its
	// envelopes in order, so when the redelivery is done with, the twin
	// before it was too.
	first.waitJobs(1)
	second.waitJobs(1)
	var posted []string
	for _, m := range first.threadMessages(ch, ts) {
		posted = append(posted, m.Text)
	}
	assert.Len(t, posted, 1, "three deliveries over two processes, one answer")
	var posts int
	for _, c := range first.slack.Calls("chat.postMessage") {
		if c.Args.Get("channel") == ch {
			posts++
		}
	}
	assert.Equal(t, 1, posts, "one process posted (the progress message the answer replaced)")
	calls := []int{first.modelCalls(), second.modelCalls()}
	assert.Contains(t, calls, 0, "one process made no model call (model calls per process: %v)", calls)
	assert.NotEqual(t, []int{0, 0}, calls, "the other answered with the model")
}

// TestFollowUpWhileAnotherReplicaAnswers asks the bot by mention in one
// process, whose model takes 1.5 s a step, and sends "And in 2017?" in the
// thread, without a mention, to the other while the first answer is still
// being written, as Slack may. The other knows the thread from the moment
// the first process took the question, waits for its answer and answers
// the follow-up from it. A reply in a thread the bot was never asked in is
// still ignored, with a debug line saying why.
func TestFollowUpWhileAnotherReplicaAnswers(t *testing.T) {
	t.Parallel()
	answerer := start(t, withScript(slowDemoScript(1500*time.Millisecond)))
	var logs lockedBuffer
	other := start(t, sharing(answerer.slack), withLog(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ch, ts := channelID("CREPLFUP"), "1700000303.000100"

	answerer.mention(ch, ts, "", q2018)
	answerer.slack.WaitMessage(t, "the first question's progress", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && strings.Contains(says(m), "Working on it")
	})
	other.message(ch, "channel", "1700000303.000300", ts, "And in 2017?")
	for _, m := range other.threadMessages(ch, ts) {
		require.NotContains(t, says(m), answer18, "the follow-up must reach the other process while the first answer is under way")
	}

	other.answerIn(ch, ts, answer17)
	answerer.answerIn(ch, ts, answer18)
	assert.Len(t, other.threadMessages(ch, ts), 2, "both questions answered in the thread, one message each")
	assert.Equal(t, int64(1), answerer.jobs.Load(), "the first process answered only the mention")
	assert.NotZero(t, other.modelCalls(), "the other process answered the follow-up")

	// Chatter in a thread the bot was never asked in.
	chatter := channelID("CREPLCHAT")
	other.message(chatter, "channel", "1700000304.000200", "1700000304.000100", q2018)
	other.waitJobs(2)
	for _, m := range other.slack.Messages() {
		assert.NotEqual(t, chatter, m.Channel, "nothing is posted in a thread the bot was never asked in, got %+v", m)
	}
	assert.Contains(t, logs.String(), "thread reply not answered: the bot was not asked in this thread", "the ignored reply leaves a debug line")
}

// tickQuestion is answered with a query whose one value is new at every
// run, as a count is once the data has changed: the same query id, other
// rows.
const (
	tickQuestion = "What time is it on the database?"
	tickRules    = `
  - step: classify
    match: '(?im)^Question: What time is it on the database'
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
  - step: generate_sql
    match: '(?im)^Question: What time is it on the database'
    reply: '{"sql": "SELECT to_char(clock_timestamp(), ''HH24:MI:SS.US'') AS tick", "assumptions": [], "explanation": "x"}'
  - step: interpret
    match: '(?im)^Question: What time is it on the database'
    reply: '{"answer": "Here is the time on the database."}'
`
)

// TestExportOnAnotherReplicasNewerAnswer: one process answers a question,
// which it keeps in memory; the question is asked again in the thread and
// answered by the other, which stores newer rows under the same query id
// (as Refresh does). Export CSV pressed on that newer answer and delivered
// to the first process uploads the newer rows, not the first process's
// older copy.
func TestExportOnAnotherReplicasNewerAnswer(t *testing.T) {
	t.Parallel()
	script := withScript(bottest.DemoScript(tickRules))
	first := start(t, script)
	second := start(t, script, sharing(first.slack))
	ch, ts := channelID("CREPLNEW"), "1700000305.000100"
	ctx := context.Background()

	first.mention(ch, ts, "", tickQuestion)
	older := first.answerIn(ch, ts, "Here is the time on the database.")
	first.waitJobs(1)
	qid := queryID(t, older)
	held, err := first.bot.Cache().Get(ctx, threadID(ch, ts), qid)
	require.NoError(t, err)

	second.mention(ch, "1700000305.000200", ts, tickQuestion)
	newer := first.slack.WaitMessage(t, "the second answer", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && m.TS != older.TS && !m.Ephemeral &&
			strings.Contains(says(m), "Here is the time on the database.")
	})
	second.waitJobs(1)
	require.Equal(t, qid, queryID(t, newer), "the same query, the same id")
	stored, err := second.bot.Cache().Get(ctx, threadID(ch, ts), qid)
	require.NoError(t, err)
	require.NotEqual(t, held.Result.Rows, stored.Result.Rows, "the second run's rows differ")

	first.press(newer, "export_csv", qid)
	f := first.slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch })
	assert.Equal(t, fmt.Sprintf("tick\n%s\n", stored.Result.Rows[0][0]), string(f.Content),
		"the newer answer's rows, not the copy the first process held (%s)", held.Result.Rows[0][0])
}

// A double click whose two presses reach two processes uploads one file:
// the second process finds the first's press in the database.
func TestButtonPressedTwiceOnTwoReplicas(t *testing.T) {
	t.Parallel()
	first := start(t)
	second := start(t, sharing(first.slack))
	ch, ts := channelID("CREPLTWICE"), "1700000306.000100"
	first.mention(ch, ts, "", q2018)
	m := first.answerIn(ch, ts, answer18)
	first.waitJobs(1)
	qid := queryID(t, m)

	jobs1, jobs2 := first.jobs.Load(), second.jobs.Load()
	first.press(m, "export_csv", qid)
	second.press(m, "export_csv", qid)
	first.waitJobs(jobs1 + 1)
	second.waitJobs(jobs2 + 1)
	n := 0
	for _, f := range first.slack.Files() {
		if f.Channel == ch {
			n++
		}
	}
	assert.Equal(t, 1, n, "one file for the two presses")
}
