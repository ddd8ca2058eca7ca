package slackapp

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/analyticsbot/analyticsbot/slackapp/fakeslack"
)

// BenchmarkAck50Threads delivers a mention in each of 50 threads at once
// over Socket Mode, with a model that takes 100 ms per call, and measures
// how long the app takes to acknowledge each envelope (target p99 < 50 ms)
// and to show the first progress update. One iteration is one burst of 50
// answered threads.
func BenchmarkAck50Threads(b *testing.B) {
	const threads = 50
	h := start(b, withScript(slowDemoScript(100*time.Millisecond)))
	// Channels new to the shared database on every run, or the delivery
	// claims of an earlier run would drop the messages as duplicates.
	run := time.Now().UnixNano()
	var roundTrips []time.Duration
	jobs := int64(0)
	b.ResetTimer()
	for i := range b.N {
		sent := make(map[string]time.Time, threads)
		for th := range threads {
			ch := fmt.Sprintf("CB%x%03d", run, th)
			ts := fmt.Sprintf("17100%05d.%06d", i, th)
			ev := fakeslack.EventCallback("EvB"+ch+ts, fakeslack.AppMention(ch, user, "<@"+fakeslack.BotUserID+"> "+q2018, ts, ""))
			at := time.Now()
			sent[h.slack.Send(b, fakeslack.Envelope{Type: "events_api", Payload: ev})] = at
		}
		for id, at := range sent {
			roundTrips = append(roundTrips, h.slack.WaitAck(b, id).At.Sub(at))
		}
		jobs += threads
		h.waitJobs(jobs)
	}
	b.StopTimer()

	h.mu.Lock()
	acks, progress := slices.Clone(h.acks), slices.Clone(h.progress)
	h.mu.Unlock()
	report(b, "ack", acks)
	report(b, "ack-roundtrip", roundTrips)
	report(b, "first-progress", progress)
}

// report adds p50 and p99 of ds, in milliseconds, to the benchmark's line.
func report(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		b.Fatalf("no %s samples", name)
	}
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), name+"-p50-ms")
	b.ReportMetric(at(0.99), name+"-p99-ms")
}
