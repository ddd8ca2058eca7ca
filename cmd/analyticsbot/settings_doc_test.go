package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/mcpserver"
	"github.com/analyticsbot/analyticsbot/slackapp"
)

// settingsDocs are the files whose "| variable | default | …" (or
// "| setting | default | …") tables document the settings.
var settingsDocs = []string{"../../README.md", "../../docs/slack.md", "../../docs/cube.md", "../../docs/mcp.md", "../../docs/schedules.md"}

// docDefault is what one settings table says of one variable: the first
// `literal` of its default cell, or "" when the cell gives none.
type docDefault struct {
	doc, literal string
}

var (
	settingName = regexp.MustCompile("^[A-Z][A-Z0-9_]*$")
	backticked  = regexp.MustCompile("`([^`]*)`")
)

// documentedDefaults reads every settings table of settingsDocs. A row
// may name several variables ("`A` / `B`") with as many defaults
// ("`1` / `2`").
func documentedDefaults(t *testing.T) map[string][]docDefault {
	t.Helper()
	out := map[string][]docDefault{}
	for _, path := range settingsDocs {
		body, err := os.ReadFile(path)
		require.NoError(t, err)
		inTable := false
		for _, line := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(line, "| variable | default |") || strings.HasPrefix(line, "| setting | default |") {
				inTable = true
				continue
			}
			if !strings.HasPrefix(line, "|") {
				inTable = false
				continue
			}
			cells := strings.Split(line, "|")[1:] // settings tables hold no escaped \|
			if !inTable || len(cells) < 3 || strings.HasPrefix(line, "|---") {
				continue
			}
			var names []string
			for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
				names = append(names, m[1])
			}
			defaults := strings.Split(cells[1], " / ")
			for i, name := range names {
				if !settingName.MatchString(name) {
					continue // SLACK_*, CUBE_*: the other files' tables
				}
				cell := cells[1]
				if len(defaults) == len(names) {
					cell = defaults[i]
				} else if i > 0 {
					cell = ""
				}
				d := docDefault{doc: strings.TrimPrefix(path, "../../")}
				if m := backticked.FindStringSubmatch(cell); m != nil {
					d.literal = m[1]
				}
				out[name] = append(out[name], d)
			}
		}
	}
	return out
}

// Every setting the configuration structs read is documented, and every
// default the docs give is the one the code uses: the env tags' for the
// settings that have one, and the computed ones checked here one by one.
func TestDocumentedSettingDefaults(t *testing.T) {
	docs := documentedDefaults(t)
	require.Contains(t, docs, "MAX_ROWS", "the README's settings table was read")

	var params []env.FieldParams
	for _, cfg := range []any{&bot.Config{}, &slackapp.Config{}, &mcpserver.Config{}} {
		p, err := env.GetFieldParams(cfg)
		require.NoError(t, err)
		params = append(params, p...)
	}
	read := map[string]bool{}
	for _, p := range params {
		read[p.Key] = true
		rows, ok := docs[p.Key]
		if !assert.True(t, ok, "%s is read by the configuration but documented in no settings table", p.Key) {
			continue
		}
		if _, computed := computedDefaults[p.Key]; computed {
			continue
		}
		for _, d := range rows {
			if p.HasDefaultValue {
				assert.Equal(t, p.DefaultValue, d.literal, "%s: %s documents a default the code does not use", p.Key, d.doc)
			} else {
				assert.Empty(t, d.literal, "%s: %s documents a default, the code has none", p.Key, d.doc)
			}
		}
	}

	// Read by the commands themselves rather than by a struct.
	for _, name := range []string{"HTTP_TOKEN", "METRICS_ADDR", "LOG_LEVEL"} {
		read[name] = true
	}
	for name, rows := range docs {
		assert.True(t, read[name], "%s is documented (%s) but nothing reads it", name, rows[0].doc)
	}

	// The defaults the code computes rather than its tags.
	t.Setenv("DATABASE_URL", "")
	t.Setenv("READER_ROLE", "")
	t.Setenv("READER_DATABASE_URL", "")
	t.Setenv("TZ", "")
	t.Setenv("SCHEDULE_ADMINS", "")
	t.Setenv("EXAMPLE_ADMINS", "")
	for _, k := range []string{"LLM_PROVIDER", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ACCESS_FILE", "LINKS_FILE", "GLOSSARY_FILE", "WORDNET_DIR", "EXAMPLES_EMBEDDINGS", "BACKEND"} {
		t.Setenv(k, "")
	}
	cfg, err := bot.ConfigFromEnv()
	require.NoError(t, err)
	for name, want := range computedDefaults {
		for _, d := range docs[name] {
			assert.Equal(t, want, d.literal, "%s: %s's default changed: check it against the code here", name, d.doc)
		}
	}
	assert.Equal(t, bot.DefaultDatabaseURL, cfg.DatabaseURL)
	assert.Equal(t, time.UTC, cfg.Location(), "TZ")
	assert.Equal(t, "127.0.0.1:9464", defaultMetricsAddr)
	assert.Equal(t, "analyticsbot_reader_analyticsbot", cfg.Postgres.ReaderRole, "READER_ROLE: analyticsbot_reader_<database> by default")
	assert.Equal(t, "script", cfg.Provider(), "LLM_PROVIDER without a key")
	for keys, want := range map[[2]string]string{{"sk-x", ""}: "openai", {"", "sk-ant-x"}: "anthropic", {"sk-x", "sk-ant-x"}: "openai"} {
		c := bot.Config{OpenAIAPIKey: keys[0], AnthropicAPIKey: keys[1]}
		assert.Equal(t, want, c.Provider(), "LLM_PROVIDER with keys %q", keys)
	}

	t.Setenv("READER_DATABASE_URL", "postgres://bi_reader:pw@127.0.0.1:5432/shop")
	cfg, err = bot.ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, "bi_reader", cfg.Postgres.ReaderRole, "READER_ROLE: READER_DATABASE_URL's user when it is set")
}

// computedDefaults are the documented defaults the code computes, each
// checked against what it computes in TestDocumentedSettingDefaults.
var computedDefaults = map[string]string{
	"DATABASE_URL":        bot.DefaultDatabaseURL,
	"TZ":                  "UTC",
	"METRICS_ADDR":        "127.0.0.1:9464",
	"LLM_PROVIDER":        "openai", // "`openai` if `OPENAI_API_KEY` is set, else …"
	"SCHEDULE_ADMINS":     "EXAMPLE_ADMINS",
	"READER_ROLE":         "READER_DATABASE_URL",
	"READER_DATABASE_URL": "DATABASE_URL",
}
