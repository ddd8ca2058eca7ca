package store_test

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// createTimeout bounds the creation of a database in these tests.
const createTimeout = time.Minute

// TestEnsureDatabaseConcurrently starts several creators of one missing
// database at once, as several `migrate` runs (or replicas' deploy steps)
// on a fresh server do: PostgreSQL fails all but one CREATE DATABASE
// (with 42P04 or a unique violation on pg_database's names), and every
// creator must take that as the database being there. Each round is a
// new database: the race is won or lost on its first creation.
func TestEnsureDatabaseConcurrently(t *testing.T) {
	t.Parallel()
	const rounds, creators = 8, 4
	for round := range rounds {
		dbURL := storetest.MissingURL(t)
		ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
		start := make(chan struct{})
		errs := make([]error, creators)
		var wg sync.WaitGroup
		for i := range creators {
			wg.Go(func() {
				<-start
				errs[i] = store.EnsureDatabase(ctx, dbURL)
			})
		}
		close(start)
		wg.Wait()
		for i, err := range errs {
			assert.NoError(t, err, "round %d, creator %d", round+1, i+1)
		}
		db, err := store.Open(ctx, dbURL)
		require.NoError(t, err, "round %d: the database is there", round+1)
		db.Close()
		cancel()
	}
}

// TestEnsureDatabaseURLs creates a missing database from URLs as
// DATABASE_URL may hold them: with the pool's own settings (which
// PostgreSQL does not know, so they must not reach it), and with a setting
// the server refuses, whose error must reach the user instead of a later
// "database does not exist".
func TestEnsureDatabaseURLs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		query   string
		wantErr string // "" when the database must be created
	}{
		{name: "no settings"},
		{name: "the pool's settings",
			query: "pool_max_conns=4&pool_min_conns=1&pool_min_idle_conns=1&pool_max_conn_lifetime=1h&pool_max_conn_idle_time=10m" +
				"&pool_health_check_period=1m&pool_max_conn_lifetime_jitter=1m"},
		{name: "a server setting with a bad value", query: "work_mem=lots", wantErr: `invalid value for parameter "work_mem"`},
		{name: "a setting the server does not know", query: "no_such_setting=1", wantErr: `unrecognized configuration parameter "no_such_setting"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
			defer cancel()
			dbURL := withQuery(t, storetest.MissingURL(t), tt.query)
			err := store.EnsureDatabase(ctx, dbURL)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			db, err := store.Open(ctx, dbURL)
			require.NoError(t, err, "the database is there")
			defer db.Close()
			require.NoError(t, db.Migrate(ctx))
			require.NoError(t, store.EnsureDatabase(ctx, dbURL), "again, with the database there")
		})
	}
}

// withQuery is rawURL with the settings of query added.
func withQuery(t *testing.T, rawURL, query string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	require.NoError(t, err)
	if u.RawQuery != "" && query != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += query
	return u.String()
}
