package nodes

import (
	"context"

	"github.com/analyticsbot/analyticsbot/store"
)

// SaveTurn stores the question and the reply in the thread's history. A
// failure here must not cost the user the answer, so it is logged and
// noted, not returned.
func (n *Nodes) SaveTurn(ctx context.Context, s *State) error {
	if s.ErrorKind == ErrEmptyMessage {
		return nil // nothing worth remembering
	}
	// Only SQL that ran is worth finding again for show SQL or an export.
	sql := s.SQL
	if s.QueryID == "" {
		sql = ""
	}
	bot := s.ResponseText
	if s.Answer != "" {
		bot = s.Answer
	}
	_, err := n.DB.AddTurn(ctx, store.Turn{
		ThreadID:    s.ThreadTS,
		UserID:      s.UserID,
		ChannelID:   s.ChannelID,
		UserMessage: s.UserQuery,
		BotResponse: bot,
		Intent:      string(s.Intent),
		SQL:         sql,
		QueryID:     s.QueryID,
	})
	if err != nil {
		s.note("saving the turn failed: " + err.Error())
		n.Logger.ErrorContext(ctx, "save turn", "thread", s.ThreadTS, "err", err)
	}
	return nil
}
