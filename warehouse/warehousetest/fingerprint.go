package warehousetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// EarlierFingerprint is a SQL query's fingerprint as versions before the
// parse tree's hash stored it (in examples, results and turns):
// pg_query's fingerprint, a dash, then a hash of the query as PostgreSQL's
// parser deparses it. Tests of the upgrade from that form use it.
func EarlierFingerprint(sql string) (string, error) {
	fp, err := pg_query.Fingerprint(sql)
	if err != nil {
		return "", fmt.Errorf("fingerprint %q: %w", sql, err)
	}
	tree, err := pg_query.Parse(sql)
	if err != nil {
		return "", fmt.Errorf("parse %q: %w", sql, err)
	}
	canonical, err := pg_query.Deparse(tree)
	if err != nil {
		return "", fmt.Errorf("deparse %q: %w", sql, err)
	}
	sum := sha256.Sum256([]byte(canonical))
	return fp + "-" + hex.EncodeToString(sum[:8]), nil
}

// CheckFingerprintForm checks that fingerprint gives the queries pinned
// for form the fingerprints pinned with them (query, fingerprint pairs).
// Stored examples carry their fingerprint's form, and the bot
// re-fingerprints only those of no form or an earlier one, so a
// fingerprint that changes while its form keeps its name would leave every
// stored example under a fingerprint no query gives any more (no verified
// badge, the examples file stored twice). A backend's test pins a few
// queries per form it has named.
//
// A form is a name and a number ("pg-1", warehouse.FormNumber), and a new
// one is the next number of the same name ("pg-2"): a bot, at start and
// while it serves, brings forward only the examples of a lower number
// (store.DB.RefingerprintEarlier), so two versions running at once never
// take examples back and forth.
func CheckFingerprintForm(t *testing.T, form string, pinned map[string][][2]string, fingerprint func(string) (string, error)) {
	t.Helper()
	_, _, numbered := warehouse.FormNumber(form)
	assert.True(t, numbered, "FingerprintForm %q is not a name and a number (pg-1): no bot would bring an earlier form's examples to it", form)
	queries, ok := pinned[form]
	require.True(t, ok, "FingerprintForm %q has no pinned fingerprints: pin a few queries' fingerprints for it", form)
	for _, p := range queries {
		got, err := fingerprint(p[0])
		require.NoError(t, err, p[0])
		assert.Equal(t, p[1], got, "the fingerprint of %s changed while FingerprintForm stayed %q: name a new form "+
			"(FingerprintForm) and pin its fingerprints, so the bot re-fingerprints stored examples at start", p[0], form)
	}
}
