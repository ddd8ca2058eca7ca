package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store"
)

// asProgram, set in a process's environment, makes the test binary run
// the program itself instead of the tests, with the arguments it was given
// (see TestMain): tests start it as separate processes, as a deployment
// starts replicas of the binary.
const asProgram = "ANALYTICSBOT_TEST_AS_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// process is the program running as a process of its own.
type process struct {
	name        string
	cmd         *exec.Cmd
	out, errOut *syncBuffer
	// exited is closed when the process has exited; err is then how.
	exited chan error
	err    error
}

// startProcess runs the program with args and the test's environment.
func startProcess(t *testing.T, name string, args ...string) *process {
	t.Helper()
	p := &process{name: name, out: &syncBuffer{}, errOut: &syncBuffer{}, exited: make(chan error)}
	p.cmd = exec.Command(os.Args[0], args...)
	p.cmd.Env = append(os.Environ(), asProgram+"=1")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.errOut
	require.NoError(t, p.cmd.Start(), "start %s", name)
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// stop sends SIGTERM, as a deployment stops a replica, and checks that the
// process finished its work and exited cleanly.
func (p *process) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM), "signal %s", p.name)
	select {
	case <-p.exited:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not stop within a minute of SIGTERM", p.name)
	}
	require.NoError(t, p.err, "%s exits cleanly; stderr:\n%s", p.name, p.errOut.String())
	assert.Contains(t, p.out.String(), "stopped", "%s says it stopped", p.name)
}

// fillOldRows puts n rows older than every retention age into each table
// the retention job cleans.
func fillOldRows(t *testing.T, dbURL string, n int) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dbURL)
	require.NoError(t, err)
	defer db.Close()
	// Without arguments, Exec may run several statements; n is the test's own.
	_, err = db.Pool().Exec(ctx, fmt.Sprintf(`
		INSERT INTO chat_query_logs (question, created_at)
			SELECT 'old ' || i, now() - interval '8 days' FROM generate_series(1, %[1]d) i;
		INSERT INTO conversation_turns (thread_id, created_at)
			SELECT 'old', now() - interval '91 days' FROM generate_series(1, %[1]d);
		INSERT INTO query_results (thread_id, query_id, created_at)
			SELECT 'old', 'q' || i, now() - interval '31 days' FROM generate_series(1, %[1]d) i;
		INSERT INTO slack_deliveries (key, received_at)
			SELECT 'old ' || i, now() - interval '25 hours' FROM generate_series(1, %[1]d) i;`, n))
	require.NoError(t, err, "fill the bot's tables with old rows")
}

// retentionLine is the log line of a retention pass of `serve`.
var retentionLine = regexp.MustCompile(`msg=retention query_logs=(\d+) turns=(\d+) results=(\d+) deliveries=(\d+)|msg="retention skipped`)

// deleted reads how many rows a logged retention pass deleted, per table.
func deleted(t *testing.T, m []string) [4]int {
	t.Helper()
	var n [4]int
	if m[1] == "" {
		return n // skipped
	}
	for i := range n {
		v, err := strconv.Atoi(m[i+1])
		require.NoError(t, err)
		n[i] = v
	}
	return n
}

// exportQueryID reads the Export CSV button's value from an answer.
func exportQueryID(t *testing.T, m fakeslack.Message) string {
	t.Helper()
	var blocks []struct {
		Elements []struct {
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
		} `json:"elements"`
	}
	require.NoError(t, json.Unmarshal(m.Blocks, &blocks), "answer blocks")
	for _, b := range blocks {
		for _, e := range b.Elements {
			if e.ActionID == "export_csv" {
				return e.Value
			}
		}
	}
	t.Fatalf("no Export CSV button in %s", m.Blocks)
	return ""
}

// TestCLITwoServeProcesses runs two `analyticsbot serve` processes on one
// database, both connected to one Slack over Socket Mode, which sends each
// envelope to one of them (docs/scaling.md). A button pressed on the first
// one's answer is served by the second; a mention whose redelivery reaches
// the other process is answered once; the retention job, which each
// process runs as it starts, deletes every old row once.
func TestCLITwoServeProcesses(t *testing.T) {
	dbURL := serveEnv(t)
	const old = 40
	fillOldRows(t, dbURL, old)
	slack := fakeslack.New(t)
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_APP_TOKEN", fakeslack.AppToken)
	t.Setenv("SLACK_API_URL", slack.APIURL())
	t.Setenv("LOG_LEVEL", "info")
	t.Setenv("SCHEDULE_POLL", "500ms")
	t.Setenv("SCHEDULE_LEASE", "5s")

	// One after the other, so the fake numbers their connections 1 and 2.
	procs := make([]*process, 2)
	for i := range procs {
		procs[i] = startProcess(t, fmt.Sprintf("serve %d", i+1), "serve")
		procs[i].out.waitFor(t, regexp.MustCompile(`in Slack over Socket Mode`), procs[i].exited)
		slack.WaitConnects(t, i+1)
	}
	first, second := 1, 2

	const ch, user = "CREPLICAS", "UALICE01"
	whole := func(ts string) func(fakeslack.Message) bool {
		return func(m fakeslack.Message) bool {
			return m.Channel == ch && m.ThreadTS == ts && strings.Contains(m.Text, "8,160") && !m.Streaming &&
				strings.Contains(string(m.Blocks), "export_csv")
		}
	}
	mention := func(ts string) json.RawMessage {
		return fakeslack.EventCallback("Ev"+strings.ReplaceAll(ts, ".", ""),
			fakeslack.AppMention(ch, user, "<@"+fakeslack.BotUserID+"> "+q2018, ts, ""))
	}

	// The first process answers; the second, which never saw the
	// question, serves its buttons.
	const ts = "1700000400.000100"
	slack.WaitAck(t, slack.SendTo(t, first, fakeslack.Envelope{Type: "events_api", Payload: mention(ts)}))
	answer := slack.WaitMessage(t, "the first process's answer", whole(ts))
	qid := exportQueryID(t, answer)
	for _, action := range []string{"export_csv", "show_sql"} {
		slack.WaitAck(t, slack.SendTo(t, second, fakeslack.Envelope{Type: "interactive",
			Payload: slack.BlockAction(user, ch, answer.TS, ts, action, qid)}))
	}
	f := slack.WaitFile(t, func(f fakeslack.File) bool { return f.Channel == ch && f.ThreadTS == ts })
	assert.Equal(t, csv2018, string(f.Content), "the second process exports the first one's result")
	slack.WaitMessage(t, "the second process shows the first one's SQL", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && strings.Contains(strings.Join(m.BlockTexts(), "\n"), "WHERE release_year = 2018")
	})

	// Schedules due now, which both processes poll for twice a second:
	// each is posted once. Their owner is in the channel they post to, as
	// each run checks.
	slack.Join("CSCHEDULED", user)
	schedules := dueSchedules(t, dbURL, "CREPLICAS:"+ts, "CSCHEDULED", 6)
	for _, q := range schedules {
		slack.WaitMessage(t, "the run of "+q, func(m fakeslack.Message) bool {
			return m.Channel == "CSCHEDULED" && strings.Contains(strings.Join(m.BlockTexts(), "\n"), q)
		})
	}

	// A mention reaches the first process, and Slack's redelivery of it
	// the second, at once.
	const again = "1700000401.000100"
	ids := []string{
		slack.SendTo(t, first, fakeslack.Envelope{Type: "events_api", Payload: mention(again)}),
		slack.SendTo(t, second, fakeslack.Envelope{Type: "events_api", Payload: mention(again), RetryAttempt: 1, RetryReason: "timeout"}),
	}
	for _, id := range ids {
		slack.WaitAck(t, id)
	}
	slack.WaitMessage(t, "the answer to the mention both processes got", whole(again))

	// Each process ran a retention pass as it started.
	var total [4]int
	for _, p := range procs {
		total = [4]int(addCounts(total, deleted(t, p.errOut.waitFor(t, retentionLine, p.exited))))
	}
	assert.Equal(t, [4]int{old, old, old, old}, total,
		"old query logs, turns, results and delivery claims deleted over both processes, each once")

	// A stopped process has finished (or apologised for) everything it took
	// up, so the thread now shows all there will ever be.
	for _, p := range procs {
		p.stop(t)
	}
	var posted []string
	for _, m := range slack.Messages() {
		if m.Channel == ch && m.ThreadTS == again && !m.Ephemeral && !m.Deleted {
			posted = append(posted, m.Text)
		}
	}
	assert.Len(t, posted, 1, "one answer to a mention both processes got: %q", posted)
	for _, q := range schedules {
		runs := 0
		for _, m := range slack.Messages() {
			if m.Channel == "CSCHEDULED" && strings.Contains(strings.Join(m.BlockTexts(), "\n"), q) {
				runs++
			}
		}
		assert.Equal(t, 1, runs, "%s posted once by the two processes", q)
	}
	for _, p := range procs {
		assert.Len(t, retentionLine.FindAllString(p.errOut.String(), -1), 1, "%s ran one retention pass", p.name)
		assert.NotContains(t, p.errOut.String(), "DATA RACE", "%s", p.name)
	}
}

// dueSchedules stores n active schedules of the thread's latest answer,
// due now and posting to channel, and returns their questions.
func dueSchedules(t *testing.T, dbURL, thread, channel string, n int) []string {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, dbURL)
	require.NoError(t, err)
	defer db.Close()
	turn, err := db.MostRecentQuery(ctx, thread)
	require.NoError(t, err)
	now := time.Now()
	var out []string
	for i := range n {
		q := fmt.Sprintf("Scheduled report %d", i+1)
		_, err := db.AddSchedule(ctx, store.Schedule{State: store.ScheduleActive, OwnerID: "UALICE01", Surface: "slack",
			SourceThread: thread, SourceChannel: channel, Query: turn.Query, QueryID: turn.QueryID, Question: q,
			Spec: "0 9 * * *", TimeZone: "UTC", DestKind: "channel", DestChannel: channel, Format: "answer", NextRunAt: &now})
		require.NoError(t, err)
		out = append(out, q)
	}
	return out
}

func addCounts(a, b [4]int) [4]int {
	for i := range a {
		a[i] += b[i]
	}
	return a
}
