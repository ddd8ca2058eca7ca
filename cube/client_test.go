package cube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		url      string
		secret   string
		wantBase string
		wantErr  string
	}{
		{name: "bare host", url: "http://127.0.0.1:4000", secret: "s", wantBase: "http://127.0.0.1:4000/cubejs-api/v1"},
		{name: "trailing slash", url: "http://127.0.0.1:4000/", secret: "s", wantBase: "http://127.0.0.1:4000/cubejs-api/v1"},
		{name: "with suffix", url: "http://127.0.0.1:4000/cubejs-api/v1", secret: "s", wantBase: "http://127.0.0.1:4000/cubejs-api/v1"},
		{name: "suffix and slash", url: "https://cube.example.com/cubejs-api/v1/", secret: "s", wantBase: "https://cube.example.com/cubejs-api/v1"},
		{name: "behind a path prefix", url: " https://example.com/cube ", secret: "s", wantBase: "https://example.com/cube/cubejs-api/v1"},
		{name: "empty url", url: "", secret: "s", wantErr: "cube: the API URL is empty (set CUBE_API_URL)"},
		{name: "no scheme", url: "127.0.0.1:4000", secret: "s", wantErr: "want http(s)://host"},
		{name: "other scheme", url: "ftp://cube", secret: "s", wantErr: "want http(s)://host"},
		{name: "empty secret", url: "http://cube:4000", secret: "", wantErr: "cube: the API secret is empty (set CUBE_API_SECRET)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(Config{APIURL: tt.url, Secret: tt.secret})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr, "got error %q, want it to contain %q", err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantBase, c.base, "got base %q, want %q", c.base, tt.wantBase)
		})
	}
}

func TestNewDefaults(t *testing.T) {
	t.Parallel()
	c, err := New(Config{APIURL: "http://cube:4000", Secret: "s"})
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, c.cfg.Timeout)
	assert.Equal(t, 3, c.cfg.Retries)
	assert.Equal(t, 500*time.Millisecond, c.cfg.BackoffInitial)
	assert.Equal(t, 4*time.Second, c.cfg.BackoffMax)
	assert.Equal(t, 500*time.Millisecond, c.cfg.PollInterval)
	assert.NotNil(t, c.cfg.Now)

	c, err = New(Config{APIURL: "http://cube:4000", Secret: "s", Retries: -1})
	require.NoError(t, err)
	assert.Equal(t, 0, c.cfg.Retries, "got %d retries, want a negative count to mean none", c.cfg.Retries)
}
