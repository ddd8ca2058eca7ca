package scheduler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
