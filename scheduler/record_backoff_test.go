package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/nodes"
)

// docs/schedules.md: a run's end that the database refuses is recorded
// again "after 1 s, doubling up to a third of SCHEDULE_LEASE". The waits
// are read off the backoff end uses, not timed.
func TestRecordBackoff(t *testing.T) {
	t.Parallel()
	s := time.Second
	tests := []struct {
		name         string
		first, lease time.Duration
		want         []time.Duration
	}{
		{"the default lease of 2m: up to 40s", 0, 2 * time.Minute, []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, 40 * s, 40 * s}},
		{"a lease of 12s: up to 4s", 0, 12 * s, []time.Duration{s, 2 * s, 4 * s, 4 * s}},
		{"a lease shorter than 3s keeps 1s", 0, 2 * s, []time.Duration{s, s, s}},
		{"a first delay of its own (tests)", 10 * time.Millisecond, 120 * time.Millisecond,
			[]time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 40 * time.Millisecond, 40 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := newRecordBackoff(tt.first, tt.lease)
			var got []time.Duration
			for range tt.want {
				got = append(got, b.next())
			}
			assert.Equal(t, tt.want, got, "waits between tries, first %v, lease %v", tt.first, tt.lease)
		})
	}
}

// The owner of a failed run is told why in words, the attempts counted;
// a refusal of the data source is not blamed on the database when it is a
// semantic layer's.
func TestFailureWords(t *testing.T) {
	t.Parallel()
	for kind, want := range map[nodes.ErrorKind]string{
		nodes.ErrWarehouseDown:     "the database could not be reached",
		nodes.ErrWarehouseNoAnswer: "the database did not answer in time",
		nodes.ErrWarehouseBusy:     "too many queries were running at the time",
		nodes.ErrQueryTimeout:      "the query took too long",
		nodes.ErrInvalidQuery:      "the query no longer runs on the data as it is now",
		nodes.ErrWarehouseDenied:   "the data source would not let me read what it needs",
		nodes.ErrInternal:          "something went wrong on my side",
	} {
		assert.Equal(t, want, failureWords(string(kind), 1), "%s", kind)
	}
	assert.Equal(t, "the query took too long, 3 tries", failureWords(string(nodes.ErrQueryTimeout), 3))
}
