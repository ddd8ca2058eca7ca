package pgwarehouse

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/access.md: with READER_DATABASE_URL set, each policy's questions
// log in as its role with the reader's password; without it, as the role
// on DATABASE_URL's server (Exec's URL).
func TestAsRole(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, url, want string
	}{
		{"the reader's password kept", "postgres://analyticsbot_reader:s3cret@db:5432/shop?sslmode=require",
			"postgres://analyticsbot_reader_finance:s3cret@db:5432/shop?sslmode=require"},
		{"no password", "postgresql://analyticsbot_reader@db/shop", "postgresql://analyticsbot_reader_finance@db/shop"},
		{"no URL: the executor's own connection settings", "", ""},
	} {
		cfg, err := asRole(ExecConfig{URL: tt.url, Role: "analyticsbot_reader"}, "analyticsbot_reader_finance")
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, cfg.URL, tt.name)
		assert.Equal(t, "analyticsbot_reader_finance", cfg.Role, tt.name)
	}
	_, err := asRole(ExecConfig{URL: "host=db user=analyticsbot_reader password=s3cret"}, "analyticsbot_reader_finance")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Contains(t, err.Error(), "READER_DATABASE_URL must be a postgres:// URL")
}
