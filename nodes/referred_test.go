package nodes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/store"
)

// Every action finds the answer it refers to one way: the pressed one,
// else the one the message's words name, else the latest; and says so
// when there is none.
func TestReferredAnswer(t *testing.T) {
	t.Parallel()
	n, _ := newNodes(t, nil)
	ctx := context.Background()

	// A thread of three answers; the second asked in a follow-up's words
	// and cached under its resolved question.
	thread := threadID(t)
	addTurn(t, thread, valveQuestion, valveSQL)
	addTurn(t, thread, "And the RPGs?", priceSQL)
	require.NoError(t, n.Cache.Put(ctx, store.CachedResult{ThreadID: thread, QueryID: pgID(priceSQL),
		Query: pgQuery(priceSQL), Question: priceQuestion, Result: oneCell("cached")}))
	addTurn(t, thread, freeQuestion, freeSQL)

	for _, tt := range []struct {
		name     string
		pressed  string
		l        lookup
		question string // of the answer found
	}{
		{"the latest", "", lookup{none: "no result"}, freeQuestion},
		{"the pressed one", pgID(valveSQL), lookup{none: "no result"}, valveQuestion},
		{"the pressed one as typed", pgID(priceSQL), lookup{none: "no query"}, "And the RPGs?"},
		{"the pressed one as resolved in the cache", pgID(priceSQL), lookup{cached: true, none: "no query"}, priceQuestion},
		{"a turn that is no longer cached, as typed", pgID(valveSQL), lookup{cached: true, none: "no query"}, valveQuestion},
		{"by the message's words", "", lookup{keywords: []string{"valve"}, none: "no query"}, valveQuestion},
		{"the latest when no words match", "", lookup{keywords: []string{"zebra"}, none: "no query"}, freeQuestion},
		{"a press before the words", pgID(freeSQL), lookup{keywords: []string{"valve"}, none: "no query"}, freeQuestion},
		{"a press when only a press will do", pgID(valveSQL), lookup{pressOnly: true, none: "no query"}, valveQuestion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &State{ThreadTS: thread, UserID: "U1", ChannelID: "C1", ReferencedQueryID: tt.pressed}
			turn, ok := n.referredAnswer(ctx, s, tt.l)
			require.True(t, ok, "found: %s %s", s.ErrorKind, s.ErrorDetail)
			assert.Empty(t, s.ErrorKind)
			assert.Equal(t, tt.question, turn.UserMessage)
		})
	}

	empty := threadID(t)
	for _, tt := range []struct {
		name, thread, pressed string
		l                     lookup
		detail                string
	}{
		{"a thread with no answer", empty, "", lookup{none: "nothing to schedule"}, "nothing to schedule in thread " + empty},
		{"a press the thread does not have", thread, "deadbeef", lookup{none: "no result"}, "no result in thread " + thread},
		{"no press when only a press will do", thread, "", lookup{pressOnly: true, none: "no query "}, "no query  in thread " + thread},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &State{ThreadTS: tt.thread, UserID: "U1", ChannelID: "C1", ReferencedQueryID: tt.pressed}
			_, ok := n.referredAnswer(ctx, s, tt.l)
			assert.False(t, ok)
			assert.Equal(t, ErrNoPreviousQuery, s.ErrorKind)
			assert.Equal(t, tt.detail, s.ErrorDetail)
		})
	}
}
