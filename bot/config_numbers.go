package bot

import (
	"errors"
	"fmt"
	"time"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
)

// MaxRetriesBound is the most LLM_RETRIES takes: each retry is one more
// call to the model's provider, made while the asker waits, on each of the
// question's calls, so a value far above the default of 2 only makes a
// failing question fail later and dearer.
const MaxRetriesBound = 10

// MinMaxTokens is the least LLM_MAX_TOKENS takes other than 0: a query
// with its notes can take a few hundred tokens, and a bound below that
// would cut every reply.
const MinMaxTokens = 256

// checkNumbers reports the numeric settings whose value cannot work, each
// with what it accepts. The code that takes them would otherwise put its
// default (or nothing) in place of a value it cannot use, without a word:
// MAX_ROWS=0 would cap results at 1,000, and STATEMENT_TIMEOUT=0, which
// PostgreSQL reads as no timeout, would stop queries after 30s.
func (c *Config) checkNumbers() []error {
	var errs []error
	for _, n := range []struct {
		name     string
		value    int64
		accepted string
	}{
		{"MAX_ROWS", int64(c.MaxRows), "a number of rows above 0, such as 1000"},
		{"EXPORT_MAX_ROWS", int64(c.ExportMaxRows), "a number of rows above 0, such as 1000000"},
		{"EXPORT_MAX_BYTES", c.ExportMaxBytes, "a number of bytes above 0, such as 104857600"},
		{"SCHEMA_BUDGET_TOKENS", int64(c.SchemaBudget), "a number of tokens above 0, such as 3000"},
		{"CACHE_PER_THREAD", int64(c.CachePerThread), "a number of results above 0, such as 10"},
		{"CACHE_LRU_SIZE", int64(c.CacheLRUSize), "a number of results above 0, such as 256"},
		{"RESULT_CACHE_BYTES", c.ResultCacheBytes, "a number of bytes above 0, such as 67108864"},
		{"MAX_TURNS", int64(c.MaxTurns), "a number of turns above 0, such as 256"},
		{"TURN_QUEUE", int64(c.TurnQueue), "a number of turns above 0, such as 1000"},
	} {
		if n.value <= 0 {
			errs = append(errs, fmt.Errorf("%s must be %s, got %d", n.name, n.accepted, n.value))
		}
	}
	for _, d := range []struct {
		name    string
		value   time.Duration
		example string
	}{
		{"LLM_TIMEOUT", c.LLMTimeout, "60s"}, {"TURN_WAIT", c.TurnWait, "2m"},
		{"DATABASE_TIMEOUT", c.DatabaseTimeout, "10s"},
	} {
		if d.value <= 0 {
			errs = append(errs, fmt.Errorf("%s must be a duration above 0, such as %s, got %s", d.name, d.example, d.value))
		}
	}
	for _, n := range []struct {
		name  string
		value int
		zero  string // what 0 means
		most  int    // the most it takes, when bounded
	}{
		{name: "MODEL_CONCURRENCY", value: c.ModelConcurrency, zero: "no bound"},
		{name: "SQL_MAX_RETRIES", value: c.MaxRetries, zero: "no regeneration", most: nodes.MostSQLRetries},
		{name: "LLM_RETRIES", value: c.LLMRetries, zero: "no retry", most: MaxRetriesBound},
		{name: "HISTORY_TURNS", value: c.HistoryTurns, zero: "no history"},
		{name: "VALUE_INDEX_MAX_DISTINCT", value: c.ValueIndexMaxDistinct, zero: "no value lookup"},
	} {
		switch {
		case n.most > 0 && (n.value < 0 || n.value > n.most):
			errs = append(errs, fmt.Errorf("%s must be 0 (%s) to %d, got %d", n.name, n.zero, n.most, n.value))
		case n.value < 0:
			errs = append(errs, fmt.Errorf("%s must be 0 (%s) or more, got %d", n.name, n.zero, n.value))
		}
	}
	// The backend's own Check refuses these below 0 and lets 0 mean its
	// defaults, for settings built in code; read from the environment, 0
	// is refused too.
	if c.Postgres.StatementTimeout == 0 {
		errs = append(errs, errors.New("STATEMENT_TIMEOUT must be a duration above 0, such as 30s, got 0s"))
	}
	if c.Postgres.MaxResultBytes == 0 {
		errs = append(errs, errors.New("MAX_RESULT_BYTES must be a number of bytes above 0, such as 8388608, got 0"))
	}
	// So does Cube's, when BACKEND=cube opens, for CUBE_TIMEOUT; its
	// settings mean nothing to another backend, which they do not stop.
	if c.backendName() == cubewarehouse.Name && c.Cube.Timeout == 0 {
		errs = append(errs, errors.New("CUBE_TIMEOUT must be a duration above 0, such as 30s, got 0s"))
	}
	if c.LLMMaxTokens != 0 && c.LLMMaxTokens < MinMaxTokens {
		errs = append(errs, fmt.Errorf("LLM_MAX_TOKENS must be 0 (the provider's own bound) or at least %d tokens, such as 4096, got %d",
			MinMaxTokens, c.LLMMaxTokens))
	}
	if c.ValueIndexRefresh < 0 {
		errs = append(errs, fmt.Errorf("VALUE_INDEX_REFRESH must be 0 (once, at start) or a duration such as 24h, got %s", c.ValueIndexRefresh))
	}
	return errs
}
