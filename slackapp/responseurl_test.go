package slackapp

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// docs/slack.md: the bot posts to a press's response_url only on Slack's
// own HTTPS hosts (or the configured API host, which the tests and a proxy
// use): never to a URL a payload made up.
func TestTrustedResponseURL(t *testing.T) {
	t.Parallel()
	a := &App{cfg: Config{APIURL: "http://127.0.0.1:4390/api/"}}
	for url, want := range map[string]bool{
		"https://hooks.slack.com/actions/T1/123/abc":      true,
		"https://slack.com/api/chat.postMessage":          true,
		"HTTPS://Hooks.Slack.COM/actions/T1/1/a":          true,
		"http://127.0.0.1:4390/respond/1":                 true,
		"http://hooks.slack.com/actions/T1/123/abc":       false, // not HTTPS
		"https://slack.com.evil.test/actions":             false,
		"https://evilslack.com/actions":                   false,
		"https://evil.test/?next=https://hooks.slack.com": false,
		"https://user@evil.test/hooks.slack.com":          false,
		"http://127.0.0.1:4391/respond/1":                 false, // another port
		"https://127.0.0.1:4390/respond/1":                false, // another scheme
		"":                                                false,
		"::not a url":                                     false,
	} {
		assert.Equal(t, want, a.trustedResponseURL(url), url)
	}
	bare := &App{}
	assert.False(t, bare.trustedResponseURL("http://127.0.0.1:4390/respond/1"), "no API URL configured: Slack's hosts only")
	assert.True(t, bare.trustedResponseURL("https://hooks.slack.com/actions/T1/1/a"))
}
