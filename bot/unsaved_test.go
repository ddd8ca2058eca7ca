package bot

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/store"
)

// While the database is away the bot keeps at most maxUnsaved records:
// past that the oldest goes, and the log says which reference is lost.
func TestUnsavedKeepsAtMost(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	u := newUnsaved(slog.New(slog.NewTextHandler(&buf, nil)))
	for i := range maxUnsaved + 1 {
		ref := ""
		if i == 0 {
			ref = "e-0000001f"
		}
		u.keep(store.TurnRecord{Log: store.QueryLog{ThreadID: "T1", ErrorRef: ref}})
	}
	if maxUnsaved != 1000 {
		t.Errorf("maxUnsaved is %d; docs/observability.md says up to 1,000", maxUnsaved)
	}
	if got := u.pending(); got != maxUnsaved {
		t.Errorf("pending: got %d, want %d", got, maxUnsaved)
	}
	if got := strings.Count(buf.String(), "turn record lost"); got != 1 {
		t.Errorf("lost records logged: got %d, want 1:\n%s", got, buf.String())
	}
	if !strings.Contains(buf.String(), "ref=e-0000001f") {
		t.Errorf("the lost record's reference is not in the log:\n%s", buf.String())
	}
}

// docs/observability.md: kept records are written by a retry in the
// background "after 1 s, doubling up to a minute". The waits are read off
// the functions run uses, not timed.
func TestUnsavedRetryWaits(t *testing.T) {
	t.Parallel()
	s := time.Second
	got := []time.Duration{firstUnsavedRetry}
	for len(got) < 8 {
		got = append(got, nextUnsavedRetry(got[len(got)-1]))
	}
	assert.Equal(t, []time.Duration{s, 2 * s, 4 * s, 8 * s, 16 * s, 32 * s, time.Minute, time.Minute}, got,
		"the waits between tries while the database stays away")
}
