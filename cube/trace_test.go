package cube

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// docs/observability.md: a span per Cube call, cube.meta, cube.load and
// cube.sql.
func TestCallSpans(t *testing.T) {
	t.Parallel()
	f := newFake(t)
	f.script("meta", ok(readFile(t, "testdata/meta-0.33.json")))
	f.script("load", ok(readFile(t, "testdata/load-0.33.json")))
	f.script("sql", ok(readFile(t, "testdata/sql-0.33.json")))
	rec := tracetest.NewSpanRecorder()
	c := f.client(func(cfg *Config) { cfg.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)) })

	_, err := c.Meta(t.Context())
	require.NoError(t, err)
	_, err = c.Load(t.Context(), loadQuery)
	require.NoError(t, err)
	_, err = c.SQL(t.Context(), Query{Measures: []string{"Apps.count"}})
	require.NoError(t, err)

	var names []string
	for _, s := range rec.Ended() {
		names = append(names, s.Name())
	}
	assert.Equal(t, []string{"cube.meta", "cube.load", "cube.sql"}, names, "one span per call")
}
