package store_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// The bot's pool holds 16 connections unless DATABASE_URL sets
// pool_max_conns (README, DATABASE_URL).
func TestPoolSize(t *testing.T) {
	t.Parallel()
	_, dbURL := storetest.NewWithURL(t)
	withMax, err := url.Parse(dbURL)
	require.NoError(t, err)
	q := withMax.Query()
	q.Set("pool_max_conns", "3")
	withMax.RawQuery = q.Encode()
	tests := []struct {
		name string
		url  string
		want int32
	}{
		{name: "default", url: dbURL, want: 16},
		{name: "pool_max_conns", url: withMax.String(), want: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := store.Open(context.Background(), tt.url)
			require.NoError(t, err)
			t.Cleanup(db.Close)
			assert.Equal(t, tt.want, db.Pool().Stat().MaxConns())
		})
	}
}
