package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
)

// ErrNoThread is returned for a thread the person may not read or
// continue: one the bot did not issue, or issued to someone else. Front
// ends answer it exactly as they answer an unknown thread (the web API: a
// 404), so it says nothing about whether the thread exists. Nothing of the
// refused request is saved and no model is called.
var ErrNoThread = errors.New("no such thread")

// ownedThreads reports whether the threads of channel's surface belong to
// whoever started them: the web chat's (and its API's) and the MCP
// server's. Slack threads are
// the channel's, whose rules say who reads them; the operator's command
// line (terminal, cli, eval) keeps its own local ids.
func ownedThreads(channel string) bool {
	surface := nodes.SurfaceOf(channel)
	return surface == nodes.SurfaceWeb || surface == nodes.SurfaceMCP
}

// StartThread returns m in a new conversation: it issues the id of a
// thread for m's surface and, on a surface whose threads belong to their
// askers (the web chat), records m.UserID as its owner: only they may read
// or continue it. Ids are "<surface>-" and 32 hex digits ("web-3f0c…"),
// 128 random bits, so unguessable; elsewhere it is NewThreadID. The
// message returned vouches for its owner: asking with it (unchanged user
// and thread) costs no second look at the database to check whose the
// thread is.
func (b *Bot) StartThread(ctx context.Context, m Message) (Message, error) {
	if !ownedThreads(m.ChannelID) {
		m.ThreadID = NewThreadID()
		return m, nil
	}
	var r [16]byte
	_, _ = rand.Read(r[:]) // crypto/rand never fails on Linux
	id := nodes.SurfaceOf(m.ChannelID) + "-" + hex.EncodeToString(r[:])
	if err := b.db.AddThread(ctx, id, m.UserID); err != nil {
		return m, fmt.Errorf("start a thread: %w", err)
	}
	m.ThreadID, m.started = id, &startedThread{id: id, owner: m.UserID}
	m.started.empty.Store(true)
	return m, nil
}

// startedThread is a thread StartThread began and recorded.
type startedThread struct {
	id, owner string
	// empty says no question was asked in it yet. Its id is known to
	// nobody else until the first answer gives it (the web's message_end),
	// so until then no turn can have been written to it.
	empty atomic.Bool
}

// vouches reports whether StartThread began m's thread for m's user.
func (m Message) vouches() bool {
	return m.started != nil && m.started.id == m.ThreadID && m.started.owner == m.UserID
}

// startedEmpty reports, once, that m's thread was begun for m and has no
// turns: the first question asked with m (or a copy) need not load its
// history; later ones do.
func (m Message) startedEmpty() bool {
	return m.vouches() && m.started.empty.CompareAndSwap(true, false)
}

// CheckThread returns ErrNoThread unless m.UserID may read and continue
// m's thread: on the web chat, a thread StartThread issued to them. Other
// errors are the bot's database failing. Ask, Press, Rate, Note, Verify,
// ManageSchedule and Thread check by themselves; a front end checks first
// when it would otherwise start answering (the web stream waits in the
// thread's queue before Ask).
func (b *Bot) CheckThread(ctx context.Context, m Message) error {
	if !ownedThreads(m.ChannelID) {
		return nil
	}
	if m.ThreadID == "" {
		return ErrNoThread
	}
	if m.vouches() {
		// StartThread recorded them as its owner (an owner never changes).
		return nil
	}
	owner, err := b.db.ThreadOwner(ctx, m.ThreadID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ErrNoThread
	case err != nil:
		return fmt.Errorf("check thread: %w", err)
	case owner != m.UserID:
		b.log.WarnContext(ctx, "thread refused: another identity's", "thread", m.ThreadID, "user", m.UserID)
		return ErrNoThread
	}
	return nil
}

// threadTurns returns the last limit turns of m's thread with their
// replies, oldest first: ErrNoThread unless CheckThread lets m.UserID read
// it.
func (b *Bot) threadTurns(ctx context.Context, m Message, limit int) ([]store.Turn, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, err
	}
	turns, err := b.db.ThreadReplies(ctx, m.ThreadID, limit)
	if err != nil {
		return nil, fmt.Errorf("load thread: %w", err)
	}
	return turns, nil
}

// askThread is m with its thread checked for Ask: a message without one,
// on a surface whose threads belong to their askers, starts one.
func (b *Bot) askThread(ctx context.Context, m Message) (Message, error) {
	if m.ThreadID == "" && ownedThreads(m.ChannelID) {
		return b.StartThread(ctx, m)
	}
	return m, b.CheckThread(ctx, m)
}

// firstTurnWait is how long after a Slack thread's first question was
// taken a later message of the thread waits for that question's turn
// (AwaitFirstTurn): longer than answering takes, short enough that a
// question whose answer was lost (a process killed mid-answer) does not
// hold its thread long.
const firstTurnWait = 2 * time.Minute

// firstTurnPoll is how often AwaitFirstTurn looks for the first turn.
const firstTurnPoll = 250 * time.Millisecond

// AskedInThread records that userID asked the bot in the Slack thread, as
// the question is taken and before it is answered, so a reply in the
// thread is known to every process sharing the database (KnowsThread)
// while no turn of it is saved yet. It reports whether the question is the
// thread's first.
func (b *Bot) AskedInThread(ctx context.Context, threadID, userID string) (first bool, err error) {
	return b.db.AskedIn(ctx, threadID, userID)
}

// AnsweredInThread records that the thread's first question, which
// AskedInThread reported first, was answered, whatever its outcome: later
// messages of the thread stop waiting for it (AwaitFirstTurn) though its
// path saved no turn.
func (b *Bot) AnsweredInThread(ctx context.Context, threadID string) error {
	return b.db.FirstAnswered(ctx, threadID)
}

// AwaitFirstTurn waits while the first question of the thread, taken by
// this process or another less than firstTurnWait ago, is not answered
// (AnsweredInThread) and has no saved turn: a message that follows it up
// then reads its answer in the thread's history. It reports whether it waited. A failed look-up, or ctx's end,
// ends the wait: the message is answered with what is saved.
func (b *Bot) AwaitFirstTurn(ctx context.Context, threadID string) bool {
	waited := false
	for {
		pending, err := b.db.FirstTurnPending(ctx, threadID, firstTurnWait)
		if err != nil {
			if ctx.Err() == nil {
				b.log.WarnContext(ctx, "first turn of the thread: not waiting for it", "thread", threadID, "err", err)
			}
			return waited
		}
		if !pending {
			return waited
		}
		waited = true
		select {
		case <-ctx.Done():
			return waited
		case <-time.After(firstTurnPoll):
		}
	}
}
