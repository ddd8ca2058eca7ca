package slackapp

import (
	"bytes"
	"os"
	"testing"

	"github.com/caarlos0/env/v11"
	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// readManifest reads slack/manifest.yaml into slack-go's typed manifest,
// refusing any key it does not know: a misspelt key would be dropped by
// Slack or refused, not read.
func readManifest(t *testing.T) slack.Manifest {
	t.Helper()
	raw, err := os.ReadFile("../slack/manifest.yaml")
	require.NoError(t, err)
	var m slack.Manifest
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	require.NoError(t, dec.Decode(&m), "manifest YAML, every key one of the manifest's")
	return m
}

// The manifest users install from must grant what the code uses.
func TestManifestMatchesTheApp(t *testing.T) {
	t.Parallel()
	m := readManifest(t)

	var cfg Config
	require.NoError(t, env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{}}))
	require.Len(t, m.Features.SlashCommands, 1)
	assert.Equal(t, cfg.SlashCommand, m.Features.SlashCommands[0].Command, "the default SLACK_SLASH_COMMAND")
	assert.NotEmpty(t, m.Features.BotUser.DisplayName)
	assert.True(t, m.Features.AppHome.MessagesTabEnabled, "direct messages need the Messages tab")
	assert.False(t, m.Features.AppHome.MessagesTabReadOnlyEnabled, "users write in the Messages tab")

	require.NotNil(t, m.Settings.EventSubscriptions)
	for _, ev := range []string{"app_mention", "app_home_opened", "message.channels", "message.groups", "message.im", "message.mpim"} {
		assert.Contains(t, m.Settings.EventSubscriptions.BotEvents, ev, "events the app handles")
	}
	for _, scope := range RequiredScopes {
		assert.Contains(t, m.OAuthConfig.Scopes.Bot, scope, "scopes the app needs")
	}
	require.NotNil(t, m.Settings.Interactivity)
	assert.True(t, m.Settings.Interactivity.IsEnabled, "buttons need interactivity")
	assert.True(t, m.Settings.SocketModeEnabled, "Socket Mode, the default transport")
}

// A new app made from the manifest gets Slack's Agent messaging experience,
// not the assistant view Slack is deprecating, nor that view's event.
func TestManifestChoosesAgentMessaging(t *testing.T) {
	t.Parallel()
	m := readManifest(t)
	require.NotNil(t, m.Features.AgentView, "features.agent_view")
	assert.NotEmpty(t, m.Features.AgentView.AgentDescription, "agent_description")
	assert.Nil(t, m.Features.AssistantView, "no assistant_view: an app has one experience")
	events := m.Settings.EventSubscriptions.BotEvents
	assert.Contains(t, events, "app_home_opened", "the Messages tab opened: suggested prompts")
	assert.NotContains(t, events, "assistant_thread_started", "an assistant_view event")
	assert.Contains(t, m.OAuthConfig.Scopes.Bot, "assistant:write", "suggested prompts and the thread status")
}
