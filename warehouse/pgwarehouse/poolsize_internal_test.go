package pgwarehouse

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The reader's pool holds 8 connections of its own, whatever
// DATABASE_URL's pool_max_conns gives the bot's (README, DATABASE_URL).
func TestReaderPoolSize(t *testing.T) {
	t.Parallel()
	for _, dbURL := range []string{
		"postgres://postgres@127.0.0.1:5432/analyticsbot?sslmode=disable",
		"postgres://postgres@127.0.0.1:5432/analyticsbot?sslmode=disable&pool_max_conns=32",
	} {
		cfg, err := NewExecutor(ExecConfig{DatabaseURL: dbURL}).poolConfig()
		require.NoError(t, err, dbURL)
		assert.Equal(t, int32(8), cfg.MaxConns, dbURL)
	}
}
