// Package feedback keeps what people say of answers: their 👍 and 👎 and
// the notes on a 👎, the candidate examples a 👍 proposes (verified after
// enough people's 👍), and the verified examples admins make. It calls no
// model and words nothing: the nodes that use it (nodes/feedback.go) tell
// people what happened.
package feedback

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/analyticsbot/analyticsbot/store"
)

// Store is what feedback keeps its records in; *store.DB implements it.
type Store interface {
	TurnByQueryID(ctx context.Context, threadID, queryID string) (store.Turn, error)
	RecordFeedback(ctx context.Context, f store.Feedback) (store.Feedback, bool, error)
	NoteFeedback(ctx context.Context, threadID, queryID, userID, note string) (store.Feedback, error)
	ProposeExample(ctx context.Context, feedbackID int64, e store.Example) (store.Example, bool, error)
	ExampleUpvoters(ctx context.Context, exampleID int64) (int, error)
	WithdrawCandidate(ctx context.Context, exampleID int64) (bool, error)
	AddExample(ctx context.Context, e store.Example) (store.Example, bool, error)
	SetExampleStatus(ctx context.Context, id int64, status, by string) (store.Example, error)
}

// Book records ratings, notes and verified examples for one backend.
type Book struct {
	DB Store
	// Backend names the backend answers come from: only its queries
	// become examples.
	Backend string
	// Fingerprint is the backend's query fingerprint
	// (warehouse.Dialect.Fingerprint); nil: its queries never become
	// examples.
	Fingerprint func(query string) (string, error)
	// FingerprintForm names Fingerprint's form
	// (warehouse.Dialect.FingerprintForm), stored with each example.
	FingerprintForm string
	// AutoVerify verifies a candidate example after this many different
	// users' 👍 (EXAMPLES_AUTO_VERIFY); 0: never.
	AutoVerify int
	// Admins may verify queries (EXAMPLE_ADMINS).
	Admins []string
}

// Errors of the Book's records, for the words the nodes choose.
var (
	// ErrNoAnswer: the thread has no answer with that query id.
	ErrNoAnswer = errors.New("no such answer in the thread")
	// ErrNoDownvote: the user has no 👎 in the thread to add a note to.
	ErrNoDownvote = errors.New("no 👎 to add a note to")
	// ErrNotAdmin: the user may not verify queries.
	ErrNotAdmin = errors.New("not an example admin")
	// ErrOtherBackend: the answer's query is not the backend's (or cannot
	// be fingerprinted), so it cannot be an example.
	ErrOtherBackend = errors.New("the query is another backend's")
)

// Rating is a 👍 or 👎 of UserID on the answer QueryID of ThreadID, with an
// optional note.
type Rating struct {
	ThreadID, QueryID, UserID, ChannelID string
	// Rating is store.RatingUp or store.RatingDown.
	Rating int
	Note   string
}

// Rated is what a rating did.
type Rated struct {
	// Turn is the rated answer.
	Turn store.Turn
	// Feedback is the rating as stored; Changed is false when the user
	// had given the same already.
	Feedback store.Feedback
	Changed  bool
	// Example is the example a 👍 proposed or found (zero when none), and
	// Unpromoted why it could not be made one; the rating stands anyway.
	Example    store.Example
	Unpromoted error
	// Withdrawn: the 👎 replaced the last 👍 of a candidate example, which
	// is no longer shown; Unwithdrawn why it could not be (the rating
	// stands anyway).
	Withdrawn   bool
	Unwithdrawn error
}

// Rate records r. A 👍 makes the answer's question and query a candidate
// example (an existing example, of any status, is kept as it is), verified
// once AutoVerify users have given it a 👍; a 👎 that replaces a 👍
// withdraws it, and a candidate no 👍 stands on any more is deleted (a
// verified or rejected one stays). ErrNoAnswer when the thread has no such
// answer; other errors are the store's.
func (b *Book) Rate(ctx context.Context, r Rating) (Rated, error) {
	turn, err := b.answer(ctx, r.ThreadID, r.QueryID)
	if err != nil {
		return Rated{}, err
	}
	f, changed, err := b.DB.RecordFeedback(ctx, store.Feedback{ThreadID: r.ThreadID, QueryID: r.QueryID, UserID: r.UserID,
		ChannelID: r.ChannelID, Rating: r.Rating, Note: r.Note, Question: questionOf(turn)})
	if err != nil {
		return Rated{}, fmt.Errorf("record feedback: %w", err)
	}
	out := Rated{Turn: turn, Feedback: f, Changed: changed}
	switch {
	case changed && r.Rating == store.RatingUp:
		out.Example, out.Unpromoted = b.promote(ctx, f, turn)
	case changed && f.ExampleID != 0:
		// Only a 👍 links an example: this 👎 replaced one.
		out.Withdrawn, out.Unwithdrawn = b.DB.WithdrawCandidate(ctx, f.ExampleID)
	}
	return out, nil
}

// promote makes the 👍'd answer's question and query a candidate example
// and links the feedback to it; after AutoVerify different users' 👍 the
// candidate is verified.
func (b *Book) promote(ctx context.Context, f store.Feedback, turn store.Turn) (store.Example, error) {
	if b.Fingerprint == nil || turn.Query.Backend != b.Backend {
		return store.Example{}, nil
	}
	fp, err := b.Fingerprint(turn.Query.Text)
	if err != nil {
		return store.Example{}, fmt.Errorf("fingerprint: %w", err)
	}
	// Found and linked at once: another user's 👎 withdrawing the same
	// candidate waits for the link, and then keeps it.
	e, _, err := b.DB.ProposeExample(ctx, f.ID, store.Example{Backend: b.Backend, Question: f.Question, Query: turn.Query.Text,
		Fingerprint: fp, FingerprintForm: b.FingerprintForm, Source: store.SourceFeedback, Status: store.StatusCandidate, ProposedBy: f.UserID})
	if err != nil || e.ID == 0 {
		return store.Example{}, err // e.ID 0: the 👍 was changed meanwhile
	}
	if n := b.AutoVerify; n > 0 && e.Status == store.StatusCandidate {
		users, err := b.DB.ExampleUpvoters(ctx, e.ID)
		if err != nil {
			return e, err
		}
		if users >= n {
			return b.DB.SetExampleStatus(ctx, e.ID, store.StatusVerified, fmt.Sprintf("%d users' 👍", users))
		}
	}
	return e, nil
}

// Note adds note to userID's 👎 on queryID in threadID (the latest 👎 when
// queryID is empty): ErrNoDownvote when there is none.
func (b *Book) Note(ctx context.Context, threadID, queryID, userID, note string) (store.Feedback, error) {
	f, err := b.DB.NoteFeedback(ctx, threadID, queryID, userID, note)
	if errors.Is(err, store.ErrNotFound) {
		return f, ErrNoDownvote
	}
	return f, err
}

// Verify makes the query of the answer queryID in threadID a verified
// example, for an admin: ErrNotAdmin, ErrNoAnswer or ErrOtherBackend
// otherwise.
func (b *Book) Verify(ctx context.Context, threadID, queryID, userID string) (store.Turn, error) {
	if !b.IsAdmin(userID) {
		return store.Turn{}, ErrNotAdmin
	}
	turn, err := b.answer(ctx, threadID, queryID)
	if err != nil {
		return turn, err
	}
	if b.Fingerprint == nil || turn.Query.Backend != b.Backend {
		return turn, ErrOtherBackend
	}
	fp, err := b.Fingerprint(turn.Query.Text)
	if err != nil {
		return turn, fmt.Errorf("%w: %v", ErrOtherBackend, err)
	}
	e, added, err := b.DB.AddExample(ctx, store.Example{Backend: b.Backend, Question: questionOf(turn), Query: turn.Query.Text,
		Fingerprint: fp, FingerprintForm: b.FingerprintForm, Source: store.SourceAdmin, Status: store.StatusVerified, ProposedBy: userID, VerifiedBy: userID})
	if err == nil && !added && e.Status != store.StatusVerified {
		_, err = b.DB.SetExampleStatus(ctx, e.ID, store.StatusVerified, userID)
	}
	if err != nil {
		return turn, fmt.Errorf("verify example: %w", err)
	}
	return turn, nil
}

// IsAdmin reports whether user may verify queries.
func (b *Book) IsAdmin(user string) bool {
	return user != "" && slices.Contains(b.Admins, user)
}

// answer finds the rated answer.
func (b *Book) answer(ctx context.Context, threadID, queryID string) (store.Turn, error) {
	turn, err := b.DB.TurnByQueryID(ctx, threadID, queryID)
	if errors.Is(err, store.ErrNotFound) {
		return turn, ErrNoAnswer
	}
	if err != nil {
		return turn, fmt.Errorf("find the answer: %w", err)
	}
	return turn, nil
}

// questionOf is the question an answer answered: the resolved one, else
// what was typed.
func questionOf(turn store.Turn) string {
	if turn.Question != "" {
		return turn.Question
	}
	return turn.UserMessage
}
