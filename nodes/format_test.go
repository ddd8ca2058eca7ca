package nodes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

func TestFormatAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		state       State
		wantFormat  Format
		wantText    string
		wantInclude []string
		wantExclude []string
	}{
		{
			name: "one number",
			state: State{UserQuery: "How many games were released in 2018?", Answer: "*8,160* games were released in 2018.",
				Result: gamesIn2018(), QueryID: "1a2b3c4d", Started: fixedNow.Add(-1500 * time.Millisecond)},
			wantFormat:  FormatSimple,
			wantText:    "8,160 games were released in 2018.",
			wantInclude: []string{"*8,160* games were released in 2018.", "1 row · in 1.5 s", "[Export CSV] [Show SQL]"},
		},
		{
			name: "table with assumptions",
			state: State{UserQuery: "top genres", ResolvedQuery: "Which genres have the most games?",
				Answer: "*Indie* leads with *19,421* games.", Result: topGenres(false), QueryID: "5e6f7a8b",
				Assumptions: []string{"a game counts once per genre"}},
			wantFormat: FormatTable,
			wantText:   "Indie leads with 19,421 games.",
			wantInclude: []string{
				"*Indie* leads with *19,421* games.", "Indie", "19,421", "Casual",
				"Assumption: a game counts once per genre", "3 rows", "[Export CSV] [Show SQL]",
			},
			wantExclude: []string{"· in "}, // no start time, no elapsed time
		},
		{
			name: "no rows",
			state: State{UserQuery: "How many games were released in 2020?", Answer: "The query returned no rows.",
				Result: warehouse.Result{Columns: []warehouse.Column{{Name: "games"}}, Rows: [][]any{}}, QueryID: "9c0d1e2f"},
			wantFormat:  FormatSimple,
			wantText:    "The query returned no rows.",
			wantInclude: []string{"The query returned no rows.", "no rows"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := (&Nodes{Domain: "Steam games", Now: func() time.Time { return fixedNow }}).Defaults()
			s := tt.state
			require.NoError(t, n.FormatAnswer(context.Background(), &s))

			assert.Equal(t, tt.wantFormat, s.ResponseFormat, "response format")
			assert.Equal(t, tt.wantText, s.ResponseText, "the reply as plain text")
			require.NotNil(t, s.Reply, "blocks")
			shown := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
			for _, want := range tt.wantInclude {
				assert.Contains(t, shown, want, "what the user sees")
			}
			for _, unwanted := range tt.wantExclude {
				assert.NotContains(t, shown, unwanted, "what the user sees")
			}
		})
	}
}

func TestDecline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		suggester Suggester
		want      []string
	}{
		{name: "questions to try", suggester: fixedQuestions{"Which genre has the most games?", "How many games are free?"},
			want: []string{"Which genre has the most games?", "How many games are free?"}},
		{name: "none to offer", suggester: fixedQuestions{}},
		{name: "no suggester"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, model := newNodes(t, nil)
			n.Suggester = tt.suggester
			s := State{UserQuery: "tell me a joke", Intent: IntentOffTopic}
			require.NoError(t, n.Decline(context.Background(), &s))

			assert.Equal(t, FormatSimple, s.ResponseFormat, "response format")
			assert.Equal(t, "I can only answer questions about Steam games.", s.ResponseText, "notification text")
			shown := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
			assert.Equal(t, len(tt.want) > 0, strings.Contains(shown, "Try asking:"), "a heading over questions to try:\n%s", shown)
			for _, want := range tt.want {
				assert.Contains(t, shown, "["+want+"]", "what the user sees")
			}
			if len(tt.want) == 0 {
				assert.Empty(t, s.Reply.Questions, "the questions to try")
			} else {
				assert.Equal(t, tt.want, s.Reply.Questions, "the questions to try")
			}
			assert.Empty(t, model.Calls(), "model calls")
		})
	}
}

// fixedQuestions is a Suggester that offers the same questions to
// everyone.
type fixedQuestions []string

func (q fixedQuestions) QuestionsToTry(_ context.Context, n int) []string { return q[:min(n, len(q))] }

// countingSuggester is a Suggester that counts the times it is asked and
// records how many questions and for whom.
type countingSuggester struct {
	asked  int
	n      int
	caller warehouse.Caller
}

func (c *countingSuggester) QuestionsToTry(ctx context.Context, n int) []string {
	c.asked++
	c.n, c.caller = n, warehouse.CallerOf(ctx)
	return []string{"How many games are free?"}
}

// policy is an access policy known by its name alone.
type policy string

func (p policy) Policy() string                         { return string(p) }
func (policy) AllowsTable(string, string) bool          { return true }
func (policy) AllowsColumn(string, string, string) bool { return true }
func (policy) MasksColumn(string, string, string) bool  { return false }

// Questions to try are asked for whoever reads the reply: in a channel
// whose ceiling caps the asker's policy, what may be shown there; in a
// reply to the asker alone, their own policy. They are as many as the
// welcome shows.
func TestQuestionsToTryForTheReplysReaders(t *testing.T) {
	t.Parallel()
	caller := warehouse.Caller{UserID: "U1", ChannelID: "C1", Access: policy("analysts"), Shared: policy("everyone")}
	ctx := warehouse.WithCaller(context.Background(), caller)
	tests := []struct {
		name     string
		audience Audience
		want     string
	}{
		{name: "the channel", audience: AudienceAll, want: "everyone"},
		{name: "the asker alone", audience: AudienceAsker, want: "analysts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			suggester := &countingSuggester{}
			n := (&Nodes{Domain: "Steam games", Suggester: suggester}).Defaults()
			s := State{UserQuery: "tell me a joke", Intent: IntentOffTopic, Audience: tt.audience}
			require.NoError(t, n.Decline(ctx, &s))
			require.Equal(t, 1, suggester.asked, "times asked")
			assert.Equal(t, tt.want, suggester.caller.Access.Policy(), "the policy the questions are for")
			assert.Equal(t, QuestionsToTry, suggester.n, "how many")
		})
	}
}

// Without example questions, no reply ends in "for example:" with
// nothing after it.
func TestHandleErrorWithoutExamples(t *testing.T) {
	t.Parallel()
	n := (&Nodes{Domain: "the data", Warehouse: pgwarehouse.New(pgwarehouse.Config{})}).Defaults()
	for _, kind := range []ErrorKind{ErrEmptyMessage, ErrInvalidQuery, ErrUnsafeQuery, ErrModelRefused, ErrWarehouseDenied} {
		s := State{UserQuery: "q", ErrorKind: kind}
		require.NoError(t, n.HandleError(context.Background(), &s))
		shown := strings.TrimSpace(blockkit.PlainText(blockkit.Reply(s.Reply).Blocks))
		assert.NotRegexp(t, `(?i)(for example|one of these|try):?\s*$`, shown, "%s: an introduction with nothing after it", kind)
		assert.Regexp(t, `[.)]$`, shown, "%s: a whole sentence", kind)
		assert.Empty(t, s.Reply.Questions, "%s", kind)
	}
}

// The text of a reply that offers questions to try reads whole alone:
// notifications, Slack's fallback, the stream's final text and `ask --json`
// show it without the questions, which every surface that shows them puts
// under its own heading.
func TestReplyTextStandsAlone(t *testing.T) {
	t.Parallel()
	suggestions := []string{"How many games are free?", "Which genre has the most games?"}
	n := (&Nodes{Domain: "Steam games", Suggester: fixedQuestions(suggestions), Warehouse: pgwarehouse.New(pgwarehouse.Config{})}).Defaults()
	demo := (&Nodes{Domain: "Steam games", DemoQuestions: suggestions, Warehouse: pgwarehouse.New(pgwarehouse.Config{})}).Defaults()
	tests := []struct {
		name  string
		nodes *Nodes
		state State
	}{
		{name: "empty message", nodes: n, state: State{ErrorKind: ErrEmptyMessage}},
		{name: "invalid query", nodes: n, state: State{UserQuery: "q", ErrorKind: ErrInvalidQuery, RetryCount: 2}},
		{name: "unsafe query", nodes: n, state: State{UserQuery: "q", ErrorKind: ErrUnsafeQuery}},
		{name: "model refused", nodes: n, state: State{UserQuery: "q", ErrorKind: ErrModelRefused}},
		{name: "the demo's unknown question", nodes: demo, state: State{UserQuery: "q", ErrorKind: ErrModelRefused}},
		{name: "off topic", nodes: n, state: State{UserQuery: "tell me a joke", Intent: IntentOffTopic}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.state
			if s.Intent == IntentOffTopic {
				require.NoError(t, tt.nodes.Decline(context.Background(), &s))
			} else {
				require.NoError(t, tt.nodes.HandleError(context.Background(), &s))
			}
			assert.Equal(t, suggestions, s.Reply.Questions, "the questions to try, for the surfaces that show them")
			assert.Regexp(t, `[.)]$`, s.ResponseText, "a whole sentence")
			assert.NotRegexp(t, `(?i)for example|one of these|below|:\s*$`, s.ResponseText, "a text that promises a list it does not hold")
		})
	}
}

func TestHandleError(t *testing.T) {
	t.Parallel()
	// Each detail is what the failing node really records: wrapped Go
	// errors, Postgres messages with SQLSTATE codes, model error chains.
	tests := []struct {
		kind        ErrorKind
		detail      string
		retries     int
		wantInclude []string
		wantHelp    bool // suggests questions to ask instead
	}{
		{ErrEmptyMessage, "empty message", 0, []string{"Ask me a question about Steam games"}, true},
		{ErrMessageTooLong, "4001 characters", 0, []string{"too long (4001 characters)", "up to 4000 characters"}, false},
		{ErrInvalidQuery, `run query: ERROR: column "nme" does not exist (SQLSTATE 42703)`, 2, []string{"even after 3 attempts"}, true},
		{ErrUnsafeQuery, "not_select: only SELECT statements (optionally WITH …) may run", 0, []string{"I can only read data"}, true},
		{ErrQueryTimeout, "run query: query timed out: ERROR: canceling statement due to statement timeout (SQLSTATE 57014)", 0, []string{"took too long"}, false},
		{ErrWarehouseBusy, "run query: busy: too many queries are running", 0, []string{"Too many queries are running right now; try again in a moment."}, false},
		{ErrDatabaseDown, "recent turns: database unavailable: dial tcp 127.0.0.1:5432: connect: connection refused", 0, []string{"can't reach the database"}, false},
		{ErrWarehouseDown, "describe schemas analytics: database unavailable: dial tcp 127.0.0.1:5432: connect: connection refused", 0, []string{"can't reach the database right now"}, false},
		{ErrWarehouseAuth, `cannot log in as the reader role "analyticsbot_reader" (FATAL: password authentication failed)`, 0,
			[]string{"The database refused my credentials", "reader role analyticsbot_reader can log in"}, false},
		{ErrNoData, `schema "analytics": no tables: check ANALYTICS_SCHEMA, load data into it (make run loads the demo) and grant the reader role access`, 0, []string{`can't see any tables in the "analytics" schema`}, false},
		{ErrModelTimeout, "classify: classify: model call: timed out after 1m0s (3 attempts)", 0, []string{"took too long to answer"}, false},
		{ErrModelUnavailable, "classify: classify: model call: unavailable after 3 attempts: scripted model: rules[0]: x (transient)", 0, []string{"isn't reachable"}, false},
		{ErrModelRateLimited, "classify: classify: model call: rate limited after 3 attempts: API returned unexpected status code: 429: Rate limit reached", 0,
			[]string{"turning my requests away right now: too many at once for its rate limit"}, false},
		{ErrModelRefused, "generate_sql: generate_sql: model call: scripted model: rules[0]: model exploded: api_key=sk-live-123", 0, []string{"could not answer this one"}, true},
		{ErrWarehouseDenied, `permission denied for table author: the reader role analyticsbot_reader has no grant on it. If the bot should read it, run: GRANT SELECT ON analytics.author TO analyticsbot_reader;`, 0,
			[]string{"The database would not let me read something this question needs", "grant"}, false},
		{ErrNoPreviousQuery, "no SQL in thread 1712.0001", 0, []string{"couldn't find an earlier result"}, false},
		{ErrInternal, "context canceled", 0, []string{"Something went wrong on my side"}, false},
	}
	// The Postgres backend's dialect words its failures; it never connects here.
	n := (&Nodes{Domain: "Steam games", Suggester: fixedQuestions{"How many games are free?"},
		Warehouse: pgwarehouse.New(pgwarehouse.Config{})}).Defaults()
	// docs/workflow.md's list of the failures that end with a reference.
	withRef := map[ErrorKind]bool{
		ErrModelTimeout: true, ErrModelUnavailable: true, ErrModelRateLimited: true, ErrModelRefused: true,
		ErrWarehouseDown: true, ErrWarehouseNoAnswer: true, ErrWarehouseAuth: true, ErrWarehouseDenied: true,
		ErrDatabaseDown: true, ErrInternal: true,
	}
	seen := map[string]ErrorKind{}
	for _, tt := range tests {
		s := State{UserQuery: "q", ErrorKind: tt.kind, ErrorDetail: tt.detail, RetryCount: tt.retries}
		require.NoError(t, n.HandleError(context.Background(), &s))

		assert.Equal(t, FormatError, s.ResponseFormat, "%s: response format", tt.kind)
		require.NotEmpty(t, s.ResponseText, "%s: notification text", tt.kind)
		require.NotNil(t, s.Reply, "%s: blocks", tt.kind)
		shown := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
		for _, want := range tt.wantInclude {
			assert.Contains(t, shown, want, "%s: what the user sees", tt.kind)
		}
		assert.Equal(t, tt.wantHelp, strings.Contains(shown, "How many games are free?"),
			"%s: got suggestions shown = %v, want %v:\n%s", tt.kind, !tt.wantHelp, tt.wantHelp, shown)
		if withRef[tt.kind] {
			assert.Regexp(t, `^e-[0-9a-f]{8}$`, s.ErrorRef, "%s: a reference for the log", tt.kind)
			assert.Contains(t, shown, "(Reference "+s.ErrorRef+".)", "%s: the user can quote it", tt.kind)
		} else {
			assert.Empty(t, s.ErrorRef, "%s: the user can act on it alone; no reference", tt.kind)
		}
		for _, raw := range []string{"SQLSTATE", "model call", "rules[0]", "run query", "dial tcp", "does not exist", "context canceled", "thread 1712",
			"sk-live", "api_key", "exploded", "author", "GRANT"} {
			assert.NotContains(t, shown, raw, "%s: raw error detail shown to the user", tt.kind)
			assert.NotContains(t, s.ResponseText, raw, "%s: raw error detail in the notification", tt.kind)
		}
		// With Postgres as the backend, its database being down reads as
		// the bot's own being down: they are the same server for most.
		if other, dup := seen[s.ResponseText]; dup && !(tt.kind == ErrWarehouseDown && other == ErrDatabaseDown) {
			t.Errorf("%s: got the same text as %s (%q), want a distinct one", tt.kind, other, s.ResponseText)
		}
		seen[s.ResponseText] = tt.kind
	}

	// model_output is declared but no node records it yet; it must still
	// read as a friendly message.
	s := State{ErrorKind: ErrInternal, ErrorDetail: `interpret: json: cannot unmarshal string into Go value`}
	require.NoError(t, n.HandleError(context.Background(), &s))
	assert.NotContains(t, s.ResponseText, "json", "model_output: raw error detail in the notification")
	assert.NotNil(t, s.Reply, "model_output: blocks")
}

func TestHandleErrorCountsAttempts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		retries int
		want    string
	}{
		// A stored query that no longer runs fails an export on its first
		// and only attempt.
		{"no retry", 0, "even after 1 attempt."},
		{"one retry", 1, "even after 2 attempts."},
		{"retries spent", 2, "even after 3 attempts."},
	}
	n := (&Nodes{Domain: "Steam games"}).Defaults()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := State{ErrorKind: ErrInvalidQuery, ErrorDetail: `column "x" does not exist`, RetryCount: tt.retries}
			require.NoError(t, n.HandleError(context.Background(), &s))
			assert.Contains(t, s.ResponseText, tt.want, "notification text")
		})
	}
}

func TestHandleErrorStaleStoredQuery(t *testing.T) {
	t.Parallel()
	n := (&Nodes{Domain: "Steam games"}).Defaults()
	for _, intent := range []Intent{IntentExportCSV, IntentShowSQL} {
		s := State{Intent: intent, ErrorKind: ErrInvalidQuery, ErrorDetail: `column "x" does not exist`}
		if err := n.HandleError(context.Background(), &s); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s.ResponseText, "no longer runs") || strings.Contains(s.ResponseText, "rephrasing") {
			t.Errorf("%s: reply = %q, want it to say the stored query no longer runs, not to rephrase", intent, s.ResponseText)
		}
	}
}

// Units come from the catalog's column descriptions: the demo describes
// apps.price "in GBP", so a price column shows pounds; a column the
// catalog does not describe keeps the unit its name announces, or none.
func TestFormatAnswerUnitsFromComments(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, nil)
	s := State{UserQuery: "Prices?", QueryID: "0123abcd", Result: warehouse.Result{
		Columns: []warehouse.Column{{Name: "name", Kind: warehouse.KindText}, {Name: "price", Kind: warehouse.KindNumber},
			{Name: "achievements", Kind: warehouse.KindNumber}, {Name: "avg_price_usd", Kind: warehouse.KindNumber}},
		Rows:     [][]any{{"Portal 2", "7.19", int64(1051), "9.5"}, {"Dota 2", "0.00", int64(0), "1"}},
		RowCount: 2,
	}}
	require.NoError(t, n.FormatAnswer(context.Background(), &s))
	assert.Equal(t, map[string]answer.Unit{"price": {Prefix: "£"}}, s.Reply.Units)
	shown := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
	assert.Contains(t, shown, "Portal 2  £7.19         1,051           $9.5")
}

// docs/security.md: a query refused as unsafe reads as a change of data
// when it is one (the guard's write classes, or the database's refusal of
// a write, which has no class), and as doing more than reading when it
// reaches past the data without changing it.
func TestHandleErrorUnsafeQuery(t *testing.T) {
	t.Parallel()
	n := (&Nodes{Domain: "Steam games", Suggester: fixedQuestions{"How many games are free?"}}).Defaults()
	const change = "I can only read data, never change it, so I can't run that. Ask a question about the data instead."
	const more = "I only run queries that read data, and that one would do more, so I didn't run it. Ask a question about the data instead."
	for _, tt := range []struct{ class, detail, want string }{
		{"write", "write: INSERT, UPDATE, DELETE and MERGE may not run", change},
		{"data_modifying_cte", "data_modifying_cte: a WITH clause may not change data", change},
		{"", "cannot execute INSERT in a read-only transaction", change},
		{"sleep", "sleep: pg_sleep may not be called", more},
		{"file_access", "file_access: pg_read_file reads the server's files", more},
		{"setting_change", "setting_change: set_config may not be called", more},
	} {
		s := State{UserQuery: "q", ErrorKind: ErrUnsafeQuery, ErrorDetail: tt.detail, ErrorClass: tt.class}
		require.NoError(t, n.HandleError(context.Background(), &s))
		assert.Equal(t, tt.want, s.ResponseText, "class %q", tt.class)
	}
}

// Questions to try are asked for only by the replies that offer them:
// finding them checks queries against the data source, no use when the
// failure is the data source's (bot's TestQuestionsToTryWithTheDataSourceDown
// holds what one costs when it is down).
func TestQuestionsToTryAskedOnlyWhenOffered(t *testing.T) {
	t.Parallel()
	for _, kind := range []ErrorKind{ErrEmptyMessage, ErrMessageTooLong, ErrUnsafeQuery, ErrInvalidQuery, ErrQueryTimeout,
		ErrDatabaseDown, ErrWarehouseDown, ErrWarehouseNoAnswer, ErrWarehouseAuth, ErrAccessDenied, ErrWarehouseDenied, ErrNoData,
		ErrModelTimeout, ErrModelRateLimited, ErrModelUnavailable, ErrModelRefused, ErrNoPreviousQuery, ErrInternal} {
		suggester := &countingSuggester{}
		n := (&Nodes{Domain: "Steam games", Suggester: suggester, Warehouse: pgwarehouse.New(pgwarehouse.Config{})}).Defaults()
		s := State{UserQuery: "q", ErrorKind: kind}
		require.NoError(t, n.HandleError(context.Background(), &s))
		assert.Equal(t, len(s.Reply.Questions), suggester.asked, "%s: times asked, for %d questions offered", kind, len(s.Reply.Questions))
	}
}

// The interpreter's words may come from the data, so its links go only to
// the hosts of the links file: any other shows its address and links
// nothing, in every surface's reply.
func TestFormatAnswerExposesTheModelsLinks(t *testing.T) {
	t.Parallel()
	links, err := answer.ParseLinks([]byte("links:\n  - column: name\n    url: https://store.steampowered.com/search/?term={name}\n"))
	require.NoError(t, err)
	n := (&Nodes{Domain: "Steam games", Links: links, Now: func() time.Time { return fixedNow }}).Defaults()
	s := State{UserQuery: "How many games were released in 2018?", Result: gamesIn2018(), QueryID: "1a2b3c4d",
		Answer: "*8,160* games. [Log in to see them all](https://evil.example/login?n=8160); " +
			"[the store](https://store.steampowered.com/search/?term=2018) has more."}
	require.NoError(t, n.FormatAnswer(context.Background(), &s))
	require.NotNil(t, s.Reply)
	var links2 []string
	for _, sp := range s.Reply.Text {
		if sp.Link != "" {
			links2 = append(links2, sp.Link)
		}
	}
	assert.Equal(t, []string{"https://store.steampowered.com/search/?term=2018"}, links2, "the links kept")
	assert.Contains(t, s.Reply.Text.Plain(), "Log in to see them all (https://evil.example/login?n=8160)")
	shown := blockkit.PlainText(blockkit.Reply(s.Reply).Blocks)
	assert.NotContains(t, shown, "<https://evil.example/login?n=8160|", "no Slack link hides the address")
}

// Without the model (a refresh, a scheduled run, a model that failed), a
// single value is said with its unit from the catalog, as the table shows
// it.
func TestPlainSummaryKeepsTheUnit(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, nil)
	r := warehouse.Result{Columns: []warehouse.Column{{Name: "price", Kind: warehouse.KindNumber}}, Rows: [][]any{{"7.19"}}, RowCount: 1}
	assert.Equal(t, "Price: *£7.19*.", n.plainSummary(context.Background(), r))
	r.Columns[0].Name = "achievements"
	r.Rows[0][0] = int64(1051)
	assert.Equal(t, "Achievements: *1,051*.", n.plainSummary(context.Background(), r))
}
