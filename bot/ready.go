package bot

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"
)

// readyTimeout bounds each check of Ready, well within the second a
// Kubernetes probe waits by default.
const readyTimeout = 800 * time.Millisecond

// readyCache is how long a check's outcome answers further probes, so
// probes of several kinds and replicas do not each open round trips.
const readyCache = 2 * time.Second

// Readiness is whether the bot can answer now: what it depends on that
// does not answer.
type Readiness struct {
	// Down names what did not answer: "database" (the bot's own) and
	// "backend" (what questions are answered from). Empty when ready.
	Down []string
	// At is when the checks ran.
	At time.Time
}

// Ready reports whether the bot's database and its backend answer, each
// within readyTimeout (a database that stops answering without closing
// the connection is down too). An outcome younger than readyCache is
// reused; concurrent callers share one check. What failed is logged, not
// returned: the endpoints that report it are public.
func (b *Bot) Ready(ctx context.Context) Readiness {
	b.ready.mu.Lock()
	defer b.ready.mu.Unlock()
	if !b.ready.last.At.IsZero() && time.Since(b.ready.last.At) < readyCache {
		return b.ready.last
	}
	checks := []struct {
		name  string
		check func(context.Context) error
	}{{"database", b.db.Ping}}
	if p, ok := b.backend.(interface{ Ping(context.Context) error }); ok {
		checks = append(checks, struct {
			name  string
			check func(context.Context) error
		}{"backend", p.Ping})
	}
	// A check on a connection that went silent may overrun its deadline
	// (pgpool.Overrun): the answer does not wait for it.
	type outcome struct {
		i   int
		err error
	}
	results := make(chan outcome, len(checks))
	for i, c := range checks {
		go func() {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readyTimeout)
			defer cancel()
			results <- outcome{i, c.check(cctx)}
		}()
	}
	errs := make([]error, len(checks))
	for i := range errs {
		errs[i] = errors.New("no answer within " + readyTimeout.String())
	}
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
wait:
	for range checks {
		select {
		case o := <-results:
			errs[o.i] = o.err
		case <-timer.C:
			break wait
		}
	}
	r := Readiness{At: time.Now()}
	for i, c := range checks {
		if errs[i] != nil {
			r.Down = append(r.Down, c.name)
			b.log.WarnContext(ctx, "not ready: "+c.name+" does not answer", "err", errs[i])
		}
	}
	b.ready.last = r
	return r
}

// readiness is the last outcome of Ready.
type readiness struct {
	mu   sync.Mutex
	last Readiness
}

// ServeReady writes r as the answer to a readiness probe (GET /readyz of
// the web server and of the Slack app's): 200 with {"status":"ready"}, or
// 503 with {"status":"unavailable","down":["database"]}, naming what does
// not answer and nothing of why (the log says).
func ServeReady(w http.ResponseWriter, r Readiness) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	body := struct {
		Status string   `json:"status"`
		Down   []string `json:"down,omitempty"`
	}{Status: "ready", Down: r.Down}
	code := http.StatusOK
	if len(r.Down) > 0 {
		body.Status, code = "unavailable", http.StatusServiceUnavailable
	}
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}
