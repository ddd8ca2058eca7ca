package bot_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// The examples' settings: clear errors for what cannot work, admins
// cleaned of spaces and repeats.
func TestConfigExamples(t *testing.T) {
	t.Parallel()
	base := func() bot.Config {
		return bot.Config{Backend: "postgres", LLMProvider: "script", ExamplesK: 3}
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
// fault; without one, the demo data links to the Steam store.
func TestConfigLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "links.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("links:\n  - column: name\n    url: ftp://x.test/{name}\n"), 0o600))
	c := bot.Config{Backend: "postgres", LLMProvider: "script", LinksFile: bad}
	err := c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "LINKS_FILE: "+bad+": links file line 2: url \"ftp://x.test/{name}\" is not an http(s) address")

	c.LinksFile = filepath.Join(dir, "missing.yaml")
	require.Error(t, c.Check())
}

// The bot's own schema, and the schema of its identity functions, are
// never analytics schemas.
func TestConfigBotSchemas(t *testing.T) {
	t.Parallel()
	for schema, want := range map[string]string{
		"analyticsbot":          `BOT_SCHEMA "analyticsbot" holds the bot's own tables`,
		"analyticsbot_identity": `"analyticsbot_identity" holds the functions that tell row-level security who a query runs for`,
	} {
		c := bot.Config{Backend: "postgres", LLMProvider: "script", Postgres: pgwarehouse.Settings{Schemas: []string{"analytics", schema}}}
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
	c := bot.Config{Backend: "postgres", LLMProvider: "script", GlossaryFile: bad}
	err := c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "GLOSSARY_FILE: glossary "+bad+`: line 4: "clients" is already a term or synonym of "customer"; line 6: a term is missing`)

	c = bot.Config{Backend: "postgres", LLMProvider: "script", WordNetDir: dir}
	err = c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "WORDNET_DIR: \""+dir+"\" is no WordNet dict directory")

	c = bot.Config{Backend: "postgres", LLMProvider: "script", GlossaryFile: "../evals/defog-glossary.yaml"}
	assert.NoError(t, c.Check())
}

// The backends' settings keep their variables inside bot.Config, and a bad
// one stops the bot with the variable to fix, beside the bot's own.
func TestConfigBackendSettings(t *testing.T) {
	t.Parallel()
	var c bot.Config
	require.NoError(t, env.ParseWithOptions(&c, env.Options{Environment: map[string]string{
		"ANALYTICS_SCHEMA": "marts,finance", "STATEMENT_TIMEOUT": "45s", "READER_ROLE": "bi", "MAX_RESULT_BYTES": "1024",
		"CUBE_API_URL": "https://cube.internal", "CUBE_API_SECRET": "s3cret", "CUBE_TIMEOUT": "5s",
	}}))
	assert.Equal(t, pgwarehouse.Settings{Schemas: []string{"marts", "finance"}, StatementTimeout: 45 * time.Second,
		ReaderRole: "bi", MaxResultBytes: 1024}, c.Postgres)
	assert.Equal(t, cubewarehouse.Settings{APIURL: "https://cube.internal", APISecret: "s3cret", Timeout: 5 * time.Second}, c.Cube)

	c = bot.Config{Backend: "postgres", LLMProvider: "script", ExamplesK: -1,
		Postgres: pgwarehouse.Settings{StatementTimeout: -time.Second}}
	err := c.Check()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "STATEMENT_TIMEOUT must be a duration such as 30s, got -1s")
	assert.Contains(t, err.Error(), "EXAMPLES_K", "the bot's own problems too")
}
