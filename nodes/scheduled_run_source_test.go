package nodes

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/analyticsbot/analyticsbot/store"
)

// A run shows what the answer it repeats assumed only to people who saw
// that answer: a channel the answer was not posted in may have a ceiling
// the answer was not held to.
func TestSawSource(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sch  store.Schedule
		want bool
	}{
		{"the owner's direct message", store.Schedule{Surface: SurfaceSlack, DestKind: "dm", SourceChannel: "C1", SourceThread: "C1:1.0"}, true},
		{"the channel it was answered in", store.Schedule{Surface: SurfaceSlack, DestKind: "channel", DestChannel: "C1", SourceChannel: "C1", SourceThread: "C1:1.0"}, true},
		{"its thread", store.Schedule{Surface: SurfaceSlack, DestKind: "thread", DestChannel: "C1", SourceChannel: "C1", SourceThread: "C1:1.0"}, true},
		{"another channel", store.Schedule{Surface: SurfaceSlack, DestKind: "channel", DestChannel: "C2", SourceChannel: "C1", SourceThread: "C1:1.0"}, false},
		{"a channel, from a DM", store.Schedule{Surface: SurfaceSlack, DestKind: "channel", DestChannel: "C2", SourceChannel: "D1", SourceThread: "D1:1.0"}, false},
		{"the channel, from an answer for its asker alone", store.Schedule{Surface: SurfaceSlack, DestKind: "channel", DestChannel: "C1",
			SourceChannel: "C1", SourceThread: PrivateThread("C1", "UANA")}, false},
		{"the web chat", store.Schedule{Surface: SurfaceWeb, DestKind: "thread", DestChannel: "web", SourceChannel: "web", SourceThread: "w-1"}, true},
	} {
		assert.Equal(t, tt.want, sawSource(tt.sch), tt.name)
	}
}
