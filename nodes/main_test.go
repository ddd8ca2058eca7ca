package nodes

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
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
)

// fixedNow is the clock of every test's Nodes: a date just after the demo
// data ends, so "today" in prompts is predictable.
var fixedNow = time.Date(2019, 6, 15, 9, 30, 0, 0, time.UTC)

// testDB is the package's database: migrated, with the Steam demo loaded
// once, because loading takes seconds. Tests keep apart by thread id.
var testDB struct {
	db  *store.DB
	url string
	// unavailable says why there is no database; tests skip with it, or
	// fail when CI=true.
	unavailable string
}

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	tb := &mainTB{}
	done := make(chan struct{})
	go func() { // mainTB's Fatal and Skip end this goroutine, as in a test
		defer close(done)
		testDB.db, testDB.url = storetest.NewWithURL(tb)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := demo.Load(ctx, testDB.db.Pool(), demo.Options{}); err != nil {
			tb.Fatalf("load demo data: %v", err)
		}
	}()
	<-done
	defer tb.cleanup()
	switch {
	case tb.fatal != "":
		fmt.Fprintln(os.Stderr, "nodes tests: set up the database:", tb.fatal)
		return 1
	case tb.skip != "":
		testDB.db, testDB.unavailable = nil, tb.skip
	}
	return m.Run()
}

// mainTB lets TestMain use storetest, which expects a test: cleanups run
// when TestMain ends, and Fatal or Skip end the calling goroutine.
type mainTB struct {
	testing.TB // nil: storetest uses only the methods below
	cleanups   []func()
	fatal      string
	skip       string
}

func (m *mainTB) Helper()                         {}
func (m *mainTB) Cleanup(f func())                { m.cleanups = append(m.cleanups, f) }
func (m *mainTB) Logf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (m *mainTB) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nodes tests: "+format+"\n", args...)
}

func (m *mainTB) Fatal(args ...any) { m.fatal = fmt.Sprint(args...); runtime.Goexit() }
func (m *mainTB) Fatalf(format string, args ...any) {
	m.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (m *mainTB) Skip(args ...any) { m.skip = fmt.Sprint(args...); runtime.Goexit() }
func (m *mainTB) Skipf(format string, args ...any) {
	m.skip = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (m *mainTB) cleanup() {
	for i := len(m.cleanups) - 1; i >= 0; i-- {
		m.cleanups[i]()
	}
}

// requireDB returns the package's database, or skips the test (fails it
// when CI=true) when Postgres is unreachable.
func requireDB(t testing.TB) *store.DB {
	t.Helper()
	if testDB.db == nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %s", testDB.unavailable)
		}
		t.Skipf("skipping: %s", testDB.unavailable)
	}
	return testDB.db
}

// newNodes returns the analytics nodes on the shared database, with a fresh
// result cache and a scripted model playing rules. Options go to the client
// after fast test defaults (5s timeout, 1ms backoff).
func newNodes(t testing.TB, rules []llm.Rule, opts ...llm.ClientOption) (*Nodes, *llm.Scripted) {
	t.Helper()
	db := requireDB(t)
	model, err := llm.NewScripted(rules)
	require.NoError(t, err, "scripted model")
	cache, err := store.NewCache(db, 0, 0)
	require.NoError(t, err, "result cache")
	clientOpts := append([]llm.ClientOption{
		llm.WithModelName("script:nodes-test"), llm.WithTimeout(5 * time.Second), llm.WithBackoff(time.Millisecond),
	}, opts...)
	n := (&Nodes{
		Model:    llm.NewClient(model, clientOpts...),
		DB:       db,
		Exec:     store.NewExecutor(db, store.ExecConfig{}),
		Cache:    cache,
		Examples: prompts.DefaultExamples(),
		Domain:   "Steam games",
		Schema:   "analytics",
		Now:      func() time.Time { return fixedNow },
		Logger:   slog.New(slog.DiscardHandler),
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
