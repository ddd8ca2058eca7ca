package bot_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// recorder is a bot.Progress that keeps what a front end would show.
type recorder struct {
	mu       sync.Mutex
	phases   []bot.Phase
	labels   []string
	finished []bot.Step
	text     strings.Builder
}

func (r *recorder) Started(_ context.Context, s bot.Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.StartsText {
		r.text.Reset()
	}
	if s.Label != "" {
		r.labels = append(r.labels, s.Label)
	}
	if s.Phase != bot.PhaseNone && (len(r.phases) == 0 || r.phases[len(r.phases)-1] != s.Phase) {
		r.phases = append(r.phases, s.Phase)
	}
}

func (r *recorder) Finished(_ context.Context, s bot.Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = append(r.finished, s)
}

func (r *recorder) Text(chunk string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.text.WriteString(chunk)
}

// rowsOf is the row count the finished step that ran the query reported.
func (r *recorder) rowsOf() *int {
	for _, s := range r.finished {
		if s.Rows != nil {
			return s.Rows
		}
	}
	return nil
}

// testReply: what front ends get for a question, a press, a file, a
// refusal and a failure, and who may see it.
func testReply(t *testing.T, e *testEnv) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := newBot(t, e, script(`
  - step: generate_sql
    match: '(?im)^Question: .*ledger'
    reply: '{"sql": "SELECT payee, sum(amount) AS total FROM analytics.ledger_cols GROUP BY payee", "assumptions": [], "explanation": "Sums the ledger by payee."}'
  - step: generate_sql
    match: '(?im)^Question: .*\bwipe\b'
    reply: '{"sql": "DELETE FROM analytics.apps WHERE release_year = 2018", "assumptions": [], "explanation": "Cleans up."}'
`))
	thread := bot.NewThreadID()
	m := bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1", Text: "How many games were released in 2018?"}

	var p recorder
	answered, err := b.Ask(ctx, m, bot.WithProgress(&p), bot.WithText(p.Text))
	require.NoError(t, err)
	t.Run("an answer for everyone", func(t *testing.T) {
		require.NotNil(t, answered.Answer)
		assert.Contains(t, answered.Text, "games were released on Steam in 2018")
		assert.Equal(t, bot.AudienceAll, answered.Audience)
		assert.False(t, answered.Private())
		assert.Nil(t, answered.Note, "no note: everyone sees the answer")
		assert.Nil(t, answered.File)
		assert.Equal(t, bot.Outcome{Status: bot.OutcomeOK}, answered.Outcome)
		assert.Equal(t, thread, answered.ThreadID)
		assert.Regexp(t, `^[0-9a-f]{8}$`, answered.QueryID)
		assert.Contains(t, answered.Query, "release_year = 2018")
		assert.True(t, answered.NewThread, "the thread's first turn")
		assert.Equal(t, nodes.NodeSaveTurn, answered.Path()[len(answered.Path())-1])
		assert.Positive(t, answered.Elapsed)
		assert.Positive(t, answered.ModelCalls)
	})
	t.Run("progress as people follow it", func(t *testing.T) {
		p.mu.Lock()
		defer p.mu.Unlock()
		assert.Equal(t, []bot.Phase{bot.PhaseTables, bot.PhaseQuery, bot.PhaseRun, bot.PhaseExplain}, p.phases)
		assert.Contains(t, p.labels, "Writing SQL…")
		rows := p.rowsOf()
		require.NotNil(t, rows, "the step that ran the query says how many rows")
		assert.Equal(t, 1, *rows)
		assert.Contains(t, p.text.String(), "games were released on Steam in 2018", "the answer's prose as the model wrote it")
		assert.Len(t, p.finished, len(answered.Steps), "every step finished")
	})
	t.Run("a follow-up is not the thread's first turn", func(t *testing.T) {
		m := m
		m.Text = "How many games were released in 2017?"
		r, err := b.Ask(ctx, m)
		require.NoError(t, err)
		assert.False(t, r.NewThread)
	})
	t.Run("Export CSV carries the file, for everyone", func(t *testing.T) {
		r, err := b.Press(ctx, bot.Message{ThreadID: thread, UserID: "U1", ChannelID: "C1"}, string(nodes.IntentExportCSV), answered.QueryID)
		require.NoError(t, err)
		defer r.Close()
		require.True(t, r.Outcome.OK(), "%+v", r.Outcome)
		require.NotNil(t, r.File, "a file")
		assert.Equal(t, bot.AudienceAll, r.Audience)
		assert.True(t, strings.HasSuffix(r.File.Name, ".csv"), r.File.Name)
		assert.Equal(t, 1, r.File.Rows)
		for range 2 { // each Open reads it from the start
			f, size, err := r.File.Open()
			require.NoError(t, err)
			data, err := io.ReadAll(f)
			require.NoError(t, f.Close())
			require.NoError(t, err)
			assert.Equal(t, "games\n"+strconv.Itoa(games2018)+"\n", string(data))
			assert.Equal(t, int64(len(data)), size)
		}
	})
	t.Run("Show SQL, for everyone", func(t *testing.T) {
		r, err := b.Press(ctx, bot.Message{ThreadID: thread, UserID: "U2", ChannelID: "C1"}, string(nodes.IntentShowSQL), answered.QueryID)
		require.NoError(t, err)
		assert.Equal(t, bot.AudienceAll, r.Audience)
		assert.Nil(t, r.File)
		require.NotNil(t, r.Answer.Query)
		assert.Contains(t, r.Answer.Query.Text, "release_year = 2018")
	})
	t.Run("a rating, for the presser alone", func(t *testing.T) {
		r, err := b.Press(ctx, bot.Message{ThreadID: thread, UserID: "U2", ChannelID: "C1"}, bot.ActionFeedbackUp, answered.QueryID)
		require.NoError(t, err)
		assert.Equal(t, bot.AudienceAsker, r.Audience)
		assert.True(t, r.Outcome.OK())
		assert.Equal(t, answered.QueryID, r.QueryID, "the answer rated")
		assert.NotEmpty(t, r.Text)
	})
	t.Run("a press on an unknown answer, for the presser alone", func(t *testing.T) {
		r, err := b.Press(ctx, bot.Message{ThreadID: thread, UserID: "U2", ChannelID: "C1"}, string(nodes.IntentShowSQL), "0000abcd")
		require.NoError(t, err)
		assert.Equal(t, bot.AudienceAsker, r.Audience, "the thread is not told of a press that went wrong")
		assert.Equal(t, bot.OutcomeRejected, r.Outcome.Status)
		assert.Equal(t, bot.CauseNotFound, r.Outcome.Cause)
		assert.Empty(t, r.Outcome.Ref, "nothing for the operators to look into")
		require.NotNil(t, r.Answer)
	})
	t.Run("an unsafe query is rejected", func(t *testing.T) {
		r, err := b.Ask(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "U1", ChannelID: "C1", Text: "Please wipe the 2018 games"})
		require.NoError(t, err)
		assert.Equal(t, bot.Outcome{Status: bot.OutcomeRejected, Kind: string(nodes.ErrUnsafeQuery), Cause: bot.CauseUnsafe}, r.Outcome)
		assert.Equal(t, bot.AudienceAll, r.Audience, "a question's failure is told where it was asked")
		assert.Contains(t, r.Text, "I can only read data, never change it")
	})
	t.Run("a failed query names its reference", func(t *testing.T) {
		// Subtests running at once grant on the same table: in turn.
		storetest.SetupRoles(t, e.admin, `CREATE TABLE IF NOT EXISTS analytics.ledger_cols (id int, amount int, payee text);
			REVOKE ALL ON analytics.ledger_cols FROM analyticsbot_reader, PUBLIC;
			GRANT SELECT (id, amount) ON analytics.ledger_cols TO analyticsbot_reader`)
		r, err := b.Ask(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "U1", ChannelID: "C1", Text: "What is the ledger total by payee?"})
		require.NoError(t, err)
		assert.Equal(t, bot.OutcomeFailed, r.Outcome.Status)
		assert.Equal(t, string(nodes.ErrWarehouseDenied), r.Outcome.Kind)
		assert.Equal(t, bot.CauseUnavailable, r.Outcome.Cause)
		require.Regexp(t, `^e-[0-9a-f]{8}$`, r.Outcome.Ref)
		assert.Contains(t, r.Text, "(Reference "+r.Outcome.Ref+".)", "the user reads the reference")
		assert.NotContains(t, r.Text, "ledger_cols")
	})
}

// testReplyAccess: a refused table is a rejection the asker is told
// about; an answer beyond a channel's ceiling is its asker's alone, the
// channel reads a note, and the presses on it answer them alone.
func testReplyAccess(t *testing.T, e *testEnv) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Run("a refused table", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "access.yaml")
		require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
		b := newBot(t, e, script(bottest.AccessRules()), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })
		i := 1
		require.Equal(t, "forbidden table", bottest.AccessCases[i].Name)
		r, err := b.Ask(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "UZED", ChannelID: "CDATA", Text: bottest.AccessCases[i].Question(i)})
		require.NoError(t, err)
		assert.Equal(t, bot.Outcome{Status: bot.OutcomeRejected, Kind: string(nodes.ErrAccessDenied), Cause: bot.CauseForbidden}, r.Outcome)
		assert.Contains(t, r.Text, "I can't answer that: you may not read analytics.developers")
		assert.Nil(t, r.File)
	})
	t.Run("beyond a channel's ceiling", func(t *testing.T) {
		path, ch := ceilingFile(t)
		b := newBot(t, e, script(bottest.CeilingRules()), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })
		m := bot.Message{UserID: "UANA", ChannelID: ch, Text: bottest.CeilingBeyond.Question}
		var err error
		m, err = b.StartThread(ctx, m)
		require.NoError(t, err)
		r, err := b.Ask(ctx, m)
		require.NoError(t, err)
		require.True(t, r.Outcome.OK(), "%+v", r.Outcome)
		assert.Equal(t, bot.AudienceAsker, r.Audience, "for the asker alone")
		require.NotNil(t, r.Note, "the channel reads a note")
		assert.Equal(t, "I replied to @UANA privately: what they asked reaches beyond what this channel may see.", r.Note.Plain())
		assert.NotContains(t, r.Note.Plain(), "app_developers", "the note holds no name of a table")

		p, err := b.Press(ctx, bot.Message{ThreadID: m.ThreadID, UserID: "UANA", ChannelID: ch, Private: true}, string(nodes.IntentShowSQL), r.QueryID)
		require.NoError(t, err)
		require.True(t, p.Outcome.OK(), "%+v", p.Outcome)
		assert.Equal(t, bot.AudienceAsker, p.Audience, "a press on a private answer answers its presser alone")

		x, err := b.Press(ctx, bot.Message{ThreadID: m.ThreadID, UserID: "UANA", ChannelID: ch, Private: true}, string(nodes.IntentExportCSV), r.QueryID)
		require.NoError(t, err)
		defer x.Close()
		require.NotNil(t, x.File, "its export")
		assert.Equal(t, bot.AudienceAsker, x.Audience, "the file is theirs alone too")

		w, err := b.Ask(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "UANA", ChannelID: ch, Text: bottest.CeilingWithin.Question})
		require.NoError(t, err)
		assert.Equal(t, bot.AudienceAll, w.Audience, "within the ceiling: for the channel")
		assert.Nil(t, w.Note)
	})
}
