package redact

import "testing"

// Error details may quote a request or a connection string: key-like text
// is masked before it is stored, logged or traced.
func TestSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{name: "api_key pair", in: "model exploded: api_key=sk-live-abc123 now", want: "model exploded: api_key=[masked] now"},
		{name: "openai key", in: "401: invalid key sk-proj-AbCdEf0123456789", want: "401: invalid key [masked]"},
		{name: "bearer", in: "Authorization: Bearer abcdefghijklmnop", want: "Authorization: [masked]"},
		{name: "url password", in: "dial postgres://reader:hunter2@db:5432/analytics", want: "dial postgres://[masked]@db:5432/analytics"},
		{name: "pairs", in: "token=xyz&page=2, password: p4ss", want: "token=[masked]&page=2, password: [masked]"},
		{name: "litellm's words", in: "Authentication Error, Received API Key = ghp_AbCdEf0123456789, Key Hash = 1f",
			want: "Authentication Error, Received API Key = [masked], Key Hash = 1f"},
		{name: "api key header", in: "x-api-key: abcdef0123", want: "x-api-key: [masked]"},
		{name: "no secret", in: `column "release_yr" does not exist (SQLSTATE 42703)`, want: `column "release_yr" does not exist (SQLSTATE 42703)`},
		{name: "hyphenated words", in: "desk-top work-flow", want: "desk-top work-flow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Secrets(tt.in); got != tt.want {
				t.Errorf("Secrets(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A configured key is masked whatever its shape, so is a password, and a
// value too short to be a secret is left alone.
func TestValues(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		secrets []string
		want    string
	}{
		{name: "azure key", in: "401: key 0123456789abcdef0123456789abcdef is not valid",
			secrets: []string{"0123456789abcdef0123456789abcdef"}, want: "401: key [masked] is not valid"},
		{name: "github token", in: "refused ghp_AbCdEf0123456789 twice: ghp_AbCdEf0123456789",
			secrets: []string{"ghp_AbCdEf0123456789"}, want: "refused [masked] twice: [masked]"},
		{name: "and the shapes", in: "refused sk-proj-AbCdEf0123456789 for k3y-vAlue",
			secrets: []string{"k3y-vAlue", ""}, want: "refused [masked] for [masked]"},
		{name: "too short", in: "a key of abc", secrets: []string{"abc", "a"}, want: "a key of abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Values(tt.in, tt.secrets...); got != tt.want {
				t.Errorf("Values(%q, %q) = %q, want %q", tt.in, tt.secrets, got, tt.want)
			}
		})
	}
}
