package bot_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/bot"
	"github.com/analyticsbot/analyticsbot/bot/bottest"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// passLog is a slog handler that reports on a channel each record a pass
// over the stored examples logs ("stored examples …"): what an operator
// reads of it.
type passLog struct{ recs chan slog.Record }

func (h passLog) Enabled(context.Context, slog.Level) bool { return true }
func (h passLog) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "stored examples") {
		h.recs <- r.Clone()
	}
	return nil
}
func (h passLog) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h passLog) WithGroup(string) slog.Handler      { return h }

// valveBadge reports which example's badge the answer to the Valve
// question carries (0: none).
func valveBadge(t *testing.T, b *bot.Bot) int64 {
	t.Helper()
	s := askAs(t, b, "UASKER", bot.NewThreadID(), "Count the games Valve published")
	require.Empty(t, s.ErrorKind, s.ErrorDetail)
	if s.Verified == nil {
		return 0
	}
	return s.Verified.ID
}

// A serving bot brings the examples a replica of an earlier version adds
// during a rolling upgrade to today's form at its next pass
// (EXAMPLES_REFINGERPRINT), without a restart: the answer then carries
// their badge. A pass that fails is logged and the next one tries again; a
// pass when every example is of today's form writes no row; the passes
// stop with their context. The loop is driven by hand through its tick.
func TestRefingerprintWhileServing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	log := passLog{recs: make(chan slog.Record, 100)}
	b := bottest.Start(t, testConfig(t, e, script(valveRules)), slog.New(log))
	for len(log.recs) > 0 {
		<-log.recs // the start's
	}
	loopCtx, stopLoop := context.WithCancel(ctx)
	defer stopLoop()
	tick := make(chan time.Time)
	done := make(chan struct{})
	go func() {
		defer close(done)
		bot.RefingerprintEvery(b, loopCtx, tick)
	}()
	tickLoop := func(what string) {
		t.Helper()
		select {
		case tick <- time.Now():
		case <-done:
			t.Fatalf("the loop stopped before %s", what)
		case <-time.After(time.Minute):
			t.Fatalf("the loop took no tick in a minute (%s)", what)
		}
	}
	logged := func(what string) slog.Record {
		t.Helper()
		select {
		case r := <-log.recs:
			return r
		case <-time.After(time.Minute):
			t.Fatalf("nothing logged in a minute (%s)", what)
			return slog.Record{}
		}
	}
	fingerprint := b.Backend().Dialect().Fingerprint
	today, err := fingerprint(valveSQL)
	require.NoError(t, err)

	// A replica of an earlier version, still serving, adds an example under
	// its fingerprint, with no form.
	valve := addEarlierValve(t, e)
	assert.Zero(t, valveBadge(t, b), "not recognised before a pass")

	tickLoop("the first pass")
	r := logged("the first pass")
	assert.Equal(t, "stored examples refingerprinted", r.Message)
	assert.Equal(t, "1", attr(r, "changed"))
	got, err := e.admin.Example(ctx, valve.ID)
	require.NoError(t, err)
	assert.Equal(t, [2]string{today, pgwarehouse.FingerprintForm}, [2]string{got.Fingerprint, got.FingerprintForm})
	assert.Equal(t, valve.ID, valveBadge(t, b), "recognised after the pass, without a restart")

	// A pass that fails (the database refuses the update) is logged, and
	// the next one, once the database takes it, brings the example of an
	// earlier form forward.
	_, err = e.admin.Pool().Exec(ctx, `UPDATE examples SET fingerprint = $2, fingerprint_form = 'pg-0' WHERE id = $1`,
		valve.ID, earlierFingerprint(t, valveSQL))
	require.NoError(t, err)
	_, err = e.admin.Pool().Exec(ctx, `CREATE FUNCTION refuse_updates() RETURNS trigger LANGUAGE plpgsql
		AS $$BEGIN RAISE EXCEPTION 'updates refused by the test'; END$$;
		CREATE TRIGGER refuse_updates BEFORE UPDATE ON examples FOR EACH ROW EXECUTE FUNCTION refuse_updates()`)
	require.NoError(t, err)
	tickLoop("the failing pass")
	r = logged("the failing pass")
	assert.Equal(t, slog.LevelWarn, r.Level)
	assert.Equal(t, "stored examples keep their fingerprints", r.Message)
	assert.Contains(t, attr(r, "err"), "updates refused by the test")
	_, err = e.admin.Pool().Exec(ctx, `DROP TRIGGER refuse_updates ON examples`)
	require.NoError(t, err)
	tickLoop("the pass after the failure")
	r = logged("the pass after the failure")
	assert.Equal(t, "stored examples refingerprinted", r.Message, "the loop went on")
	got, err = e.admin.Example(ctx, valve.ID)
	require.NoError(t, err)
	assert.Equal(t, [2]string{today, pgwarehouse.FingerprintForm}, [2]string{got.Fingerprint, got.FingerprintForm})

	// Every example of today's form: two passes (the second tick is
	// taken once the first pass is over) write nothing and log nothing.
	before := storetest.ExampleRowVersions(t, e.admin)
	tickLoop("a pass with nothing to do")
	tickLoop("another pass with nothing to do")
	stopLoop()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the loop did not stop when its context ended")
	}
	assert.Equal(t, before, storetest.ExampleRowVersions(t, e.admin), "no row written")
	assert.Empty(t, log.recs, "nothing logged")
}

// StartRefingerprint's stop returns, the passes stopped, whether they run
// (EXAMPLES_REFINGERPRINT set) or not (0).
func TestStartRefingerprintStops(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, every := range []time.Duration{time.Hour, 0} {
		b := newBot(t, e, script(), func(c *bot.Config) { c.ExamplesRefingerprint = every })
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			b.StartRefingerprint(context.Background())()
		}()
		select {
		case <-stopped:
		case <-time.After(time.Minute):
			t.Fatalf("EXAMPLES_REFINGERPRINT=%s: stop did not return", every)
		}
	}
}
