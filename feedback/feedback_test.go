package feedback_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/analyticsbot/analyticsbot/feedback"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/store/storetest"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

const (
	thread  = "local-feedback"
	queryID = "0badc0de"
	query   = "SELECT count(*) AS games FROM analytics.apps WHERE release_year = 2018"
)

// fingerprint stands for a backend's: the query's words, lower case.
func fingerprint(q string) (string, error) {
	return strings.ToLower(strings.Join(strings.Fields(q), " ")), nil
}

// book returns a book on a fresh database holding one answer, queryID, in
// thread, written for backend.
func book(t *testing.T, backend string) *feedback.Book {
	t.Helper()
	db := storetest.New(t)
	_, err := db.AddTurn(context.Background(), store.Turn{ThreadID: thread, UserID: "U1", ChannelID: "C1",
		UserMessage: "And in 2018?", Question: "How many games were released in 2018?", BotResponse: "8,160",
		Intent: "follow_up", Query: warehouse.Query{Backend: backend, Text: query}, QueryID: queryID})
	if err != nil {
		t.Fatal(err)
	}
	return &feedback.Book{DB: db, Backend: "sql", Fingerprint: fingerprint, AutoVerify: 2, Admins: []string{"UADMIN"}}
}

func up(user string) feedback.Rating {
	return feedback.Rating{ThreadID: thread, QueryID: queryID, UserID: user, ChannelID: "C1", Rating: store.RatingUp}
}

// TestRateProposesAndVerifies: a 👍 proposes the answer's question and
// query as a candidate example, the same 👍 again changes nothing, and a
// second person's 👍 verifies it (AutoVerify 2).
func TestRateProposesAndVerifies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := book(t, "sql")

	r, err := b.Rate(ctx, up("U1"))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Changed || r.Example.ID == 0 || r.Example.Status != store.StatusCandidate {
		t.Fatalf("first 👍: changed %v, example %d %q; want a new candidate", r.Changed, r.Example.ID, r.Example.Status)
	}
	if got, want := r.Example.Question, "How many games were released in 2018?"; got != want {
		t.Errorf("example question = %q, want the resolved question %q", got, want)
	}
	if r, err = b.Rate(ctx, up("U1")); err != nil || r.Changed {
		t.Errorf("same 👍 again: changed %v, err %v; want nothing changed", r.Changed, err)
	}
	if r, err = b.Rate(ctx, up("U2")); err != nil || r.Example.Status != store.StatusVerified {
		t.Errorf("second person's 👍: example %q, err %v; want verified", r.Example.Status, err)
	}
}

// TestRateOtherBackend: an answer written for another backend is rated,
// never proposed.
func TestRateOtherBackend(t *testing.T) {
	t.Parallel()
	r, err := book(t, "cube").Rate(context.Background(), up("U1"))
	if err != nil || !r.Changed || r.Example.ID != 0 {
		t.Errorf("👍 on another backend's answer: changed %v, example %d, err %v; want rated, no example", r.Changed, r.Example.ID, err)
	}
}

// TestRefusals: what the book refuses, by error.
func TestRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := book(t, "sql")
	other := book(t, "cube")
	tests := []struct {
		name string
		do   func() error
		want error
	}{
		{"rate an answer the thread lacks", func() error {
			_, err := b.Rate(ctx, feedback.Rating{ThreadID: thread, QueryID: "12345678", UserID: "U1", Rating: store.RatingDown})
			return err
		}, feedback.ErrNoAnswer},
		{"note without a 👎", func() error { _, err := b.Note(ctx, thread, "", "U1", "wrong year"); return err }, feedback.ErrNoDownvote},
		{"verify, not an admin", func() error { _, err := b.Verify(ctx, thread, queryID, "U1"); return err }, feedback.ErrNotAdmin},
		{"verify another backend's query", func() error { _, err := other.Verify(ctx, thread, queryID, "UADMIN"); return err }, feedback.ErrOtherBackend},
		{"verify an answer the thread lacks", func() error { _, err := b.Verify(ctx, thread, "12345678", "UADMIN"); return err }, feedback.ErrNoAnswer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// TestNoteAndVerify: a note goes on the user's 👎; an admin's Verify makes
// the query a verified example.
func TestNoteAndVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := book(t, "sql")
	if _, err := b.Rate(ctx, feedback.Rating{ThreadID: thread, QueryID: queryID, UserID: "U1", Rating: store.RatingDown}); err != nil {
		t.Fatal(err)
	}
	f, err := b.Note(ctx, thread, "", "U1", "wrong year")
	if err != nil || f.Note != "wrong year" || f.QueryID != queryID {
		t.Errorf("note: %+v, %v; want \"wrong year\" on %s", f, err, queryID)
	}
	turn, err := b.Verify(ctx, thread, queryID, "UADMIN")
	if err != nil || turn.QueryID != queryID {
		t.Fatalf("verify: turn %q, %v", turn.QueryID, err)
	}
	r, err := b.Rate(ctx, up("U2"))
	if err != nil || r.Example.Status != store.StatusVerified {
		t.Errorf("👍 after Verify: example %q, err %v; want the verified example", r.Example.Status, err)
	}
}
