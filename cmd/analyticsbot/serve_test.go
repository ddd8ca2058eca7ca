package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// syncBuffer is a bytes.Buffer safe for the goroutines of a running server.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func clearSlackEnv(t *testing.T) {
	t.Helper()
	for _, k := range []string{"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_API_URL"} {
		t.Setenv(k, "")
	}
}

// freeAddr returns a loopback address nothing listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

func TestCLIServeWithoutSlackTokens(t *testing.T) {
	clearSlackEnv(t)
	got := runCLI(t, "", "serve")
	require.Error(t, got.err)
	assert.Contains(t, got.err.Error(), "slack is not configured: set SLACK_BOT_TOKEN and SLACK_APP_TOKEN")
	assert.Contains(t, got.err.Error(), "README.md")
}

func TestCLIServeAnswersInSlack(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setDemoEnv(t, dbURL)
	require.NoError(t, runCLI(t, "", "demo", "load").err, "demo load")

	slack := fakeslack.New(t)
	clearSlackEnv(t)
	t.Setenv("SLACK_BOT_TOKEN", fakeslack.BotToken)
	t.Setenv("SLACK_APP_TOKEN", fakeslack.AppToken)
	t.Setenv("SLACK_API_URL", slack.APIURL())
	metricsAddr := freeAddr(t)
	t.Setenv("METRICS_ADDR", metricsAddr)

	ctx, cancel := context.WithTimeout(context.Background(), cliTimeo)
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, strings.NewReader(""), &out, &errOut) }()

	slack.WaitConnected(t)
	const ch, ts = "CSERVE001", "1700000100.000100"
	id := slack.Send(t, fakeslack.Envelope{Type: "events_api", Payload: fakeslack.EventCallback("EvServe1",
		fakeslack.AppMention(ch, "UALICE01", "<@"+fakeslack.BotUserID+"> "+q2018, ts, ""))})
	slack.WaitAck(t, id)
	slack.WaitMessage(t, "the answer in the thread", func(m fakeslack.Message) bool {
		return m.Channel == ch && m.ThreadTS == ts && strings.Contains(m.Text, "8160")
	})

	resp, err := http.Get("http://" + metricsAddr + "/metrics")
	require.NoError(t, err, "GET /metrics")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Regexp(t, `analyticsbot_turns_total\{[^}]*intent="analytics_query"[^}]*\} 1`, string(body), "the answered turn is counted")
	assert.Contains(t, string(body), "analyticsbot_node_duration_seconds_bucket", "node latency histogram")

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err, "serve stops cleanly on a signal; stderr: %s", errOut.String())
	case <-time.After(time.Minute):
		t.Fatal("serve did not stop within a minute of its context ending")
	}
	assert.Contains(t, out.String(), "answering in Slack over Socket Mode as <@"+fakeslack.BotUserID+"> (model script:demo)")
	assert.Contains(t, out.String(), "stopped")
	assert.Contains(t, errOut.String(), "slack app running", "serve logs at info level")
}
