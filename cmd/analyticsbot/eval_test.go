package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/eval"
	"github.com/analyticsbot/analyticsbot/store/storetest"
)

// TestCLIEval runs the demo's golden file from the command line: through
// the oracle (every gold query through the whole workflow), and retrieval
// only, with the targets that make it usable in CI.
func TestCLIEval(t *testing.T) {
	_, dbURL := storetest.NewWithURL(t)
	setDemoEnv(t, dbURL)
	load := runCLI(t, "", "demo", "load")
	require.NoError(t, load.err, "stderr: %s", load.stderr)
	const file = "../../evals/steam.yaml"

	got := runCLI(t, "", "eval", "--oracle", "--json", "--min-accuracy", "1", file)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	var full eval.Report
	require.NoError(t, json.Unmarshal([]byte(got.stdout), &full))
	assert.Equal(t, "full", full.Mode)
	assert.Equal(t, 1.0, full.Accuracy)
	assert.GreaterOrEqual(t, len(full.Items), 40)

	got = runCLI(t, "", "eval", "--retrieval-only", "--min-recall", "1", file)
	require.NoError(t, got.err, "stderr: %s", got.stderr)
	assert.Contains(t, got.stdout, "table recall 1.000, column recall 1.000, value recall 1.000")

	t.Setenv("SCHEMA_BUDGET_TOKENS", "1000")
	got = runCLI(t, "", "eval", "--retrieval-only", "--min-recall", "0.99", file)
	assert.ErrorIs(t, got.err, errBelowTarget, "a small budget misses tables")
	assert.Contains(t, got.stdout, "FAIL ", "the items that miss a reference are listed")

	for _, args := range [][]string{
		{"eval"},
		{"eval", "--oracle", "--retrieval-only", file},
		{"eval", "--jobs", "0", file},
	} {
		assert.ErrorIs(t, runCLI(t, "", args...).err, errUsage, "%v", args)
	}
	assert.ErrorContains(t, runCLI(t, "", "eval", "no-such-file.yaml").err, "load eval file")
}
