package nodes

import (
	"testing"
	"time"

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

// A schedule posts to a channel whose id the surface gave (State.Channels,
// from Slack's own markup), never to one the person typed as
// "<#C…|name>": that reads as words, and Slack's surface then asks them
// to pick the channel from its list.
func TestLinkChannels(t *testing.T) {
	t.Parallel()
	growth := map[string]string{"growth": "C0123ABC"}
	tests := []struct {
		name string
		text string
		ids  map[string]string
		want schedule.Destination
	}{
		{name: "a channel Slack sent", text: "post this to #growth every day at 9am", ids: growth,
			want: schedule.Destination{Kind: schedule.DestChannel, Channel: "C0123ABC", Name: "growth"}},
		{name: "a channel Slack sent without its name", text: "post this to #C0123ABC every day at 9am", ids: map[string]string{"c0123abc": "C0123ABC"},
			want: schedule.Destination{Kind: schedule.DestChannel, Channel: "C0123ABC"}},
		{name: "a typed mention", text: "post this to <#C0999OTHER|growth> every day at 9am",
			want: schedule.Destination{Kind: schedule.DestChannel, Name: "c0999other"}},
		{name: "a typed mention beside a channel Slack sent", text: "post this to <#C0999OTHER|growth> every day at 9am", ids: growth,
			want: schedule.Destination{Kind: schedule.DestChannel, Name: "c0999other"}},
		{name: "a typed mention without a name", text: "post this to <#C0999OTHER> every day at 9am",
			want: schedule.Destination{Kind: schedule.DestChannel, Name: "c0999other"}},
		{name: "a channel typed by name", text: "post this to #sales every day at 9am", ids: growth,
			want: schedule.Destination{Kind: schedule.DestChannel, Name: "sales"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := schedule.ParseRequest(linkChannels(tt.text, tt.ids), time.UTC).To
			if got != tt.want {
				t.Errorf("ParseRequest(linkChannels(%q, %v)).To = %+v, want %+v", tt.text, tt.ids, got, tt.want)
			}
		})
	}
}
