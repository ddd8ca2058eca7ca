package pgwarehouse_test

import (
	"testing"
	"time"

	"github.com/caarlos0/env/v11"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// The settings' variables and their defaults, as a deployment sets them.
func TestSettingsFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		environ map[string]string
		want    pgwarehouse.Settings
	}{
		{"defaults", map[string]string{}, pgwarehouse.Settings{
			Schemas: []string{"analytics"}, StatementTimeout: 30 * time.Second, MaxResultBytes: 8 << 20, ReaderPerUser: 4}},
		{"every variable", map[string]string{
			"ANALYTICS_SCHEMA": "sales, crm,,sales", "STATEMENT_TIMEOUT": "45s", "READER_ROLE": "bi_reader",
			"READER_DATABASE_URL": "postgres://bi_reader:pw@db/shop", "MAX_RESULT_BYTES": "1024", "READER_PER_USER": "2",
		}, pgwarehouse.Settings{
			Schemas: []string{"sales", "crm"}, StatementTimeout: 45 * time.Second, ReaderRole: "bi_reader",
			ReaderURL: "postgres://bi_reader:pw@db/shop", MaxResultBytes: 1024, ReaderPerUser: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got pgwarehouse.Settings
			require.NoError(t, env.ParseWithOptions(&got, env.Options{Environment: tc.environ}))
			require.NoError(t, got.Check())
			assert.Equal(t, tc.want, got)
		})
	}
}

// Settings that cannot work are refused with the variable to fix.
func TestSettingsCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		adjust func(*pgwarehouse.Settings)
		want   []string
	}{
		{"negative statement timeout", func(s *pgwarehouse.Settings) { s.StatementTimeout = -time.Second },
			[]string{"STATEMENT_TIMEOUT must be a duration above 0, such as 30s, got -1s"}},
		{"negative byte cap", func(s *pgwarehouse.Settings) { s.MaxResultBytes = -1 },
			[]string{"MAX_RESULT_BYTES must be a number of bytes above 0, such as 8388608, got -1"}},
		{"more queries per person than the pool has", func(s *pgwarehouse.Settings) { s.ReaderPerUser = 9 },
			[]string{"READER_PER_USER must be a number of queries from 1 to 8, such as 4, got 9"}},
		{"reader URL that is no URL", func(s *pgwarehouse.Settings) { s.ReaderURL = "postgres://reader@db:notaport/shop" },
			[]string{"READER_DATABASE_URL: "}},
		{"every problem at once", func(s *pgwarehouse.Settings) { s.StatementTimeout, s.MaxResultBytes = -time.Minute, -2 },
			[]string{"STATEMENT_TIMEOUT", "got -1m0s", "MAX_RESULT_BYTES", "got -2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := pgwarehouse.Settings{Schemas: []string{"analytics"}, StatementTimeout: time.Second}
			tc.adjust(&s)
			err := s.Check()
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}

	s := pgwarehouse.Settings{Schemas: []string{" ", ""}}
	require.NoError(t, s.Check(), "zero timeouts and caps mean the defaults")
	assert.Equal(t, []string{pgwarehouse.DefaultSchema}, s.Schemas, "no schema means the default one")
}

// Without READER_ROLE the reader is READER_DATABASE_URL's user, or else the
// database's own; READER_ROLE always wins.
func TestSettingsDefaultReader(t *testing.T) {
	t.Parallel()
	const db = "postgres://postgres@127.0.0.1:5432/shop"
	tests := []struct {
		name     string
		settings pgwarehouse.Settings
		want     string
	}{
		{"the database's own reader", pgwarehouse.Settings{}, "analyticsbot_reader_shop"},
		{"the reader URL's user", pgwarehouse.Settings{ReaderURL: "postgres://bi:pw@db/shop"}, "bi"},
		{"READER_ROLE", pgwarehouse.Settings{ReaderRole: "mine", ReaderURL: "postgres://bi:pw@db/shop"}, "mine"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := tc.settings
			require.NoError(t, s.DefaultReader(db))
			assert.Equal(t, tc.want, s.ReaderRole)
		})
	}
	s := pgwarehouse.Settings{ReaderURL: "postgres://bi@db:notaport/shop"}
	err := s.DefaultReader(db)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "READER_DATABASE_URL: ")
}

// Exec reads as the settings say, from the bot's database under its bounds.
func TestSettingsExec(t *testing.T) {
	t.Parallel()
	s := pgwarehouse.Settings{Schemas: []string{"sales"}, StatementTimeout: 5 * time.Second, ReaderRole: "bi",
		ReaderURL: "postgres://bi@db/shop", MaxResultBytes: 100, ReaderPerUser: 3}
	got := s.Exec("postgres://postgres@db/shop", 20, 3*time.Second)
	assert.Equal(t, pgwarehouse.ExecConfig{DatabaseURL: "postgres://postgres@db/shop", URL: "postgres://bi@db/shop", Role: "bi",
		Schemas: []string{"sales"}, StatementTimeout: 5 * time.Second, MaxRows: 20, MaxBytes: 100, Timeout: 3 * time.Second, PerUser: 3}, got)
	assert.Equal(t, 8*time.Second, got.StatementBound(), "a statement may take STATEMENT_TIMEOUT and a round trip")
}
