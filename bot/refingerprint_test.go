package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
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

// addEarlierValve stores the Valve question's verified example as a
// version of the earlier form adds it: under its fingerprint, with no form.
func addEarlierValve(t *testing.T, e *testEnv) store.Example {
	t.Helper()
	valve, added, err := e.admin.AddExample(context.Background(), store.Example{Backend: "postgres", Question: valveQuestion,
		Query: valveSQL, Fingerprint: earlierFingerprint(t, valveSQL), Source: store.SourceAdmin, Status: store.StatusVerified,
		ProposedBy: "UADMIN", VerifiedBy: "UADMIN"})
	require.NoError(t, err)
	require.True(t, added)
	return valve
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
	valve := addEarlierValve(t, e)

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

// An earlier version that starts against the database a later one
// brought to its fingerprint form (a desktop `analyticsbot mcp` or a CLI
// ask lagging the servers, or a rollback) takes no example back: its
// start writes none of their rows, so the later version's passes have
// nothing to bring forward again. Until it is upgraded, it does not
// recognise an example whose fingerprint the later form changed: no badge,
// and a 👍 stores the question again under its own fingerprint; so does
// its start for an examples file's example whose fingerprint changed.
func TestRefingerprintAtStartLeavesLaterForm(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	b := newBot(t, e, script(valveRules)) // stores the examples file's
	name, number, ok := warehouse.FormNumber(pgwarehouse.FingerprintForm)
	require.True(t, ok)
	later := fmt.Sprintf("%s-%d", name, number+1)
	today, err := b.Backend().Dialect().Fingerprint(valveSQL)
	require.NoError(t, err)

	// The later version brought every example to its form, which changed
	// the fingerprint of the file's first example, and added one.
	stored, err := e.admin.ListExamples(ctx, store.ExampleFilter{Backend: "postgres"})
	require.NoError(t, err)
	require.NotEmpty(t, stored, "the examples file is stored")
	changed := stored[len(stored)-1] // the oldest
	_, err = e.admin.Pool().Exec(ctx, `UPDATE examples SET fingerprint_form = $1,
		fingerprint = CASE WHEN id = $2 THEN 'later-' || fingerprint ELSE fingerprint END`, later, changed.ID)
	require.NoError(t, err)
	valve, added, err := e.admin.AddExample(ctx, store.Example{Backend: "postgres", Question: valveQuestion, Query: valveSQL,
		Fingerprint: "later-" + today, FingerprintForm: later, Source: store.SourceAdmin, Status: store.StatusVerified,
		ProposedBy: "UADMIN", VerifiedBy: "UADMIN"})
	require.NoError(t, err)
	require.True(t, added)
	laterRows, err := e.admin.ListExamples(ctx, store.ExampleFilter{Backend: "postgres"})
	require.NoError(t, err)
	before := storetest.ExampleRowVersions(t, e.admin)

	log := passLog{recs: make(chan slog.Record, 100)}
	b = bottest.Start(t, testConfig(t, e, script(valveRules)), slog.New(log)) // the earlier version starts
	assert.Empty(t, log.recs, "nothing refingerprinted")
	after := storetest.ExampleRowVersions(t, e.admin)
	for id, v := range before {
		assert.Equal(t, v, after[id], "example %d is not written", id)
	}
	for _, ex := range laterRows {
		got, err := e.admin.Example(ctx, ex.ID)
		require.NoError(t, err)
		assert.Equal(t, [2]string{ex.Fingerprint, later}, [2]string{got.Fingerprint, got.FingerprintForm},
			"%s keeps the later form", ex.Question)
	}
	var again []store.Example
	all, err := e.admin.ListExamples(ctx, store.ExampleFilter{Backend: "postgres"})
	require.NoError(t, err)
	for _, ex := range all {
		if _, ok := before[ex.ID]; !ok {
			again = append(again, ex)
		}
	}
	require.Len(t, again, 1, "the file's example whose fingerprint changed is stored again")
	assert.Equal(t, changed.Question, again[0].Question)
	assert.Equal(t, pgwarehouse.FingerprintForm, again[0].FingerprintForm)

	thread := bot.NewThreadID()
	answer := askAs(t, b, "UASKER", thread, valveQuestion)
	require.Empty(t, answer.ErrorKind, answer.ErrorDetail)
	assert.Nil(t, answer.Verified, "the later form's example is not recognised")
	pressAs(t, b, "URATER", thread, bot.ActionFeedbackUp, answer.QueryID)
	rows := feedbackRows(t, e, thread)
	require.Len(t, rows, 1)
	require.NotZero(t, rows[0].ExampleID)
	assert.NotEqual(t, valve.ID, rows[0].ExampleID, "a 👍 stores the question again")
	proposed, err := e.admin.Example(ctx, rows[0].ExampleID)
	require.NoError(t, err)
	assert.Equal(t, [3]string{valveQuestion, today, pgwarehouse.FingerprintForm},
		[3]string{proposed.Question, proposed.Fingerprint, proposed.FingerprintForm})
}
