package pgpool

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// RoundTrips lists the round trips to PostgreSQL made under a context
// CountRoundTrips returned, through a pool that Configure set up (the
// bot's own and the reader's): each statement, batch or copy, whichever
// pool and connection it went through. It is how the tests and
// benchmarks pin what a question costs the databases (issue 31); a
// context without one costs each round trip a lookup and nothing else.
// What pgx does on its own is not listed: describing a statement the
// connection has not prepared yet (once per connection), and the ping
// that checks a connection idle for over a second before lending it.
type RoundTrips struct {
	mu    sync.Mutex
	trips []RoundTrip
}

// RoundTrip is one round trip: a statement ("query": BEGIN and COMMIT
// included), a batch ("batch": its statements, one round trip for all)
// or a copy ("copy").
type RoundTrip struct {
	Kind       string
	Statements []string
}

// String is the round trip in one line: its kind and the start of each
// statement.
func (r RoundTrip) String() string {
	parts := make([]string, len(r.Statements))
	for i, s := range r.Statements {
		parts[i] = shortSQL(s)
	}
	return r.Kind + ": " + strings.Join(parts, "; ")
}

// shortSQL is the first words of a statement, on one line.
func shortSQL(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

type roundTripsKey struct{}

// CountRoundTrips returns ctx under which every round trip is added to rt.
func CountRoundTrips(ctx context.Context, rt *RoundTrips) context.Context {
	return context.WithValue(ctx, roundTripsKey{}, rt)
}

// List returns the round trips so far, in the order they started.
func (rt *RoundTrips) List() []RoundTrip {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return append([]RoundTrip(nil), rt.trips...)
}

// Len is how many round trips there were so far.
func (rt *RoundTrips) Len() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return len(rt.trips)
}

// Reset forgets the round trips so far.
func (rt *RoundTrips) Reset() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.trips = nil
}

// String lists the round trips, one a line, numbered.
func (rt *RoundTrips) String() string {
	var sb strings.Builder
	for i, r := range rt.List() {
		fmt.Fprintf(&sb, "%2d %s\n", i+1, r)
	}
	return sb.String()
}

// roundTripsOf is the RoundTrips of ctx, or nil.
func roundTripsOf(ctx context.Context) *RoundTrips {
	rt, _ := ctx.Value(roundTripsKey{}).(*RoundTrips)
	return rt
}

// add adds a round trip.
func (rt *RoundTrips) add(kind string, statements ...string) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.trips = append(rt.trips, RoundTrip{Kind: kind, Statements: statements})
}

// batchStatements is the SQL of a batch's statements.
func batchStatements(b *pgx.Batch) []string {
	out := make([]string, len(b.QueuedQueries))
	for i, q := range b.QueuedQueries {
		out[i] = q.SQL
	}
	return out
}
