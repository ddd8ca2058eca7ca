package slackapp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// lockedBuffer is a log sink safe for slack-go's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// LOG_LEVEL=debug logs slack-go's Web API retries and the requests it
// posts, never the token (docs/slack.md); at info, none of it.
func TestDebugLogsSlackRetries(t *testing.T) {
	t.Parallel()
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		t.Run(level.String(), func(t *testing.T) {
			t.Parallel()
			fake := fakeslack.New(t)
			fake.FailNext("chat.postMessage", 1, http.StatusServiceUnavailable)
			var logs lockedBuffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level}))
			api := slack.New(fakeslack.BotToken, apiOptions(Config{APIURL: fake.APIURL(), APIRetries: 2}, log, nil)...)
			_, _, err := api.PostMessageContext(context.Background(), "C0DEBUG01", slack.MsgOptionText("hello there", false))
			require.NoError(t, err, "posted on the second attempt")
			got := logs.String()
			assert.NotContains(t, got, fakeslack.BotToken, "the token is never logged")
			if level == slog.LevelDebug {
				assert.Contains(t, got, "slack retry", "the retry is logged")
				assert.Contains(t, got, "text=hello+there", "the request is logged, message text included")
			} else {
				assert.Empty(t, got, "nothing of slack-go's is logged above debug")
			}
		})
	}
}

// At LOG_LEVEL=debug Socket Mode logs each envelope it receives and the
// ack it sends, and no token.
func TestDebugLogsEnvelopes(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	h := start(t, withLog(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	ch := channelID("CDEBUG")
	h.mention(ch, "1700000090.000100", "", "<@"+fakeslack.BotUserID+"> "+q2018)
	h.answerIn(ch, "1700000090.000100", answer18)
	got := logs.String()
	assert.Contains(t, got, "Received WebSocket message", "the envelope is logged")
	assert.Contains(t, got, "Sending Socket Mode response with envelope ID", "its ack is logged")
	assert.NotContains(t, got, fakeslack.BotToken, "the bot token is never logged")
	assert.NotContains(t, got, fakeslack.AppToken, "the app token is never logged")
}
