package bot_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
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
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// testErrorTextsHoldNoData asks every case of the matrix as a user of each
// policy, with the guard and without it: whatever fails, no address of
// hr.employees that the case's SQL did not write itself reaches the user's
// reply, the model's prompts (a retry's carries the error), the stored
// turn or the query log (what `analyticsbot logs` shows). A cast that
// PostgreSQL raises over a masked column is retried with the value taken
// out of its error. Nor does the bot's own log, at any level.
func testErrorTextsHoldNoData(t *testing.T, e *testEnv) {
	path := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(path, []byte(bottest.AccessFile("everyone")), 0o600))
	for _, guard := range []bool{true, false} {
		name := "with the guard"
		if !guard {
			name = "the database alone"
		}
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, e, script(bottest.AccessRules()))
			cfg.AccessFile, cfg.Postgres.Schemas = path, bottest.AccessSchemas
			// Every level of the bot's own log: none may hold a value either.
			var logs lockedBuffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			var b *bot.Bot
			if guard {
				b = bottest.Start(t, cfg, log)
			} else {
				b = bottest.StartWithoutGuard(t, cfg, log)
			}
			for i, c := range bottest.AccessCases {
				for p, user := range bottest.AccessUsers {
					t.Run(c.Name+"/"+bottest.AccessPolicies[p], func(t *testing.T) {
						logged := logs.Len()
						s, seen := askSeeing(t, b, user, c.Question(i))
						seen["the bot's log"] = logs.From(logged)
						for id, email := range bottest.Emails {
							// A piece of one too: ann@corp.test::regclass names the
							// schema "ann@corp".
							piece, _, _ := strings.Cut(email, ".")
							if strings.Contains(c.SQL, piece) {
								continue // the query's own literal: the model wrote it
							}
							for where, text := range seen {
								assert.NotContains(t, text, piece, "employee %d's address in %s", id, where)
							}
						}
						if strings.Contains(c.Name, "cast over") && s.ErrorKind == nodes.ErrInvalidQuery {
							assert.Positive(t, s.RetryCount, "retried before giving up")
							assert.NotContains(t, s.ResponseText, "invalid input syntax", "people read what failed, not the database's words")
						}
					})
				}
			}
		})
	}
	t.Run("the retry knows what failed, without the value", func(t *testing.T) {
		cfg := testConfig(t, e, script(bottest.AccessRules()))
		cfg.AccessFile, cfg.Postgres.Schemas = path, bottest.AccessSchemas
		b := startBot(t, cfg)
		i := caseIndex(t, "a cast over masked titles")
		s, seen := askSeeing(t, b, "UADMIN", bottest.AccessCases[i].Question(i))
		require.Equal(t, nodes.ErrInvalidQuery, s.ErrorKind)
		assert.Contains(t, seen["a retry's prompt"], `Error: invalid input syntax for type integer: "…"`,
			"the database's words reach the generator with the title taken out")
		assert.Contains(t, seen["the query log"], `invalid input syntax for type integer: "…"`)

		i = caseIndex(t, "a cast over a masked column")
		s, seen = askSeeing(t, b, "UANA", bottest.AccessCases[i].Question(i))
		require.Equal(t, nodes.ErrInvalidQuery, s.ErrorKind)
		assert.Contains(t, seen["a retry's prompt"], "hr.employees.email is masked", "the guard's reason, for a policy that masks it")
	})
}

// lockedBuffer is a log's output that a test reads while the bot writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// Len is how much has been written so far.
func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len()
}

// From is what has been written after the first n bytes.
func (l *lockedBuffer) From(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()[n:]
}

// caseIndex is the index of the matrix's case of that name.
func caseIndex(t *testing.T, name string) int {
	t.Helper()
	for i, c := range bottest.AccessCases {
		if c.Name == name {
			return i
		}
	}
	t.Fatalf("no access case %q", name)
	return -1
}

// askSeeing asks text as user in a thread of its own on b, whose model
// nothing else calls meanwhile, and returns the final state with every
// text the question left where someone may read it: the reply, the error
// kept for logs, the prompts the model received (the answer's interpreter
// aside, which is given the rows the asker may read), the stored turn of
// a failure and the query log.
func askSeeing(t *testing.T, b *bot.Bot, user, text string) (*nodes.State, map[string]string) {
	t.Helper()
	return askSeeingIn(t, b, user, "CDATA", text)
}

// askSeeingIn is askSeeing in channel.
func askSeeingIn(t *testing.T, b *bot.Bot, user, channel, text string) (*nodes.State, map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := len(b.Scripted.Calls())
	s, _, err := b.AskState(ctx, bot.Message{ThreadID: bot.NewThreadID(), UserID: user, ChannelID: channel, Text: text})
	require.NoError(t, err)
	seen := map[string]string{"the reply": s.ResponseText, "the error detail": s.ErrorDetail + "\n" + s.ValidationError}
	for _, call := range b.Scripted.Calls()[before:] {
		if call.Step == llm.StepGenerateSQL && strings.Contains(call.Prompt, "Your previous attempt failed") {
			seen["a retry's prompt"] += call.Prompt
		} else if call.Step != llm.StepInterpret {
			seen["a prompt"] += call.Prompt
		}
	}
	if s.ErrorKind != "" {
		turns, err := b.DB().RecentTurns(ctx, s.ThreadTS, 10)
		require.NoError(t, err)
		for _, turn := range turns {
			seen["the stored turn"] += turn.BotResponse + "\n" + string(turn.Reply)
		}
	}
	logs, err := b.DB().QueryLogs(ctx, store.QueryLogFilter{ThreadID: s.ThreadTS})
	require.NoError(t, err)
	require.Len(t, logs, 1)
	seen["the query log"] = logs[0].ErrorDetail
	return s, seen
}

// matrixBotOfItsOwn starts a bot on the matrix's access file, with a
// fresh channel (returned) whose ceiling is the everyone policy, answering
// from hr and then analytics with a model that writes SELECT 1, in a bot
// schema of its own (its value index, its examples), dropped when the test
// ends; adjust, if any, changes its configuration. hr comes first: a
// prompt shows the values of the tables it describes first, and the
// addresses' words ("corp", "test") match many a game's.
func matrixBotOfItsOwn(t *testing.T, e *testEnv, adjust func(*bot.Config)) (b *bot.Bot, ceiling string) {
	t.Helper()
	ctx := context.Background()
	var suffix [4]byte
	_, _ = rand.Read(suffix[:])
	schema := "abt_masked_" + hex.EncodeToString(suffix[:])
	own, err := store.Open(ctx, e.url, store.WithSchema(schema))
	require.NoError(t, err)
	require.NoError(t, own.Migrate(ctx))
	own.Close()
	t.Cleanup(func() {
		_, err := e.admin.Pool().Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		assert.NoError(t, err)
	})
	path, ceiling := ceilingFile(t)
	cfg := testConfig(t, e, script(`  - step: generate_sql
    reply: '{"sql": "SELECT 1 AS n", "assumptions": [], "explanation": "x"}'
`))
	cfg.AccessFile, cfg.Postgres.Schemas, cfg.BotSchema = path, []string{"hr", "analytics"}, schema
	if adjust != nil {
		adjust(&cfg)
	}
	return startBot(t, cfg), ceiling
}

// testMaskedValuesNotShown refreshes the value index over the matrix's
// schemas (in a bot schema of its own: the package's other bots keep an
// empty index) and asks about a stored address and a stored title. The
// generator's prompt lists each as a matched value for a policy that may
// see the column, never for one that masks or denies it; nor does
// `analyticsbot context` (Bot.Context) for that person. In a channel whose
// ceiling masks the column, the asker's policy may see it but the
// generator, whose words are posted there, is not shown it.
func testMaskedValuesNotShown(t *testing.T, e *testEnv) {
	ctx := context.Background()
	b, ceiling := matrixBotOfItsOwn(t, e, func(cfg *bot.Config) { cfg.ValueIndexMaxDistinct = 50_000 })
	st, err := b.RefreshValueIndex(ctx)
	require.NoError(t, err)
	require.Positive(t, st.Values)

	const (
		address = `How many people have the address "ann@corp.test"?`
		title   = `How many reviews does "Counter-Strike" have?`
	)
	tests := []struct {
		policy         int // in bottest.AccessPolicies' order
		question, line string
		shown          bool
		channel        string // CDATA when empty: no ceiling
	}{
		{policy: 0, question: address, line: "- hr.employees.email: 'ann@corp.test'", shown: true},
		{policy: 1, question: address, line: "- hr.employees.email: 'ann@corp.test'"}, // masked
		{policy: 2, question: address, line: "- hr.employees.email: 'ann@corp.test'"}, // denied
		{policy: 0, question: title, line: "- analytics.apps.name: 'Counter-Strike'", shown: true},
		{policy: 1, question: title, line: "- analytics.apps.name: 'Counter-Strike'", shown: true},
		{policy: 2, question: title, line: "- analytics.apps.name: 'Counter-Strike'"}, // masked
		// The analysts may see the titles, but the channel's ceiling
		// (everyone) masks them.
		{policy: 1, question: title, line: "- analytics.apps.name: 'Counter-Strike'", channel: ceiling},
	}
	for _, tt := range tests {
		policy, user := bottest.AccessPolicies[tt.policy], bottest.AccessUsers[tt.policy]
		channel := cmp.Or(tt.channel, "CDATA")
		t.Run(policy+"/"+channel+"/"+tt.question, func(t *testing.T) {
			s, seen := askSeeingIn(t, b, user, channel, tt.question)
			require.Empty(t, s.ErrorKind, "detail %s", s.ErrorDetail)
			column := strings.TrimPrefix(strings.SplitN(tt.line, ":", 2)[0], "- ")
			var matched []string
			for _, m := range s.Matches {
				matched = append(matched, m.Schema+"."+m.Table+"."+m.Column)
			}
			if tt.shown {
				assert.Contains(t, seen["a prompt"], tt.line, "the generator's prompt")
				assert.Contains(t, matched, column, "the matched values")
			} else {
				assert.NotContains(t, seen["a prompt"], column+":", "the generator's prompt")
				assert.NotContains(t, matched, column, "the matched values")
			}
			if tt.channel != "" {
				assert.NotContains(t, seen["a prompt"], "- analytics.publishers.name:",
					"the publishers' names, which the analysts may read, are beyond the ceiling")
				return // `analyticsbot context` is the operator's: no channel, no ceiling
			}
			gc, err := b.Context(ctx, bot.Message{UserID: user, ChannelID: channel, Text: tt.question})
			require.NoError(t, err)
			var listed []string
			for _, m := range gc.State.Matches {
				listed = append(listed, m.Schema+"."+m.Table+"."+m.Column)
			}
			if tt.shown {
				assert.Contains(t, gc.Prompt, tt.line, "the context's prompt")
				assert.Contains(t, listed, column, "the context's matched values")
				return
			}
			assert.NotContains(t, gc.Prompt, column+":", "the context's prompt")
			assert.NotContains(t, listed, column, "the context's matched values")
		})
	}
}

// testMaskedValuesNotInExamples: another person's verified question and
// its SQL are data, and a masked column's value compared in them is that
// column's: an example naming one is shown to no one whose policy (or
// channel's ceiling) masks or denies the column, not in the generator's
// prompt, the questions suggested, nor MCP's verified queries.
func testMaskedValuesNotInExamples(t *testing.T, e *testEnv) {
	ctx := context.Background()
	b, ceiling := matrixBotOfItsOwn(t, e, nil)

	const (
		address = "Is ann@corp.test one of our employees?"
		title   = "How many genres does Counter-Strike have?"
	)
	examples := []store.Example{
		{Question: address, Query: "SELECT count(*) AS n FROM hr.employees WHERE email = 'ann@corp.test'"},
		{Question: title, Query: "SELECT count(*) AS n FROM analytics.app_genres g JOIN analytics.apps a ON a.app_id = g.app_id WHERE a.name = 'Counter-Strike'"},
	}
	for i, ex := range examples {
		ex.Backend, ex.Fingerprint = "postgres", "fp-masked-"+strconv.Itoa(i)
		ex.Source, ex.Status, ex.ProposedBy, ex.VerifiedBy = store.SourceAdmin, store.StatusVerified, "UADMIN", "UADMIN"
		added, _, err := b.DB().AddExample(ctx, ex)
		require.NoError(t, err)
		// Used the most: first in every list of questions to try.
		require.NoError(t, b.DB().MarkExamplesUsed(ctx, []int64{added.ID, added.ID}))
	}

	tests := []struct {
		policy  int // in bottest.AccessPolicies' order
		channel string
		shown   [2]bool // address, title
	}{
		{policy: 0, channel: "CDATA", shown: [2]bool{true, true}},
		{policy: 1, channel: "CDATA", shown: [2]bool{false, true}},  // the addresses masked
		{policy: 2, channel: "CDATA", shown: [2]bool{false, false}}, // the addresses denied, the titles masked
		{policy: 1, channel: ceiling, shown: [2]bool{false, false}}, // the ceiling (everyone) masks the titles
	}
	for _, tt := range tests {
		policy, user := bottest.AccessPolicies[tt.policy], bottest.AccessUsers[tt.policy]
		t.Run(policy+"/"+tt.channel, func(t *testing.T) {
			// Offered where a conversation starts (the web's welcome,
			// Slack's suggested prompts: no channel, so no ceiling), under
			// a decline in the channel, and to MCP clients (no ceiling).
			offered := map[string][]string{}
			if tt.channel == "CDATA" {
				m := bot.Message{UserID: user, ChannelID: tt.channel}
				offered["the questions suggested"] = b.SuggestedQuestions(ctx, m, 10)
				verified, err := b.VerifiedQueries(ctx, m, 10)
				require.NoError(t, err)
				for _, v := range verified {
					offered["MCP's verified queries"] = append(offered["MCP's verified queries"], v.Question)
				}
			}
			declined, _ := askSeeingIn(t, b, user, tt.channel, "tell me a joke")
			require.Equal(t, nodes.IntentOffTopic, declined.Intent)
			offered["a decline's questions to try"] = declined.Reply.Questions
			for i, ex := range examples {
				_, seen := askSeeingIn(t, b, user, tt.channel, ex.Question)
				if tt.shown[i] {
					assert.Contains(t, seen["a prompt"], ex.Query, "the generator's prompt")
				} else {
					assert.NotContains(t, seen["a prompt"], ex.Query, "the generator's prompt")
				}
				for where, questions := range offered {
					if tt.shown[i] {
						assert.Contains(t, questions, ex.Question, where)
					} else {
						assert.NotContains(t, questions, ex.Question, where)
					}
				}
			}
		})
	}
}
