package pgwarehouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// TestReaderAndPolicyRolesAsDocumented: the database's own reader, set up
// as `migrate` sets it up (STATEMENT_TIMEOUT unset), and a policy's role,
// made as `access apply` makes it (STATEMENT_TIMEOUT=45s), each have
// exactly the attributes and per-database defaults docs/security.md
// gives them.
func TestReaderAndPolicyRolesAsDocumented(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, url := newAnalyticsDB(t)
	// Named for the database, the test database's drop takes it and its
	// policy roles along (storetest).
	reader, err := pgwarehouse.ReaderRoleFor(url)
	require.NoError(t, err)
	require.NoError(t, pgwarehouse.EnsureReaderRole(ctx, db.Pool(), reader))
	require.NoError(t, pgwarehouse.SetStatementTimeout(ctx, db.Pool(), reader, 0))

	rules, err := access.Parse([]byte("policies:\n  - name: orders\n    tables: [\"analytics.orders\"]\ndefault: orders\n"))
	require.NoError(t, err)
	applied, err := pgwarehouse.ApplyAccess(ctx, db.Pool(), pgwarehouse.ApplyConfig{Reader: reader, Schemas: []string{"analytics"},
		StatementTimeout: 45 * time.Second}, rules.AllPolicies())
	require.NoError(t, err)

	// Set up by a superuser, as here, both have a temp_file_limit too.
	tempFiles := storetest.RoleSetting{Name: "temp_file_limit", Stored: "1GB", Shown: "1GB"}
	t.Run("reader", func(t *testing.T) { storetest.AssertDocumentedRole(t, db, url, reader, "30s", tempFiles) })
	t.Run("policy role", func(t *testing.T) {
		storetest.AssertDocumentedRole(t, db, url, applied.Roles["orders"], "45s", tempFiles)
	})
}
