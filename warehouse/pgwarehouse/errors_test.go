package pgwarehouse

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// A missing privilege is a setup problem with the GRANT that fixes it in
// the reason; what no GRANT should fix keeps the database's words.
func TestDenied(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg     string
		schemas []string
		want    string
	}{
		{"permission denied for table author", []string{"analytics"},
			`permission denied for table author: the reader role analyticsbot_reader has no grant on it. If the bot should read it, run: GRANT SELECT ON "analytics"."author" TO "analyticsbot_reader"; (or ` + "`analyticsbot grant`" + ` for all of ANALYTICS_SCHEMA)`},
		{"permission denied for view sales", []string{"marts", "finance"},
			`permission denied for view sales: the reader role analyticsbot_reader has no grant on it. If the bot should read it, run: GRANT SELECT ON "sales" TO "analyticsbot_reader";`},
		{"permission denied for schema finance", nil,
			`permission denied for schema finance: the reader role analyticsbot_reader has no grant on it. If the bot should read it, run: GRANT USAGE ON SCHEMA "finance" TO "analyticsbot_reader";`},
		{"permission denied for function pg_read_file", nil, `permission denied for function pg_read_file (as the reader role analyticsbot_reader)`},
		{"must be owner of table orders", nil, `must be owner of table orders (as the reader role analyticsbot_reader)`},
	}
	for _, tt := range tests {
		err := denied(&pgconn.PgError{Code: "42501", Message: tt.msg}, DefaultReaderRole, tt.schemas)
		assert.Equal(t, warehouse.Denied, warehouse.KindOf(err), tt.msg)
		assert.Contains(t, err.Error(), tt.want, tt.msg)
	}
	assert.True(t, isSettingChange(&pgconn.PgError{Message: `permission denied to set parameter "role"`}),
		"refusing to change role is the sandbox working, not a missing grant")
}
