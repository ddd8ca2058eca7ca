package nodes

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// fixedNow is the clock of every test's Nodes: a date just after the demo
// data ends, so "today" in prompts is predictable.
var fixedNow = time.Date(2019, 6, 15, 9, 30, 0, 0, time.UTC)

// testDB is the package's database: migrated, with the Steam demo loaded
// once, because loading takes seconds. Tests keep apart by thread id.
var testDB storetest.Shared

func TestMain(m *testing.M) { os.Exit(storetest.Main(m, "nodes", &testDB, loadDemo)) }

// loadDemo loads the demo data into the package's database.
func loadDemo(ctx context.Context, db *store.DB) error {
	_, err := demo.Load(ctx, db.Pool(), demo.Options{})
	return err
}

// requireDB returns the package's database, or skips the test (fails it
// when CI=true) when Postgres is unreachable.
func requireDB(t testing.TB) *store.DB {
	t.Helper()
	return testDB.Need(t)
}

// newNodes returns the analytics nodes on the shared database, with a fresh
// result cache and a scripted model playing rules. Options go to the client
// after fast test defaults (5s timeout, 1ms backoff).
func newNodes(t testing.TB, rules []llm.Rule, opts ...llm.ClientOption) (*Nodes, *llm.Scripted) {
	t.Helper()
	db := requireDB(t)
	model, err := llm.NewScripted(rules)
	require.NoError(t, err, "scripted model")
	cache, err := store.NewCache(db, store.CacheLimits{})
	require.NoError(t, err, "result cache")
	clientOpts := append([]llm.ClientOption{
		llm.WithModelName("script:nodes-test"), llm.WithTimeout(5 * time.Second), llm.WithBackoff(time.Millisecond),
	}, opts...)
	backend := newBackend(t, pgwarehouse.ExecConfig{})
	n := (&Nodes{
		Model:     llm.NewClient(model, clientOpts...),
		DB:        db,
		Warehouse: backend,
		Cache:     cache,
		Examples:  prompts.DefaultExamples(),
		Domain:    "Steam games",
		Now:       func() time.Time { return fixedNow },
		Logger:    slog.New(slog.DiscardHandler),
		ExportDir: t.TempDir(),
	}).Defaults()
	return n, model
}

// threads numbers the threads of a run: with -count=N every test runs N
// times on the one database.
var threads atomic.Int64

// threadID names a test's own conversation thread, so tests sharing the
// database never see each other's turns or cached results.
func threadID(t testing.TB) string {
	return fmt.Sprintf("thread-%d-%s", threads.Add(1), strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()))
}

// reply is a scripted rule answering every call of step with text.
func reply(step llm.Step, text string) llm.Rule {
	return llm.Rule{Step: string(step), Reply: text}
}

// failing is a scripted rule failing every call of step with msg.
func failing(step llm.Step, msg string) llm.Rule {
	return llm.Rule{Step: string(step), Error: msg}
}

// onlyPrompt returns the prompt of the single recorded call.
func onlyPrompt(t testing.TB, model *llm.Scripted) string {
	t.Helper()
	calls := model.Calls()
	require.Len(t, calls, 1, "model calls")
	return calls[0].Prompt
}

// newBackend answers from the package's database with cfg's settings,
// closed when the test ends.
func newBackend(t testing.TB, cfg pgwarehouse.ExecConfig) *pgwarehouse.Backend {
	t.Helper()
	cfg.DatabaseURL = testDB.URL
	b := pgwarehouse.New(pgwarehouse.Config{ExecConfig: cfg})
	t.Cleanup(b.Close)
	return b
}
