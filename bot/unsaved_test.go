package bot

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

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
