package bot_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/warehousetest"
)

// earlierFingerprint is a SQL fingerprint as versions before the parse
// tree's hash stored it: pg_query's fingerprint, a dash, a hash of the
// deparsed query.
func earlierFingerprint(t *testing.T, sql string) string {
	t.Helper()
	fp, err := warehousetest.EarlierFingerprint(sql)
	require.NoError(t, err)
	return fp
}

// Examples stored by an earlier version, under fingerprints of the earlier
// form, still work after an upgrade: a verified one gives its badge to the
// same query however it is written, and the examples file's are not
// stored again, so a rejected one stays rejected.
func TestExamplesStoredBeforeTheUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	newBot(t, e, script(valveRules)) // stores the examples file's
	stored, err := e.admin.ListExamples(ctx, store.ExampleFilter{Backend: "postgres"})
	require.NoError(t, err)
	require.NotEmpty(t, stored, "the examples file is stored")
	for _, ex := range stored {
		assert.Equal(t, pgwarehouse.FingerprintForm, ex.FingerprintForm, "stored with its fingerprint's form")
		// As the earlier version left them: their fingerprints of the
		// earlier form, no form recorded.
		_, err := e.admin.Pool().Exec(ctx, `UPDATE examples SET fingerprint = $2, fingerprint_form = NULL WHERE id = $1`,
			ex.ID, earlierFingerprint(t, ex.Query))
		require.NoError(t, err)
	}
	rejected, err := e.admin.SetExampleStatus(ctx, stored[0].ID, store.StatusRejected, "UADMIN")
	require.NoError(t, err)
	valve, added, err := e.admin.AddExample(ctx, store.Example{Backend: "postgres", Question: valveQuestion, Query: valveSQL,
		Fingerprint: earlierFingerprint(t, valveSQL), Source: store.SourceAdmin, Status: store.StatusVerified,
		ProposedBy: "UADMIN", VerifiedBy: "UADMIN"})
	require.NoError(t, err)
	require.True(t, added)

	b := newBot(t, e, script(valveRules)) // the upgraded version starts
	after, err := e.admin.ListExamples(ctx, store.ExampleFilter{Backend: "postgres"})
	require.NoError(t, err)
	assert.Equal(t, len(stored)+1, len(after), "the examples file's are not stored again")
	for _, ex := range after {
		assert.Equal(t, pgwarehouse.FingerprintForm, ex.FingerprintForm, "brought to today's form: %s", ex.Question)
	}
	again, err := e.admin.Example(ctx, rejected.ID)
	require.NoError(t, err)
	assert.Equal(t, store.StatusRejected, again.Status)

	badge := askAs(t, b, "UASKER", bot.NewThreadID(), "Count the games Valve published")
	require.Empty(t, badge.ErrorKind, badge.ErrorDetail)
	require.NotNil(t, badge.Verified, "the example verified before the upgrade")
	assert.Equal(t, valve.ID, badge.Verified.ID)
	assert.Contains(t, blocksJSON(t, badge), "✓ Verified query")
}
