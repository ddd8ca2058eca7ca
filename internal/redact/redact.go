// Package redact hides secrets in what the bot prints, logs and traces:
// the password of a service's URL, named in an error when the URL does not
// parse or is not one the setting takes (LLM_BASE_URL, CUBE_API_URL), and
// keys an error's text quotes, by their shape or by their known value.
package redact

import (
	"net/url"
	"strings"
)

// URL returns raw with the password of its user info masked, as
// url.URL.Redacted does, also when raw does not parse or names no host,
// where Redacted cannot be had.
func URL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Redacted()
	}
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	user, _, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return raw
	}
	return prefix + user + ":xxxxx" + rest[at:]
}
