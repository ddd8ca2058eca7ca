package llm

import (
	"context"
	"errors"
	"sync"
	"unicode"
)

// StreamFunc receives the text of a model reply as it arrives: step is the
// step of the call and chunk a non-empty piece of the reply. See [WithStream].
type StreamFunc func(step Step, chunk string)

type streamKey struct{}

// WithStream returns a context under which [Client.Complete] forwards the
// reply text of every call, whatever its step, to f chunk by chunk as the
// model produces it (langchaingo's llms.WithStreamingFunc); Complete still
// returns the whole reply. A nil f returns ctx unchanged.
//
// The chunks of one call reach f one at a time, never empty and never after
// Complete has returned. A failed attempt may already have sent some chunks:
// when it is retried, the next attempt's chunks start the reply again from
// its first character, so a caller that shows the text should replace it
// with the reply Complete returns. f runs on the call's goroutine and
// delays the call while it runs, so it should be quick. Calls that run in
// parallel under the same ctx call f in parallel too.
func WithStream(ctx context.Context, f StreamFunc) context.Context {
	if f == nil {
		return ctx
	}
	return context.WithValue(ctx, streamKey{}, f)
}

// streamFrom returns the StreamFunc ctx carries, or nil.
func streamFrom(ctx context.Context) StreamFunc {
	f, _ := ctx.Value(streamKey{}).(StreamFunc)
	return f
}

// errStreamClosed is returned to a provider that streams after its attempt
// returned, which stops it.
var errStreamClosed = errors.New("stream closed: the attempt has returned")

// attemptStream forwards one attempt's chunks to a StreamFunc until the
// attempt returns. Closing it, under the same lock as sending, is what
// guarantees that a provider goroutine outliving its attempt can neither mix
// stale text into the retry's nor call f after Complete returned.
type attemptStream struct {
	f    StreamFunc
	step Step

	mu     sync.Mutex
	closed bool
}

// send is the llms.WithStreamingFunc callback.
func (s *attemptStream) send(_ context.Context, chunk []byte) error {
	if len(chunk) == 0 { // role-only and usage-only deltas carry no text
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errStreamClosed
	}
	s.f(s.step, string(chunk))
	return nil
}

// close stops forwarding; it waits for a send in progress.
func (s *attemptStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
}

// wordChunks splits s into word-sized chunks that concatenate back to s:
// each chunk is a word and the whitespace after it, and whitespace before
// the first word joins the first chunk. The scripted model streams these.
func wordChunks(s string) []string {
	var chunks []string
	start, inWord, sawWord := 0, false, false
	for i, r := range s {
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord && sawWord { // a new word after whitespace: cut before it
			chunks = append(chunks, s[start:i])
			start = i
		}
		inWord, sawWord = true, true
	}
	if start < len(s) {
		chunks = append(chunks, s[start:])
	}
	return chunks
}
