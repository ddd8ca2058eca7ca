package bottest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// LogWatch is a slog.Handler that keeps the records a bot logs and tells
// the test when one whose message holds a given text first appears.
type LogWatch struct {
	want string
	seen chan struct{}

	mu   sync.Mutex
	recs []slog.Record
	once sync.Once
}

// NewLogWatch watches for a message holding want.
func NewLogWatch(want string) *LogWatch { return &LogWatch{want: want, seen: make(chan struct{})} }

// Seen is closed when a message holding the watched text is logged.
func (w *LogWatch) Seen() <-chan struct{} { return w.seen }

// Enabled keeps every level.
func (w *LogWatch) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs keeps the records without the attributes.
func (w *LogWatch) WithAttrs([]slog.Attr) slog.Handler { return w }

// WithGroup keeps the records without the group.
func (w *LogWatch) WithGroup(string) slog.Handler { return w }

// Handle keeps r.
func (w *LogWatch) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	w.recs = append(w.recs, r.Clone())
	w.mu.Unlock()
	if strings.Contains(r.Message, w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return nil
}

// Records are the records logged so far.
func (w *LogWatch) Records() []slog.Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]slog.Record(nil), w.recs...)
}

// Messages are the messages logged so far.
func (w *LogWatch) Messages() []string {
	var out []string
	for _, r := range w.Records() {
		out = append(out, r.Message)
	}
	return out
}
