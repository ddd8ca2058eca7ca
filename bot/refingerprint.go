package bot

import (
	"context"
	"time"
)

// StartRefingerprint brings the stored examples of an earlier fingerprint
// form, or of none, to the backend's form every EXAMPLES_REFINGERPRINT in
// the background, until stop is called or ctx ends. Every start does it too
// (storeExamples), but during a rolling upgrade a replica of the earlier
// version goes on adding examples of its own form after the new ones
// started: without the passes, the new ones would not recognise them (no
// badge; a 👍 storing the question again) until one of them started again. A
// pass that finds no such example costs one scan of the examples (about 3
// ms per 10,000) and writes no row. It is off (stop does nothing) when
// EXAMPLES_REFINGERPRINT is 0, or when no example is stored (the backend
// has no fingerprints, or the database is not migrated).
func (b *Bot) StartRefingerprint(ctx context.Context) (stop func()) {
	if b.cfg.ExamplesRefingerprint <= 0 || b.nodes.ExampleStore == nil || b.backend.Dialect().Fingerprint == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	tick := time.NewTicker(b.cfg.ExamplesRefingerprint)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.refingerprintEvery(ctx, tick.C)
	}()
	return func() {
		cancel()
		<-done
		tick.Stop()
	}
}

// refingerprintEvery runs a pass at each tick until ctx ends. A failed
// pass is logged; the next tick tries again.
func (b *Bot) refingerprintEvery(ctx context.Context, tick <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
		d := b.backend.Dialect()
		changed, err := b.db.RefingerprintEarlier(ctx, b.backend.Name(), d.FingerprintForm, d.Fingerprint)
		if ctx.Err() != nil {
			return // stopping: not a failure
		}
		b.logRefingerprint(ctx, changed, err)
	}
}

// logRefingerprint says what store.DB.RefingerprintEarlier did at start or
// in a pass: nothing, when no fingerprint changed.
func (b *Bot) logRefingerprint(ctx context.Context, changed int, err error) {
	if err != nil {
		b.log.WarnContext(ctx, "stored examples keep their fingerprints", "err", err)
	} else if changed > 0 {
		b.log.InfoContext(ctx, "stored examples refingerprinted", "changed", changed)
	}
}
