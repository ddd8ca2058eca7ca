package bot_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// ceilingFile writes the matrix's access file with a fresh channel whose
// ceiling is the everyone policy, and returns its path and the channel.
func ceilingFile(t *testing.T) (path, channel string) {
	t.Helper()
	var b [3]byte
	_, _ = rand.Read(b[:])
	channel = "CGEN" + strings.ToUpper(hex.EncodeToString(b[:]))
	path = filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bottest.CeilingAccessFile("everyone", channel)), 0o600))
	return path, channel
}

// testChannelCeiling: in a channel with a ceiling, who an answer is for,
// the policy it ran under and the thread it is kept in; the same question
// in another channel or the web chat has no ceiling; a press on a private
// answer finds it only in its asker's own private thread.
func testChannelCeiling(t *testing.T, e *testEnv) {
	path, ch := ceilingFile(t)
	b := newBot(t, e, script(bottest.CeilingRules()), func(c *bot.Config) { c.AccessFile, c.Postgres.Schemas = path, bottest.AccessSchemas })
	askAs := func(user, channel, text string) *nodes.State {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		m := bot.Message{UserID: user, ChannelID: channel, Text: text}
		var err error
		m, err = b.StartThread(ctx, m) // the web chat's threads are issued
		require.NoError(t, err)
		s, _, err := b.AskState(ctx, m)
		require.NoError(t, err)
		require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
		return s
	}
	tests := []struct {
		name, user, channel, question string
		wantPrivate                   bool
		wantPolicy, wantCeiling       string
	}{
		{"within the ceiling", "UANA", ch, bottest.CeilingWithin.Question, false, "analysts∩everyone", "everyone"},
		{"beyond the ceiling", "UANA", ch, bottest.CeilingBeyond.Question, true, "analysts", "everyone"},
		{"the ceiling's own policy", "UZED", ch, bottest.CeilingWithin.Question, false, "everyone", ""},
		{"a channel without a ceiling", "UANA", "CDATA", bottest.CeilingBeyond.Question, false, "analysts", ""},
		{"the web chat", "UANA", "web", bottest.CeilingBeyond.Question, false, "analysts", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := askAs(tt.user, tt.channel, tt.question)
			assert.Equal(t, tt.wantPrivate, s.Private(), "for the asker alone")
			assert.Equal(t, tt.wantPolicy, s.Policy, "the policy its query ran under")
			assert.Equal(t, tt.wantCeiling, s.Ceiling)
			public := recentTurns(t, e, s.ThreadTS)
			require.Len(t, public, 1)
			if !tt.wantPrivate {
				assert.Equal(t, s.Query, public[0].Query, "kept in its thread")
				return
			}
			assert.Empty(t, public[0].Query.Text, "the channel's thread keeps no query")
			assert.Contains(t, public[0].BotResponse, "I replied to @UANA privately")
			kept := recentTurns(t, e, nodes.PrivateThread(ch, "UANA"))
			require.NotEmpty(t, kept)
			assert.Equal(t, s.Query, kept[len(kept)-1].Query, "kept in the asker's private thread")
			assert.Equal(t, s.QueryID, kept[len(kept)-1].QueryID)
		})
	}

	// The asker's own exports, of an answer posted within the ceiling
	// and of one for them alone, come from the rows cached for them (each
	// ran as the policy its audience allows), without a query; another
	// member's export of the posted one is run for them.
	t.Run("exports of the asker's own answers", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, tt := range []struct {
			name, question, presser string
			private, wantRun        bool
		}{
			{"posted, by its asker", bottest.CeilingWithin.Question, "UANA", false, false},
			{"posted, by another member", bottest.CeilingWithin.Question, "UADMIN", false, true},
			{"for the asker alone, by them", bottest.CeilingBeyond.Question, "UANA", true, false},
		} {
			s := askAs("UANA", ch, tt.question)
			require.Equal(t, tt.private, s.Private(), tt.name)
			p, _, err := b.PressState(ctx, bot.Message{ThreadID: s.ThreadTS, UserID: tt.presser, ChannelID: ch, Private: tt.private},
				string(nodes.IntentExportCSV), s.QueryID)
			require.NoError(t, err)
			require.Empty(t, p.ErrorKind, "%s: detail %s", tt.name, p.ErrorDetail)
			assert.Equal(t, tt.wantRun, p.DBTime > 0, "%s: run again (DB time %s)", tt.name, p.DBTime)
			assert.NotEmpty(t, exportedCSV(t, p), tt.name)
		}
	})

	// Another person's question and its SQL are data too: in the channel,
	// the generator is shown only the examples the ceiling allows (as it
	// is only the stored values it allows), whatever the asker may read.
	t.Run("examples within the ceiling", func(t *testing.T) {
		const prices = "What is the average price of RPG games by release year since 2015?"
		prompt := func(channel string) string {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, _, err := b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "UADMIN", ChannelID: channel, Text: prices})
			require.NoError(t, err)
			calls := b.Scripted.Calls()
			for i := len(calls) - 1; i >= 0; i-- {
				if calls[i].Step == llm.StepGenerateSQL {
					return calls[i].Prompt
				}
			}
			t.Fatalf("no generate_sql call for %q in %s", prices, channel)
			return ""
		}
		assert.Contains(t, prompt("CDATA"), "avg(a.price)", "without a ceiling, the full policy gets the example about prices")
		assert.NotContains(t, prompt(ch), "avg(a.price)", "under a ceiling without prices, it does not")
	})

	t.Run("presses on a private answer", func(t *testing.T) {
		s := askAs("UANA", ch, bottest.CeilingBeyond.Question)
		require.True(t, s.Private())
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		for _, tt := range []struct {
			name, user string
			private    bool
			wantErr    nodes.ErrorKind
		}{
			{"its asker, on their ephemeral answer", "UANA", true, ""},
			{"its asker, naming it on the channel's message", "UANA", false, nodes.ErrNoPreviousQuery},
			{"another member, on an ephemeral message of theirs", "UADMIN", true, nodes.ErrNoPreviousQuery},
		} {
			p, _, err := b.PressState(ctx, bot.Message{ThreadID: s.ThreadTS, UserID: tt.user, ChannelID: ch, Private: tt.private},
				string(nodes.IntentShowSQL), s.QueryID)
			require.NoError(t, err)
			assert.Equal(t, tt.wantErr, p.ErrorKind, tt.name)
			if tt.wantErr == "" {
				assert.True(t, p.Private(), "%s: answered to them alone", tt.name)
				assert.Contains(t, p.ResponseText, "SQL for")
				require.NotNil(t, p.Reply.Query)
				assert.Contains(t, p.Reply.Query.Text, "app_developers")
			}
		}

		// docs/access.md: a schedule made from a private answer's button
		// posts to its asker's direct message, never the channel.
		p, _, err := b.PressState(ctx, bot.Message{ThreadID: s.ThreadTS, UserID: "UANA", ChannelID: ch, Private: true},
			nodes.ActionSchedulePreset, s.QueryID+" 0 9 * * 1")
		require.NoError(t, err)
		require.Empty(t, p.ErrorKind, "detail %s", p.ErrorDetail)
		require.NotEmpty(t, p.ScheduleID, p.ResponseText)
		assert.True(t, p.Private(), "the confirmation is for them alone")
		sch, err := b.DB().ScheduleByID(ctx, p.ScheduleID)
		require.NoError(t, err)
		assert.Equal(t, "dm", sch.DestKind, p.ResponseText)
		assert.Equal(t, "UANA", sch.DestChannel, "their direct message with the bot")
		assert.Contains(t, p.ResponseText, "in a direct message")
	})
}

// testCeilingRoles: after `access apply` with a channel's ceiling, an
// answer posted in that channel runs as the role of the asker's policy
// within the ceiling (what current_user says), and one for the asker
// alone as their own policy's role.
func testCeilingRoles(t *testing.T, e *testEnv) {
	ctx := context.Background()
	var suffix [3]byte
	_, _ = rand.Read(suffix[:])
	reader := "abt_ceil_reader_" + hex.EncodeToString(suffix[:])
	id := pgx.Identifier{reader}.Sanitize()
	storetest.SetupRoles(t, e.admin, "CREATE ROLE "+id+" LOGIN NOINHERIT; GRANT USAGE ON SCHEMA analytics TO "+id+
		"; GRANT SELECT ON ALL TABLES IN SCHEMA analytics TO "+id)
	path, ch := ceilingFile(t)
	rules, err := access.Load(path)
	require.NoError(t, err)
	roles, err := pgwarehouse.ApplyPolicies(ctx, e.admin.Pool(), reader, "", []string{"analytics"}, rules.AllPolicies())
	require.NoError(t, err)
	t.Cleanup(func() {
		// The policies' roles first, then the reader they were made from;
		// a role left behind is said, not hidden.
		var drop []string
		for _, r := range roles {
			drop = append(drop, r)
		}
		// And any made from the reader since (a ceiling's intersection
		// made when first asked for), which roles does not name.
		rows, err := e.admin.Pool().Query(context.Background(),
			`SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1) ORDER BY rolname`, reader+"_")
		if err == nil {
			more, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Logf("list roles made from %s: %v", reader, err)
			}
			for _, r := range more {
				if !slices.Contains(drop, r) {
					drop = append(drop, r)
				}
			}
		} else {
			t.Logf("list roles made from %s: %v", reader, err)
		}
		for _, r := range append(drop, reader) {
			rid := pgx.Identifier{r}.Sanitize()
			if _, err := e.admin.Pool().Exec(context.Background(), "DROP OWNED BY "+rid+"; DROP ROLE "+rid); err != nil {
				t.Logf("drop role %s: %v", r, err)
			}
		}
	})
	rules2 := `
  - step: classify
    match: '(?im)^Question: who am i'
    reply: '{"intent": "analytics_query", "confidence": 0.9}'
  - step: generate_sql
    match: '(?im)^Question: who am i, privately'
    reply: '{"sql": "SELECT current_user AS who, count(*) AS links FROM analytics.app_developers", "assumptions": [], "explanation": "x"}'
  - step: generate_sql
    match: '(?im)^Question: who am i'
    reply: '{"sql": "SELECT current_user AS who", "assumptions": [], "explanation": "x"}'
`
	b := newBot(t, e, script(rules2), func(c *bot.Config) { c.AccessFile, c.Postgres.ReaderRole = path, reader })
	who := func(text string) (*nodes.State, any) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		s, _, err := b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: "UANA", ChannelID: ch, Text: text})
		require.NoError(t, err)
		require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
		return s, s.Result.Rows[0][0]
	}
	s, role := who("who am i")
	assert.False(t, s.Private())
	assert.Equal(t, pgwarehouse.PolicyRole(reader, "analysts∩everyone"), role, "posted in the channel: as the role within its ceiling")
	assert.Equal(t, role, s.Role, "the query log names it")
	s, role = who("who am i, privately")
	assert.True(t, s.Private())
	assert.Equal(t, pgwarehouse.PolicyRole(reader, "analysts"), role, "for the asker alone: as their policy's role")
}
