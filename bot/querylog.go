package bot

import (
	"context"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// queryLogTimeout bounds writing a turn's log: the reply waits for it, and
// a log is not worth keeping a user waiting on a struggling database.
const queryLogTimeout = 2 * time.Second

// logTurn writes the turn that just ended to chat_query_logs. A failure is
// logged, never returned: the user's answer does not depend on it.
func (b *Bot) logTurn(ctx context.Context, s *nodes.State, res workflow.Result) {
	l := queryLogOf(s, res, b.backend.Name())
	if outcome := nodes.Outcome(ctx, s, res); outcome != nodes.OutcomeOK {
		l.ErrorKind = outcome
		l.ErrorRef, l.ErrorDetail = s.ErrorRef, s.ErrorDetail
		// The operator's side of "(Reference e-…)": what went wrong, in
		// the log; the user saw a sentence.
		level := slog.LevelInfo
		if s.ErrorRef != "" {
			level = slog.LevelWarn
		}
		b.log.Log(ctx, level, "answer failed", "kind", outcome, "ref", s.ErrorRef,
			"detail", store.MaskSecrets(s.ErrorDetail), "thread", s.ThreadTS, "user", s.UserID)
	}
	// A turn cut short by the caller's cancel is one worth logging, so the
	// insert outlives ctx.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryLogTimeout)
	defer cancel()
	if _, err := b.db.AddQueryLog(ctx, l); err != nil {
		b.log.WarnContext(ctx, "log turn", "thread", s.ThreadTS, "err", err)
	}
}

// queryLogOf builds the log row of a turn from its final state and trace;
// the error kind is left to nodes.Outcome.
func queryLogOf(s *nodes.State, res workflow.Result, backend string) store.QueryLog {
	total := res.Total
	if !s.Started.IsZero() {
		// From the message's arrival: loading the history counts too.
		total = time.Since(s.Started)
	}
	nodeTime := make(map[string]time.Duration, len(res.Steps))
	for _, st := range res.Steps {
		nodeTime[st.Node] += st.Duration
	}
	queryID := ""
	if s.ErrorKind == "" && (s.Intent == nodes.IntentAnalytics || s.Intent == nodes.IntentFollowUp) {
		queryID = s.QueryID
	}
	rows := s.Result.RowCount
	if s.Intent == nodes.IntentExportCSV {
		rows = s.CSVRows
	}
	return store.QueryLog{
		QueryID:  queryID,
		Question: s.UserQuery, ThreadID: s.ThreadTS, UserID: s.UserID, ChannelID: s.ChannelID,
		Intent: string(s.Intent), Path: res.Path(),
		ModelCalls: s.LLMCalls, PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens,
		RowCount: rows, ResponseChars: utf8.RuneCountInString(s.ResponseText),
		Backend: backend, ModelTime: s.LLMTime, DBTime: s.DBTime, Total: total, NodeTime: nodeTime,
		Policy: s.Policy, Role: s.Role,
	}
}
