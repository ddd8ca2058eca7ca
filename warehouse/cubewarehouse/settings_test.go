package cubewarehouse

import (
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The settings' variables and their defaults, as a deployment sets them.
func TestSettingsFromEnvironment(t *testing.T) {
	t.Parallel()
	var got Settings
	require.NoError(t, env.ParseWithOptions(&got, env.Options{Environment: map[string]string{}}))
	assert.Equal(t, Settings{APIURL: "http://127.0.0.1:4000/cubejs-api/v1", Timeout: 30 * time.Second}, got)

	require.NoError(t, env.ParseWithOptions(&got, env.Options{Environment: map[string]string{
		"CUBE_API_URL": "https://cube.internal", "CUBE_API_SECRET": "s3cret",
		"CUBE_SECURITY_CONTEXT": `{"tenant": "eu"}`, "CUBE_TIMEOUT": "5s",
	}}))
	assert.Equal(t, Settings{APIURL: "https://cube.internal", APISecret: "s3cret", SecurityContext: `{"tenant": "eu"}`, Timeout: 5 * time.Second}, got)
	claims, err := got.Check()
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"tenant": "eu"}, claims, "the security context's claims")
}

// Settings a Cube backend cannot work with are refused, when it opens, with
// the variable to fix.
func TestSettingsOpen(t *testing.T) {
	t.Parallel()
	good := Settings{APIURL: "http://127.0.0.1:4000", APISecret: "s3cret", Timeout: time.Second}
	tests := []struct {
		name   string
		adjust func(*Settings)
		want   []string
	}{
		{"no secret", func(s *Settings) { s.APISecret = "" },
			[]string{"BACKEND=cube needs CUBE_API_SECRET, the secret the Cube server checks tokens with"}},
		{"security context that is no object", func(s *Settings) { s.SecurityContext = `["eu"]` },
			[]string{"CUBE_SECURITY_CONTEXT must be a JSON object: "}},
		{"security context that is null", func(s *Settings) { s.SecurityContext = ` null ` },
			[]string{"CUBE_SECURITY_CONTEXT must be a JSON object: "}},
		{"security context that would replace who asks", func(s *Settings) {
			s.SecurityContext = `{"tenant": "eu", "analyticsbot": {"user_email": "boss@corp.test"}}`
		},
			[]string{`CUBE_SECURITY_CONTEXT may not set "analyticsbot": the bot says there who each query is for`}},
		{"security context that clears who asks", func(s *Settings) { s.SecurityContext = `{"analyticsbot": null}` },
			[]string{`CUBE_SECURITY_CONTEXT may not set "analyticsbot"`}},
		{"negative timeout", func(s *Settings) { s.Timeout = -time.Second },
			[]string{"CUBE_TIMEOUT must be a duration above 0, such as 30s, got -1s"}},
		{"no URL", func(s *Settings) { s.APIURL = "" },
			[]string{"CUBE_API_URL: cube: the API URL is empty"}},
		{"URL without a scheme", func(s *Settings) { s.APIURL = "cube.internal:4000" },
			[]string{`CUBE_API_URL: cube: API URL "cube.internal:4000": want http(s)://host[:port][/cubejs-api/v1]`}},
		{"every problem at once", func(s *Settings) { s.APISecret, s.SecurityContext = "", "tenant=eu" },
			[]string{"CUBE_API_SECRET", "CUBE_SECURITY_CONTEXT"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := good
			tc.adjust(&s)
			b, err := Open(s, nil)
			require.Error(t, err)
			assert.Nil(t, b)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	b, err := Open(good, nil)
	require.NoError(t, err, "Open does not call Cube")
	assert.Equal(t, Name, b.Name())

	// Settings built in code may leave the timeout 0 for cube's default;
	// from the environment, bot.Config refuses CUBE_TIMEOUT=0.
	good.Timeout = 0
	_, err = Open(good, nil)
	assert.NoError(t, err, "a timeout of 0 is cube.DefaultTimeout")
}
