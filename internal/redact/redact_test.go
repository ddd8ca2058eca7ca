package redact

import "testing"

func TestURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"http://u:pw@host:1/v1":       "http://u:xxxxx@host:1/v1",
		"http://u:p%zz@host:1/v1":     "http://u:xxxxx@host:1/v1", // does not parse
		"u:pw@host:1/v1":              "u:xxxxx@host:1/v1",        // no scheme, so no host
		"ftp://u:pw@host/cubejs-api":  "ftp://u:xxxxx@host/cubejs-api",
		"http://u:p@ss@host:1":        "http://u:xxxxx@host:1", // an @ in the password
		"http://u@host:1/v1":          "http://u@host:1/v1",    // no password
		"http://host:1/v1":            "http://host:1/v1",
		"not a url":                   "not a url",
		"https://api.openai.com/v1/x": "https://api.openai.com/v1/x",
	} {
		if got := URL(raw); got != want {
			t.Errorf("URL(%q) = %q, want %q", raw, got, want)
		}
	}
}
