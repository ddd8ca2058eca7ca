package bot

import (
	"context"
	"errors"
	"time"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// queryLogTimeout bounds writing a turn's log: the reply waits for it, and
// a log is not worth keeping a user waiting on a struggling database.
const queryLogTimeout = 2 * time.Second

// Error kinds of runs that stopped without a node recording why; the
// workflow's own kinds are in package nodes.
const (
	errKindCanceled   = "canceled"
	errKindIncomplete = string(nodes.ErrInternal)
)

// logTurn writes the turn that just ended to chat_query_logs. A failure is
// logged, never returned: the user's answer does not depend on it.
func (b *Bot) logTurn(ctx context.Context, s *nodes.State, res workflow.Result) {
	l := queryLogOf(s, res, b.cfg.Backend)
	l.ErrorKind = turnErrorKind(ctx, s, res)
	// A turn cut short by the caller's cancel is one worth logging, so the
	// insert outlives ctx.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryLogTimeout)
	defer cancel()
	if _, err := b.db.AddQueryLog(ctx, l); err != nil {
		b.log.WarnContext(ctx, "log turn", "thread", s.ThreadTS, "err", err)
	}
}

// queryLogOf builds the log row of a turn from its final state and trace;
// the error kind is left to turnErrorKind.
func queryLogOf(s *nodes.State, res workflow.Result, backend string) store.QueryLog {
	if backend == "" {
		backend = "sql"
	}
	total := res.Total
	if !s.Started.IsZero() {
		// From the message's arrival: loading the history counts too.
		total = time.Since(s.Started)
	}
	nodeTime := make(map[string]time.Duration, len(res.Steps))
	for _, st := range res.Steps {
		nodeTime[st.Node] += st.Duration
	}
	return store.QueryLog{
		Question: s.UserQuery, ThreadID: s.ThreadTS, UserID: s.UserID, ChannelID: s.ChannelID,
		Intent: string(s.Intent), Path: res.Path(),
		ModelCalls: s.LLMCalls, PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens,
		RowCount: s.Result.RowCount, ResponseChars: utf8.RuneCountInString(s.ResponseText),
		Backend: backend, ModelTime: s.LLMTime, DBTime: s.DBTime, Total: total, NodeTime: nodeTime,
	}
}

// turnErrorKind is the error kind a node recorded; for a run that stopped
// before the end without one (a canceled context, a node's error or panic,
// the step cap) it is "canceled" or "internal", so no failed turn is
// counted as answered.
func turnErrorKind(ctx context.Context, s *nodes.State, res workflow.Result) string {
	if errors.Is(ctx.Err(), context.Canceled) {
		// The caller gave up (a closed web connection, a shutdown): the
		// internal error a node recorded on the way out says nothing more.
		return errKindCanceled
	}
	if s.ErrorKind != "" {
		return string(s.ErrorKind)
	}
	n := len(res.Steps)
	if n > 0 {
		last := res.Steps[n-1]
		switch {
		case last.Outcome == workflow.OutcomeCanceled:
			return errKindCanceled
		case last.Outcome == workflow.OutcomeOK && last.Node == nodes.NodeSaveTurn:
			// save_turn is the only node before the end.
			return ""
		}
	}
	if ctx.Err() != nil {
		return errKindCanceled
	}
	return errKindIncomplete
}
