package slackapp

import (
	"os"
	"testing"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The manifest users install from must grant what the code uses.
func TestManifestMatchesTheApp(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../slack/manifest.yaml")
	require.NoError(t, err)
	var m struct {
		Features struct {
			BotUser struct {
				DisplayName string `yaml:"display_name"`
			} `yaml:"bot_user"`
			AppHome struct {
				MessagesTab bool `yaml:"messages_tab_enabled"`
			} `yaml:"app_home"`
			SlashCommands []struct{ Command string } `yaml:"slash_commands"`
		}
		OAuth struct {
			Scopes struct{ Bot []string } `yaml:"scopes"`
		} `yaml:"oauth_config"`
		Settings struct {
			Events struct {
				BotEvents []string `yaml:"bot_events"`
			} `yaml:"event_subscriptions"`
			Interactivity struct {
				Enabled bool `yaml:"is_enabled"`
			}
			SocketMode bool `yaml:"socket_mode_enabled"`
		}
	}
	require.NoError(t, yaml.Unmarshal(raw, &m), "manifest YAML")

	var cfg Config
	require.NoError(t, env.ParseWithOptions(&cfg, env.Options{Environment: map[string]string{}}))
	require.Len(t, m.Features.SlashCommands, 1)
	assert.Equal(t, cfg.SlashCommand, m.Features.SlashCommands[0].Command, "the default SLACK_SLASH_COMMAND")
	assert.NotEmpty(t, m.Features.BotUser.DisplayName)
	assert.True(t, m.Features.AppHome.MessagesTab, "direct messages need the Messages tab")

	for _, ev := range []string{"app_mention", "assistant_thread_started", "message.channels", "message.groups", "message.im", "message.mpim"} {
		assert.Contains(t, m.Settings.Events.BotEvents, ev, "events the app handles")
	}
	for _, scope := range RequiredScopes {
		assert.Contains(t, m.OAuth.Scopes.Bot, scope, "scopes the app needs")
	}
	assert.True(t, m.Settings.Interactivity.Enabled, "buttons need interactivity")
	assert.True(t, m.Settings.SocketMode, "Socket Mode, the default transport")
}
