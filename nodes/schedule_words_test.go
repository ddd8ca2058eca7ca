package nodes

import (
	"testing"

	"github.com/analyticsbot/analyticsbot/schedule"
)

// A restatement may change how a request says its place, never which
// channel it posts to.
func TestKeepPlace(t *testing.T) {
	t.Parallel()
	var (
		growthLink = schedule.Destination{Kind: schedule.DestChannel, Channel: "C0123ABC", Name: "growth"}
		growthName = schedule.Destination{Kind: schedule.DestChannel, Name: "growth"}
		sales      = schedule.Destination{Kind: schedule.DestChannel, Name: "sales"}
		dm         = schedule.Destination{Kind: schedule.DestDM}
		thread     = schedule.Destination{Kind: schedule.DestThread}
		here       = schedule.Destination{Kind: schedule.DestChannel}
	)
	tests := []struct {
		name            string
		first, restated schedule.Destination
		want            schedule.Destination
		ok              bool
	}{
		{"no place restated", growthLink, schedule.Destination{}, growthLink, true},
		{"same channel by name keeps the link's id", growthLink, growthName, growthLink, true},
		{"same channel by link", growthLink, growthLink, growthLink, true},
		{"same channel typed out", growthName, schedule.Destination{Kind: schedule.DestChannel, Name: "Growth"}, growthName, true},
		{"a DM instead", growthLink, dm, dm, true},
		{"this thread", dm, thread, thread, true},
		{"this channel", dm, here, here, true},
		{"another channel", growthLink, sales, sales, false},
		{"a channel the message did not name", dm, sales, sales, false},
		{"another channel's link", growthName, schedule.Destination{Kind: schedule.DestChannel, Channel: "C0999", Name: "growth"}, schedule.Destination{Kind: schedule.DestChannel, Channel: "C0999", Name: "growth"}, false},
	}
	for _, tt := range tests {
		got, ok := keepPlace(tt.first, tt.restated)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: keepPlace(%+v, %+v) = %+v, %v; want %+v, %v", tt.name, tt.first, tt.restated, got, ok, tt.want, tt.ok)
		}
	}
}
