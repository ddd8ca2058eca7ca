package nodes

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// SaveTurn decides what the thread's history keeps of the run: the
// question and the reply (s.Keep). A reply its asker alone sees is kept in
// their private thread (KeptIn), and the channel's thread keeps the
// question with the note the channel read. Whoever runs the workflow
// writes them with the run's query log in one transaction (bot.Bot), so a
// crash never keeps a turn without its log; it notes a failure, which
// never costs the user the answer.
func (n *Nodes) SaveTurn(_ context.Context, s *State) error {
	if s.ErrorKind == ErrEmptyMessage {
		return nil // nothing worth remembering
	}
	if s.Intent == IntentScheduledRun {
		// Its thread is known only once it is posted: the scheduler keeps
		// the turn then (package scheduler), and none when nothing was sent.
		return nil
	}
	// Only the turn that asked a question keeps its query: that is what
	// show SQL and exports find again, with the question that produced it.
	// A button's turn only points at it.
	query, queryID, question := s.Query, s.QueryID, s.Question()
	if s.ErrorKind != "" || s.Intent == IntentExportCSV || s.Intent == IntentShowSQL {
		query, queryID, question = warehouse.Query{}, "", ""
	}
	bot := s.ResponseText
	if s.Answer != "" {
		bot = s.Answer
	}
	var reply []byte
	if s.Reply != nil {
		var err error
		if reply, err = answer.Marshal(s.Reply); err != nil {
			// Only a later re-rendering needs it; the turn is kept.
			s.note("the reply could not be kept: " + err.Error())
		}
	}
	intent := s.Intent
	if s.Clarification != nil && s.ErrorKind == "" {
		intent = IntentAskBack
	}
	turns := []store.Turn{{
		ThreadID:    s.KeptIn(),
		UserID:      s.UserID,
		ChannelID:   s.ChannelID,
		UserMessage: n.storedMessage(s.UserQuery),
		BotResponse: bot,
		Intent:      string(intent),
		Query:       query,
		QueryID:     queryID,
		Question:    question,
		Reply:       reply,
	}}
	if turns[0].ThreadID != s.ThreadTS {
		note := PrivateNote(s)
		kept, _ := answer.Marshal(note) // a notice of text alone marshals
		turns = append(turns, store.Turn{ThreadID: s.ThreadTS, UserID: s.UserID, ChannelID: s.ChannelID,
			UserMessage: s.UserQuery, BotResponse: note.Plain(), Intent: string(s.Intent), Reply: kept})
	}
	s.Keep = turns
	return nil
}

// storedMessage is what a turn keeps of the user's message: at most the
// MaxMessageLen characters the bot reads, so a message refused as too long
// is not kept whole either. A cut message says so.
func (n *Nodes) storedMessage(text string) string {
	total := utf8.RuneCountInString(text)
	if total <= n.MaxMessageLen {
		return text
	}
	end := 0
	for range n.MaxMessageLen {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	return text[:end] + fmt.Sprintf(" … [cut: the message had %d characters; the first %d are kept]", total, n.MaxMessageLen)
}
