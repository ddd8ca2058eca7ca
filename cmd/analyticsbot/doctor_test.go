package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestCLIDoctor: doctor names what stands in the way, with the fix, and
// exits 1 until it is fixed: here a table the reader may not read and a
// Slack token missing scopes, then neither.
func TestCLIDoctor(t *testing.T) {
	db, dbURL := storetest.NewWithURL(t)
	ctx := context.Background()
	_, err := db.Pool().Exec(ctx, `CREATE SCHEMA marts; CREATE TABLE marts.games (id int);`)
	require.NoError(t, err)
	setUp(t, dbURL)
	reader := readerOf(t, dbURL)
	t.Setenv("ANALYTICS_SCHEMA", "marts")
	t.Setenv("ACCESS_FILE", "")
	slack := fakeslack.New(t)
	slack.SetScopes("chat:write", "commands")
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_APP_TOKEN", fakeslack.AppToken)
	t.Setenv("SLACK_SIGNING_SECRET", "")
	t.Setenv("SLACK_API_URL", slack.APIURL())

	got := runCLI(t, "", "doctor")
	assert.ErrorIs(t, got.err, errProblems)
	out := got.stdout
	assert.Contains(t, out, "✓ the bot's database answers\n")
	assert.Contains(t, out, "✓ migrations: all applied\n")
	assert.Contains(t, out, "✓ the reader role "+reader+" logs in\n")
	assert.Contains(t, out, "✗ the reader role "+reader+" may not use schema \"marts\" (GRANT USAGE ON SCHEMA \"marts\" TO \""+reader+"\"): run `analyticsbot grant`\n")
	assert.Contains(t, out, "✗ "+reader+" may not read marts.games: the model never sees them; run `analyticsbot grant`")
	assert.NotContains(t, out, "other databases", "the database's own reader is nobody else's")
	assert.Contains(t, out, "✗ Slack: the bot token lacks the scopes app_mentions:read, assistant:write")
	assert.Contains(t, out, "! ACCESS_FILE is not set")
	assert.Contains(t, out, "! no language model")

	require.NoError(t, runCLI(t, "", "grant").err)
	slack.SetScopes(fakeslack.Scopes...)
	got = runCLI(t, "", "doctor")
	require.NoError(t, got.err, "stdout: %s", got.stdout)
	assert.Contains(t, got.stdout, "✓ "+reader+" reads every table of marts\n")
	assert.Contains(t, got.stdout, "✓ Slack: the bot token has every scope the app uses\n")
	assert.NotContains(t, got.stdout, "✗")

	// The reader every database shared before is found in another
	// deployment's database, which the migrations set it up in.
	storetest.New(t)
	t.Setenv("READER_ROLE", "analyticsbot_reader")
	got = runCLI(t, "", "doctor")
	assert.Contains(t, got.stdout, "! the reader role analyticsbot_reader is set up in other databases of this server too (")
	assert.Contains(t, got.stdout, "deployments sharing a reader can read what each granted it")
}
