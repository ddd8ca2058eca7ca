package schedule

import (
	"math"
	"strings"
	"testing"
	"time"
)

// FuzzParseRequest checks that no message makes ParseRequest or IsRequest
// panic, and that a recurrence it reads is a spec ParseSpec accepts with a
// next run after the message's time, that a request is unread only with
// words left unread, that a threshold is a number, and that a zone read is
// the recurrence's and comes with nothing unclear.
func FuzzParseRequest(f *testing.F) {
	for _, seed := range []string{
		"send me this every Monday at 9",
		"post this to <#C0123ABC|growth> daily as CSV",
		"alert me when the count is above 1,000, checked every 15 minutes",
		"every weekday at 8:30am",
		"on the 15th of each month at 8",
		"tell me when it changes by more than 20%",
		"let me know when any row appears",
		"`0 9 * * 1`",
		"cron 0 25 * * *",
		"every Monday at 9 and Tuesday at 10",
		"every 7 minutes",
		"mon-fri at 12am",
		"*every* _sun_ at 23:59",
		"&gt;= 5k <@U1> <!here> <https://x.y|link>",
		"post this to #growth at the end of each week",
		"ping me about this every few minutes",
		"alert me when games is above 1e9",
		"alert me when games is above 1,5 or 1 000 000",
		"send me this every day at 2:30am in Europe/London",
		"every day at 9 UTC+2, GMT-05:30 or Etc/GMT+5",
		"every Monday at 9 New York time in Tokyo",
		"every day at 9am EST in america/new york time zone",
	} {
		f.Add(seed)
	}
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		f.Fatal(err)
	}
	// Just before the spring-forward gap and inside the autumn's repeated
	// hour, where Next corrects robfig.
	times := []time.Time{
		time.Date(2026, time.March, 8, 1, 59, 0, 0, loc),
		time.Date(2026, time.November, 1, 5, 45, 0, 0, time.UTC),
	}
	f.Fuzz(func(t *testing.T, text string) {
		IsRequest(text)
		req := ParseRequest(text, loc)
		if req.Unread && req.Ignored == "" {
			t.Fatalf("ParseRequest(%q): Unread with no words ignored", text)
		}
		if c := req.Condition; math.IsInf(c.Threshold, 0) || math.IsNaN(c.Threshold) {
			t.Fatalf("ParseRequest(%q): a threshold of %v", text, c.Threshold)
		}
		if req.Zone != nil && (strings.Contains(req.Unclear, "time zone") || req.HasWhen && req.When.Location != req.Zone) {
			t.Fatalf("ParseRequest(%q): zone %v with unclear %q and When in %v", text, req.Zone, req.Unclear, req.When.Location)
		}
		if !req.HasWhen {
			if req.When.Spec != "" {
				t.Fatalf("ParseRequest(%q): HasWhen false with Spec %q", text, req.When.Spec)
			}
			return
		}
		w, err := ParseSpec(req.When.Spec, loc)
		if err != nil {
			t.Fatalf("ParseRequest(%q).When.Spec %q: ParseSpec: %v", text, req.When.Spec, err)
		}
		for _, at := range times {
			if next := w.Next(at); !next.After(at) {
				t.Fatalf("ParseRequest(%q).When %q: Next(%v) = %v, want a later time", text, req.When.Spec, at, next)
			}
		}
		if req.When.Describe() == "" {
			t.Fatalf("ParseRequest(%q).When %q: Describe is empty", text, req.When.Spec)
		}
	})
}
