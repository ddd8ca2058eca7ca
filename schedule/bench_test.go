package schedule

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkParseRequest reads a typical request.
func BenchmarkParseRequest(b *testing.B) {
	for b.Loop() {
		ParseRequest("every hour, alert me in #ops as csv when the count is above 1,000", time.UTC)
	}
}

// BenchmarkIsRequest classifies a typical data question, the router's
// common case.
func BenchmarkIsRequest(b *testing.B) {
	for b.Loop() {
		IsRequest("how many games were released every year since 2010, by genre?")
	}
}

// BenchmarkIsRequestLong classifies a message just under the length
// IsRequest reads, its worst case.
func BenchmarkIsRequestLong(b *testing.B) {
	text := strings.Repeat("which games have more than 100 reviews every monday at 9 ", 8)
	if len(text) > maxRequestLen {
		b.Fatalf("the message is %d bytes, longer than IsRequest reads", len(text))
	}
	for b.Loop() {
		IsRequest(text)
	}
}
