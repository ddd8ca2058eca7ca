package slackapp

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/bot"
)

// Config is the Slack side of the bot, read from the environment.
type Config struct {
	// BotToken (xoxb-…) calls the Web API.
	BotToken string `env:"SLACK_BOT_TOKEN"`
	// AppToken (xapp-…, with connections:write) selects Socket Mode.
	AppToken string `env:"SLACK_APP_TOKEN"`
	// SigningSecret verifies HTTP requests; it selects HTTP mode when there
	// is no AppToken.
	SigningSecret string `env:"SLACK_SIGNING_SECRET"`
	// HTTPAddr is where HTTP mode listens. Slack reaches it through a
	// public HTTPS proxy; the default binds loopback only.
	HTTPAddr string `env:"HTTP_ADDR" envDefault:"127.0.0.1:8080"`
	// APIURL overrides the Web API base URL (tests, Enterprise proxies).
	APIURL string `env:"SLACK_API_URL"`
	// SlashCommand is the command's name as configured in the app.
	SlashCommand string `env:"SLACK_SLASH_COMMAND" envDefault:"/ask"`
	// Workers bounds how many threads are answered at once: 0 (the
	// default) shares the bot's MAX_TURNS with the web API, more gives
	// Slack a bound of its own.
	Workers int `env:"SLACK_WORKERS" envDefault:"0"`
	// QueueLimit bounds the messages waiting for a worker; beyond it users
	// are told the bot is busy.
	QueueLimit int `env:"SLACK_QUEUE_LIMIT" envDefault:"1000"`
	// APIRetries is how many times a Web API call is retried after a 429,
	// a 5xx or a lost connection.
	APIRetries int `env:"SLACK_API_RETRIES" envDefault:"3"`
	// ProgressInterval is the least time between two progress updates of
	// one answer; chat.update is rate limited per channel. 0 or less
	// spaces them not at all.
	ProgressInterval time.Duration `env:"SLACK_PROGRESS_INTERVAL" envDefault:"1s"`
	// AssistantStatus tries assistant.threads.setStatus before falling back
	// to a "working…" message.
	AssistantStatus bool `env:"SLACK_ASSISTANT_STATUS" envDefault:"true"`
	// Streaming streams the answer's text into the thread as the model
	// writes it (chat.startStream), where the workspace can; otherwise the
	// answer replaces the progress message when it is done.
	Streaming bool `env:"SLACK_STREAMING" envDefault:"true"`
	// ShutdownGrace is how long work in flight may run after a shutdown
	// signal; what has not finished by then is reported in its thread.
	// 0 or less stops it at once.
	ShutdownGrace time.Duration `env:"SLACK_SHUTDOWN_GRACE" envDefault:"25s"`
}

// Mode is how Slack reaches the bot.
type Mode string

// The transports.
const (
	ModeSocket Mode = "socket"
	ModeHTTP   Mode = "http"
)

// ErrNotConfigured means the environment has no Slack tokens at all.
var ErrNotConfigured = errors.New("slack is not configured: set SLACK_BOT_TOKEN and SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)")

// ConfigFromEnv reads Config from the environment.
func ConfigFromEnv() (Config, error) {
	var c Config
	if err := bot.ParseEnv(&c); err != nil {
		return c, fmt.Errorf("read slack configuration: %w", err)
	}
	return c, nil
}

// Configured reports whether any Slack token is set.
func (c Config) Configured() bool {
	return c.BotToken != "" || c.AppToken != "" || c.SigningSecret != ""
}

// Mode returns the transport the configuration selects, or an error that
// says what is missing.
func (c Config) Mode() (Mode, error) {
	if !c.Configured() {
		return "", ErrNotConfigured
	}
	if c.BotToken == "" {
		return "", errors.New("SLACK_BOT_TOKEN (xoxb-…) is required to answer in Slack")
	}
	if !strings.HasPrefix(c.BotToken, "xoxb-") {
		return "", errors.New("SLACK_BOT_TOKEN must be a bot token (xoxb-…)")
	}
	switch {
	case c.AppToken != "":
		if !strings.HasPrefix(c.AppToken, "xapp-") {
			return "", errors.New("SLACK_APP_TOKEN must be an app-level token (xapp-…) with connections:write")
		}
		return ModeSocket, nil
	case c.SigningSecret != "":
		return ModeHTTP, nil
	default:
		return "", errors.New("set SLACK_APP_TOKEN for Socket Mode or SLACK_SIGNING_SECRET for HTTP mode")
	}
}

// Check rejects values the app cannot run with, as New does. A caller
// that opens other things before New (serve opens the bot) calls it
// first, so that a value to fix stops it with nothing opened.
func (c Config) Check() error {
	var errs []error
	if c.Workers < 0 {
		errs = append(errs, fmt.Errorf("SLACK_WORKERS must be 0 (share MAX_TURNS) or more, got %d", c.Workers))
	}
	if c.QueueLimit < 1 {
		errs = append(errs, fmt.Errorf("SLACK_QUEUE_LIMIT must be at least 1, got %d", c.QueueLimit))
	}
	if !strings.HasPrefix(c.SlashCommand, "/") {
		errs = append(errs, fmt.Errorf("SLACK_SLASH_COMMAND must start with /, got %q", c.SlashCommand))
	}
	if c.APIRetries < 0 {
		errs = append(errs, fmt.Errorf("SLACK_API_RETRIES must not be negative, got %d", c.APIRetries))
	}
	return errors.Join(errs...)
}
