package slackapp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestConfigMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		cfg     Config
		want    Mode
		wantErr string
	}{
		{name: "nothing set", cfg: Config{}, wantErr: "slack is not configured"},
		{name: "socket mode", cfg: Config{BotToken: "xoxb-1", AppToken: "xapp-1"}, want: ModeSocket},
		{name: "http mode", cfg: Config{BotToken: "xoxb-1", SigningSecret: "s3cret"}, want: ModeHTTP},
		{name: "socket wins over http", cfg: Config{BotToken: "xoxb-1", AppToken: "xapp-1", SigningSecret: "s"}, want: ModeSocket},
		{name: "no bot token", cfg: Config{AppToken: "xapp-1"}, wantErr: "SLACK_BOT_TOKEN (xoxb-…) is required"},
		{name: "user token as bot token", cfg: Config{BotToken: "xoxp-1", AppToken: "xapp-1"}, wantErr: "must be a bot token"},
		{name: "bot token as app token", cfg: Config{BotToken: "xoxb-1", AppToken: "xoxb-2"}, wantErr: "app-level token (xapp-…)"},
		{name: "bot token only", cfg: Config{BotToken: "xoxb-1"}, wantErr: "set SLACK_APP_TOKEN for Socket Mode or SLACK_SIGNING_SECRET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.cfg.Mode()
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestConfigCheck(t *testing.T) {
	t.Parallel()
	good := Config{Workers: 8, QueueLimit: 10, SlashCommand: "/ask"}
	assert.NoError(t, good.Check())
	good.ShutdownGrace = -time.Second
	assert.NoError(t, good.Check(), "a grace below 0 is none, as 0 is")
	bad := Config{Workers: -1, QueueLimit: 0, SlashCommand: "ask", APIRetries: -1}
	err := bad.Check()
	for _, want := range []string{"SLACK_WORKERS", "SLACK_QUEUE_LIMIT", "SLACK_SLASH_COMMAND", "SLACK_API_RETRIES"} {
		assert.ErrorContains(t, err, want)
	}
}

// A value that does not parse is reported by its variable, not by the Go
// field that holds it.
func TestConfigFromEnvNamesTheVariable(t *testing.T) {
	t.Setenv("SLACK_WORKERS", "many")
	_, err := ConfigFromEnv()
	assert.EqualError(t, err, `read slack configuration: SLACK_WORKERS must be a whole number (its default is 0); got "many"`)
}

func TestLowerFirst(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "writing SQL…", lowerFirst("Writing SQL…"))
	assert.Equal(t, "SQL…", lowerFirst("SQL…"))
	assert.Equal(t, "", lowerFirst(""))
}
