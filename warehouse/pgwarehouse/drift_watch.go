package pgwarehouse

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// maxLoggedDrifts is how many differences of each kind a warning names.
const maxLoggedDrifts = 5

// DriftWatch warns in the log when the policies' roles read other than
// their policies on the tables as they are now (AccessDrift): once when
// the differences change, not at every check.
type DriftWatch struct {
	// Pool is the login that applies the policies (DATABASE_URL's).
	Pool *pgxpool.Pool
	// Reader is the reader role, whose name starts the policies' roles.
	Reader string
	// Schemas are the analytics schemas.
	Schemas []string
	// Policies are the access file's, those within channels' ceilings
	// included.
	Policies []warehouse.Access
	// Log receives the warnings.
	Log *slog.Logger

	last string // what was last logged
}

// Check compares the roles' privileges with their policies and logs the
// differences when they are not those it logged last: a warning naming a
// few of each kind, or that they match again.
func (w *DriftWatch) Check(ctx context.Context) {
	drifts, err := AccessDrift(ctx, w.Pool, w.Reader, w.Schemas, w.Policies)
	var beyond, short []string
	for _, d := range drifts {
		if d.Beyond {
			beyond = append(beyond, d.String())
		} else {
			short = append(short, d.String())
		}
	}
	now := strings.Join(append(append([]string{}, beyond...), short...), "\n")
	if err != nil {
		now = "error: " + err.Error()
	}
	if now == w.last {
		return
	}
	switch {
	case err != nil:
		w.Log.WarnContext(ctx, "cannot compare the policy roles' grants with their policies", "err", err)
	case len(drifts) > 0:
		w.Log.WarnContext(ctx, "the policy roles' grants differ from their policies on the tables as they are now: run `analyticsbot access apply`",
			"beyond", beyond[:min(len(beyond), maxLoggedDrifts)], "beyond_count", len(beyond),
			"short", short[:min(len(short), maxLoggedDrifts)], "short_count", len(short))
	case w.last != "":
		w.Log.InfoContext(ctx, "the policy roles' grants are their policies' again")
	}
	w.last = now
}

// Start checks now and every every until stop is called or ctx ends.
func (w *DriftWatch) Start(ctx context.Context, every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			w.Check(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
