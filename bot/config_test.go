package bot_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// The examples' settings: clear errors for what cannot work, admins
// cleaned of spaces and repeats.
func TestConfigExamples(t *testing.T) {
	t.Parallel()
	base := func() bot.Config {
		return bottest.Config(t, "", "")
	}
	c := base()
	c.ExampleAdmins = []string{" U1 ", "", "U2", "U1"}
	require.NoError(t, c.Check())
	assert.Equal(t, []string{"U1", "U2"}, c.ExampleAdmins)

	for name, tc := range map[string]struct {
		adjust func(*bot.Config)
		want   string
	}{
		"negative k":                         {func(c *bot.Config) { c.ExamplesK = -1 }, "EXAMPLES_K"},
		"negative auto-verify":               {func(c *bot.Config) { c.ExamplesAutoVerify = -2 }, "EXAMPLES_AUTO_VERIFY"},
		"negative refingerprint interval":    {func(c *bot.Config) { c.ExamplesRefingerprint = -time.Minute }, "EXAMPLES_REFINGERPRINT"},
		"embeddings from the scripted model": {func(c *bot.Config) { c.ExamplesEmbeddings = true }, `EXAMPLES_EMBEDDINGS needs a model provider with embeddings (openai or ollama); "script" has none`},
		"embeddings from anthropic":          {func(c *bot.Config) { c.ExamplesEmbeddings, c.LLMProvider = true, "anthropic" }, `"anthropic" has none`},
	} {
		c := base()
		tc.adjust(&c)
		err := c.Check()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
	c = base()
	c.ExamplesEmbeddings, c.LLMProvider = true, "ollama"
	assert.NoError(t, c.Check())
}

// LINKS_FILE is read at start: a broken file stops it with the line at
// fault; without one, the demo data links to the Steam store, and other
// data (another DATA_DESCRIPTION, or Cube) has no links; LINKS_FILE=/dev/null
// turns the demo's off (docs/links.md).
func TestConfigLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "links.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("links:\n  - column: name\n    url: ftp://x.test/{name}\n"), 0o600))
	c := bottest.Config(t, "", "")
	c.LinksFile = bad
	err := c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "LINKS_FILE: "+bad+": links file line 2: url \"ftp://x.test/{name}\" is not an http(s) address")

	c.LinksFile = filepath.Join(dir, "missing.yaml")
	require.Error(t, c.Check())

	demo := bottest.Config(t, "", "")
	links, err := bot.LinksOf(demo, pgwarehouse.Name)
	require.NoError(t, err)
	for _, want := range []answer.LinkRule{
		{Column: "name", URL: "https://store.steampowered.com/search/?term={name}"},
		{Column: "publisher", URL: "https://store.steampowered.com/search/?publisher={publisher}"},
		{Column: "developer", URL: "https://store.steampowered.com/search/?developer={developer}"},
	} {
		assert.Contains(t, links, want, "the demo data links to the Steam store")
	}

	links, err = bot.LinksOf(demo, cubewarehouse.Name)
	require.NoError(t, err)
	assert.Empty(t, links, "Cube's data is not the demo's, whatever DATA_DESCRIPTION says")

	other := bottest.Config(t, "", "")
	other.Domain = "Orders of our web shop"
	links, err = bot.LinksOf(other, pgwarehouse.Name)
	require.NoError(t, err)
	assert.Empty(t, links, "other data has no links without LINKS_FILE")

	off := bottest.Config(t, "", "")
	off.LinksFile = os.DevNull
	require.NoError(t, off.Check(), "LINKS_FILE=/dev/null is a file without rules")
	links, err = bot.LinksOf(off, pgwarehouse.Name)
	require.NoError(t, err)
	assert.Empty(t, links, "LINKS_FILE=/dev/null turns the demo's links off")
}

// docs/access.md: ACCESS_FILE is read and checked at start; a mistake
// stops the bot with the line at fault.
func TestConfigAccessFile(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "access.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("policies:\n  - name: finance\n    tables: [\"finance\"]\ndefault: finance\n"), 0o600))
	c := bottest.Config(t, "", "")
	c.AccessFile = bad
	err := c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ACCESS_FILE: "+bad+": access file line 2: policy \"finance\" tables: \"finance\" is not schema.table (a part may be *)")
}

// The bot's own schema, and the schema of its identity functions, are
// never analytics schemas.
func TestConfigBotSchemas(t *testing.T) {
	t.Parallel()
	for schema, want := range map[string]string{
		"analyticsbot":          `BOT_SCHEMA "analyticsbot" holds the bot's own tables`,
		"analyticsbot_identity": `"analyticsbot_identity" holds the functions that tell row-level security who a query runs for`,
	} {
		c := bottest.Config(t, "", "")
		c.Postgres.Schemas = []string{"analytics", schema}
		err := c.Check()
		require.Error(t, err, schema)
		assert.Contains(t, err.Error(), want)
	}
}

// GLOSSARY_FILE and WORDNET_DIR are checked at start: a broken glossary
// stops it with the lines at fault, a directory without WordNet says so;
// the Defog example glossary passes.
func TestConfigLexicon(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "glossary.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("terms:\n  - term: customer\n    synonyms: [client]\n  - term: user\n    synonyms: [clients]\n  - means: x\n"), 0o600))
	c := bottest.Config(t, "", "")
	c.GlossaryFile = bad
	err := c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GLOSSARY_FILE: glossary "+bad+`: line 4: "clients" is already a term or synonym of "customer"; line 6: a term is missing`)

	c = bottest.Config(t, "", "")
	c.WordNetDir = dir
	err = c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WORDNET_DIR: \""+dir+"\" is no WordNet dict directory")

	c = bottest.Config(t, "", "")
	c.GlossaryFile = "../evals/defog-glossary.yaml"
	assert.NoError(t, c.Check())
}

// The backends' settings keep their variables inside bot.Config, and a bad
// one stops the bot with the variable to fix, beside the bot's own.
func TestConfigBackendSettings(t *testing.T) {
	t.Parallel()
	var c bot.Config
	require.NoError(t, env.ParseWithOptions(&c, env.Options{Environment: map[string]string{
		"ANALYTICS_SCHEMA": "marts,finance", "STATEMENT_TIMEOUT": "45s", "READER_ROLE": "bi", "MAX_RESULT_BYTES": "1024", "READER_PER_USER": "2",
		"CUBE_API_URL": "https://cube.internal", "CUBE_API_SECRET": "s3cret", "CUBE_TIMEOUT": "5s",
	}}))
	assert.Equal(t, pgwarehouse.Settings{Schemas: []string{"marts", "finance"}, StatementTimeout: 45 * time.Second,
		ReaderRole: "bi", MaxResultBytes: 1024, ReaderPerUser: 2}, c.Postgres)
	assert.Equal(t, cubewarehouse.Settings{APIURL: "https://cube.internal", APISecret: "s3cret", Timeout: 5 * time.Second}, c.Cube)

	c = bottest.Config(t, "", "")
	c.ExamplesK, c.Postgres.StatementTimeout = -1, -time.Second
	err := c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "STATEMENT_TIMEOUT must be a duration above 0, such as 30s, got -1s")
	assert.Contains(t, err.Error(), "EXAMPLES_K", "the bot's own problems too")
}

// A number the bot cannot use stops it with the variable and what it
// accepts, rather than turning silently into a default: MAX_ROWS=0 is not
// a cap of 1,000 rows. 0 stays valid where it has a meaning of its own.
func TestConfigNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want string // empty: Check passes
	}{
		{name: "defaults", env: map[string]string{}},
		{name: "MAX_ROWS empty is the default", env: map[string]string{"MAX_ROWS": ""}},
		{name: "MAX_ROWS 1", env: map[string]string{"MAX_ROWS": "1"}},
		{name: "MAX_ROWS 0", env: map[string]string{"MAX_ROWS": "0"}, want: "MAX_ROWS must be a number of rows above 0, such as 1000, got 0"},
		{name: "MAX_ROWS negative", env: map[string]string{"MAX_ROWS": "-5"}, want: "MAX_ROWS must be a number of rows above 0, such as 1000, got -5"},
		{name: "EXPORT_MAX_ROWS 0", env: map[string]string{"EXPORT_MAX_ROWS": "0"}, want: "EXPORT_MAX_ROWS must be a number of rows above 0, such as 1000000, got 0"},
		{name: "SCHEMA_BUDGET_TOKENS 0", env: map[string]string{"SCHEMA_BUDGET_TOKENS": "0"}, want: "SCHEMA_BUDGET_TOKENS must be a number of tokens above 0, such as 3000, got 0"},
		{name: "CACHE_PER_THREAD 0", env: map[string]string{"CACHE_PER_THREAD": "0"}, want: "CACHE_PER_THREAD must be a number of results above 0, such as 10, got 0"},
		{name: "CACHE_LRU_SIZE negative", env: map[string]string{"CACHE_LRU_SIZE": "-1"}, want: "CACHE_LRU_SIZE must be a number of results above 0, such as 256, got -1"},
		{name: "RESULT_CACHE_BYTES 0", env: map[string]string{"RESULT_CACHE_BYTES": "0"}, want: "RESULT_CACHE_BYTES must be a number of bytes above 0, such as 67108864, got 0"},
		{name: "LLM_MAX_TOKENS 0 is the provider's", env: map[string]string{"LLM_MAX_TOKENS": "0"}},
		{name: "LLM_MAX_TOKENS 256", env: map[string]string{"LLM_MAX_TOKENS": "256"}},
		{name: "LLM_MAX_TOKENS too few", env: map[string]string{"LLM_MAX_TOKENS": "100"}, want: "LLM_MAX_TOKENS must be 0 (the provider's own bound) or at least 256 tokens, such as 4096, got 100"},
		{name: "LLM_MAX_TOKENS negative", env: map[string]string{"LLM_MAX_TOKENS": "-1"}, want: "LLM_MAX_TOKENS must be 0 (the provider's own bound) or at least 256 tokens, such as 4096, got -1"},
		{name: "LLM_TIMEOUT 0", env: map[string]string{"LLM_TIMEOUT": "0"}, want: "LLM_TIMEOUT must be a duration above 0, such as 60s, got 0s"},
		{name: "TURN_WAIT negative", env: map[string]string{"TURN_WAIT": "-1m"}, want: "TURN_WAIT must be a duration above 0, such as 2m, got -1m0s"},
		{name: "MAX_TURNS 0", env: map[string]string{"MAX_TURNS": "0"}, want: "MAX_TURNS must be a number of turns above 0, such as 256, got 0"},
		{name: "TURN_QUEUE negative", env: map[string]string{"TURN_QUEUE": "-1"}, want: "TURN_QUEUE must be a number of turns above 0, such as 1000, got -1"},
		{name: "DATABASE_TIMEOUT 0", env: map[string]string{"DATABASE_TIMEOUT": "0"}, want: "DATABASE_TIMEOUT must be a duration above 0, such as 10s, got 0s"},
		{name: "STATEMENT_TIMEOUT 0", env: map[string]string{"STATEMENT_TIMEOUT": "0"}, want: "STATEMENT_TIMEOUT must be a duration above 0, such as 30s, got 0s"},
		{name: "STATEMENT_TIMEOUT negative", env: map[string]string{"STATEMENT_TIMEOUT": "-1s"}, want: "STATEMENT_TIMEOUT must be a duration above 0, such as 30s, got -1s"},
		{name: "MAX_RESULT_BYTES 0", env: map[string]string{"MAX_RESULT_BYTES": "0"}, want: "MAX_RESULT_BYTES must be a number of bytes above 0, such as 8388608, got 0"},
		{name: "MAX_RESULT_BYTES negative", env: map[string]string{"MAX_RESULT_BYTES": "-1"}, want: "MAX_RESULT_BYTES must be a number of bytes above 0, such as 8388608, got -1"},
		{name: "CUBE_TIMEOUT 0", env: map[string]string{"BACKEND": "cube", "CUBE_TIMEOUT": "0"}, want: "CUBE_TIMEOUT must be a duration above 0, such as 30s, got 0s"},
		{name: "CUBE_TIMEOUT 1s", env: map[string]string{"BACKEND": "cube", "CUBE_TIMEOUT": "1s"}},
		{name: "CUBE_TIMEOUT 0 for another backend", env: map[string]string{"BACKEND": "postgres", "CUBE_TIMEOUT": "0"}},
		{name: "MODEL_CONCURRENCY 0", env: map[string]string{"MODEL_CONCURRENCY": "0"}},
		{name: "MODEL_CONCURRENCY negative", env: map[string]string{"MODEL_CONCURRENCY": "-1"}, want: "MODEL_CONCURRENCY must be 0 (no bound) or more, got -1"},
		{name: "SQL_MAX_RETRIES 0", env: map[string]string{"SQL_MAX_RETRIES": "0"}},
		{name: "SQL_MAX_RETRIES negative", env: map[string]string{"SQL_MAX_RETRIES": "-1"}, want: "SQL_MAX_RETRIES must be 0 (no regeneration) to 5, got -1"},
		{name: "SQL_MAX_RETRIES 5", env: map[string]string{"SQL_MAX_RETRIES": "5"}},
		{name: "SQL_MAX_RETRIES 6", env: map[string]string{"SQL_MAX_RETRIES": "6"}, want: "SQL_MAX_RETRIES must be 0 (no regeneration) to 5, got 6"},
		{name: "LLM_RETRIES negative", env: map[string]string{"LLM_RETRIES": "-1"}, want: "LLM_RETRIES must be 0 (no retry) to 10, got -1"},
		{name: "LLM_RETRIES 11", env: map[string]string{"LLM_RETRIES": "11"}, want: "LLM_RETRIES must be 0 (no retry) to 10, got 11"},
		{name: "HISTORY_TURNS 0", env: map[string]string{"HISTORY_TURNS": "0"}},
		{name: "HISTORY_TURNS negative", env: map[string]string{"HISTORY_TURNS": "-2"}, want: "HISTORY_TURNS must be 0 (no history) or more, got -2"},
		{name: "VALUE_INDEX_MAX_DISTINCT 0", env: map[string]string{"VALUE_INDEX_MAX_DISTINCT": "0"}},
		{name: "VALUE_INDEX_MAX_DISTINCT negative", env: map[string]string{"VALUE_INDEX_MAX_DISTINCT": "-1"}, want: "VALUE_INDEX_MAX_DISTINCT must be 0 (no value lookup) or more, got -1"},
		{name: "VALUE_INDEX_REFRESH 0", env: map[string]string{"VALUE_INDEX_REFRESH": "0"}},
		{name: "VALUE_INDEX_REFRESH negative", env: map[string]string{"VALUE_INDEX_REFRESH": "-1h"}, want: "VALUE_INDEX_REFRESH must be 0 (once, at start) or a duration such as 24h, got -1h0m0s"},
		// docs/observability.md: 0 is the retention's default and a negative
		// value keeps the table forever, so neither is refused.
		{name: "retentions 0", env: map[string]string{"QUERY_LOG_RETENTION": "0", "TURN_RETENTION": "0", "RESULT_RETENTION": "0"}},
		{name: "retentions negative", env: map[string]string{"QUERY_LOG_RETENTION": "-1h", "TURN_RETENTION": "-1h", "RESULT_RETENTION": "-1h"}},
		// docs/schedules.md: the lease at least twice the poll, so that a
		// live runner renews its claim before another may take it.
		{name: "SCHEDULE_LEASE twice SCHEDULE_POLL", env: map[string]string{"SCHEDULE_POLL": "2m", "SCHEDULE_LEASE": "4m"}},
		{name: "SCHEDULE_LEASE under twice SCHEDULE_POLL", env: map[string]string{"SCHEDULE_POLL": "2m", "SCHEDULE_LEASE": "3m"},
			want: "SCHEDULE_LEASE at least twice SCHEDULE_POLL; got 2m0s"},
		{name: "SCHEDULE_LEASE short while schedules are off", env: map[string]string{"SCHEDULES": "false", "SCHEDULE_POLL": "2m", "SCHEDULE_LEASE": "3m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c bot.Config
			require.NoError(t, env.ParseWithOptions(&c, env.Options{Environment: tt.env}))
			err := c.Check()
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// A value that does not parse stops the bot with the variable to fix, even
// inside a backend's settings, not with the Go field that holds it, and
// with what it takes, not Go's parse text.
func TestConfigFromEnvNamesTheVariable(t *testing.T) {
	t.Setenv("MAX_ROWS", "abc")
	t.Setenv("STATEMENT_TIMEOUT", "soon")
	t.Setenv("HISTORY_TURNS", "5.5")
	t.Setenv("EXAMPLES_EMBEDDINGS", "yes")
	t.Setenv("SQL_MAX_RETRIES", "99999999999999999999")
	_, err := bot.ConfigFromEnv()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `HISTORY_TURNS must be a whole number (its default is 5); got "5.5"`)
	assert.Contains(t, err.Error(), `EXAMPLES_EMBEDDINGS must be true or false (its default is false); got "yes"`)
	assert.NotContains(t, err.Error(), "ParseBool")
	assert.Contains(t, err.Error(), `SQL_MAX_RETRIES must be a smaller whole number (its default is 2); got "99999999999999999999"`,
		"a number too big for the setting is no \"must be a whole number\"")
	assert.Contains(t, err.Error(), `MAX_ROWS must be a whole number (its default is 1000); got "abc"`)
	assert.Contains(t, err.Error(), `STATEMENT_TIMEOUT must be a duration such as 30s, 10m or 24h (its default is 30s); got "soon"`)
	assert.NotContains(t, err.Error(), "MaxRows", "the Go field is no name the operator knows")
	assert.NotContains(t, err.Error(), "strconv", "Go's parse text is no help to the operator")
	assert.NotContains(t, err.Error(), "time: invalid duration")
}

// docs/scaling.md: with the defaults a question waits at most 82 s past
// its model calls on a silent database (Config.SilentWait).
func TestSilentWaitDefault(t *testing.T) {
	t.Parallel()
	var c bot.Config
	require.NoError(t, env.ParseWithOptions(&c, env.Options{Environment: map[string]string{}}))
	require.NoError(t, c.Check())
	assert.Equal(t, 82*time.Second, c.SilentWait())
}
