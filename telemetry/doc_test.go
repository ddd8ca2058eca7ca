package telemetry

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
)

// documentedMetrics reads docs/observability.md's metrics table: each
// metric's Prometheus name and the label names its labels cell gives
// (the backticked words outside parentheses).
func documentedMetrics(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../docs/observability.md")
	require.NoError(t, err)
	_, table, ok := strings.Cut(string(b), "| metric | labels | meaning |\n")
	require.True(t, ok, "docs/observability.md has the metrics table")
	table, _, _ = strings.Cut(table, "\n\n")
	backticked := regexp.MustCompile("`([^`]+)`")
	parens := regexp.MustCompile(`\([^()]*\)`)
	out := map[string][]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(line, "|---") {
			continue
		}
		labels := cells[2]
		for parens.MatchString(labels) {
			labels = parens.ReplaceAllString(labels, "")
		}
		var names []string
		for _, m := range backticked.FindAllStringSubmatch(labels, -1) {
			names = append(names, m[1])
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			out[m[1]] = names
		}
	}
	return out
}

// docs/observability.md's metrics table names what /metrics serves: each
// metric under its Prometheus name with the labels the table gives, and no
// metric of the bot's that the table leaves out.
func TestMetricsTableMatchesScrape(t *testing.T) {
	cleanEnv(t, nil)
	tel := setup(t)
	ctx := context.Background()
	s, res := answeredTurn()
	RecordTurn(ctx, s, res, "postgres")
	s, res = rejectedTurn()
	RecordTurn(ctx, s, res, "postgres")
	RecordCache(ctx, true)
	stop, err := ObserveCapacity(otel.GetMeterProvider(), Capacity{
		Turns: func() (int, int) { return 1, 0 },
		Cache: func() (int, int64) { return 1, 512 },
	})
	require.NoError(t, err)
	defer stop()
	body := scrape(t, tel)

	docs := documentedMetrics(t)
	require.Contains(t, docs, "analyticsbot_turns_total", "the metrics table was read")
	for name, labels := range docs {
		typ := regexp.MustCompile(`(?m)^# TYPE ` + regexp.QuoteMeta(name) + ` (\w+)$`).FindStringSubmatch(body)
		if !assert.NotNil(t, typ, "%s, in docs/observability.md, is not served", name) {
			continue
		}
		sample := name
		if typ[1] == "histogram" {
			sample += "_count"
		}
		samples := regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(sample)+`\{([^}]*)\} `).FindAllStringSubmatch(body, -1)
		require.NotEmpty(t, samples, "samples of %s", name)
		for _, label := range labels {
			found := false
			for _, m := range samples {
				found = found || strings.Contains(","+m[1], ","+label+"=")
			}
			assert.True(t, found, "%s: docs/observability.md gives it the label %s; served: %v", name, label, samples)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (analyticsbot_\w+) `).FindAllStringSubmatch(body, -1) {
		assert.Contains(t, docs, m[1], "%s is served but not in docs/observability.md's metrics table", m[1])
	}
}
