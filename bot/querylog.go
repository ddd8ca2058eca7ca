package bot

import (
	"cmp"
	"context"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/internal/redact"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/pgpool"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// queryLogTimeout bounds writing a turn's record: the reply waits for it,
// and a record is not worth keeping a user waiting on a struggling
// database (one that is away gets it later, see unsaved).
const queryLogTimeout = 2 * time.Second

// logTurn records the turn that just ended: the turns save_turn kept
// (s.Keep) and its query log, in one transaction, so a crash leaves both
// or neither. A failure is logged and noted, never returned: the user's
// answer does not depend on it. A record the database refused because it
// was away is kept and written once it is back, so a failure's reference
// reaches `analyticsbot logs --ref` even when the failure was the
// database's; the log line of the failure says whether it is there yet.
func (b *Bot) logTurn(ctx context.Context, s *nodes.State, res workflow.Result) {
	ended := time.Now()
	rec := store.TurnRecord{Turns: s.Keep, Log: queryLogOf(s, res, b.backend.Name(), ended)}
	outcome := nodes.Outcome(ctx, s, res)
	if outcome != nodes.OutcomeOK {
		rec.Log.ErrorKind = outcome
		rec.Log.ErrorRef, rec.Log.ErrorDetail = s.ErrorRef, s.ErrorDetail
	}
	// A turn cut short by the caller's cancel is one worth recording, so
	// the write outlives ctx.
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryLogTimeout)
	defer cancel()
	_, err := b.db.AddTurnRecord(wctx, rec)
	where := "written"
	switch {
	case err == nil:
		if b.unsaved.pending() > 0 {
			// The database is back: what it refused before goes in first.
			if _, err := b.unsaved.flush(wctx, b.db, unsavedFlushOnTurn, queryLogTimeout); err != nil {
				b.log.WarnContext(ctx, "write the turns kept while the database was away", "err", err)
			}
		}
	case retryable(err):
		// Written late, at the turn's end: by the bot's clock, as the
		// database's cannot be read while it is away.
		rec.At = ended
		b.unsaved.keep(rec)
		where = "pending: the database is away; written when it is back"
	default:
		where = "lost: " + err.Error()
	}
	if err != nil {
		if len(s.Keep) > 0 {
			s.Notes = append(s.Notes, "saving the turn failed: "+err.Error())
		}
		b.log.WarnContext(ctx, "record the turn", "thread", s.ThreadTS, "query_log", where, "err", err)
	}
	if outcome != nodes.OutcomeOK {
		// The operator's side of "(Reference e-…)": what went wrong, in
		// the log; the user saw a sentence.
		level := slog.LevelInfo
		if s.ErrorRef != "" {
			level = slog.LevelWarn
		}
		b.log.Log(ctx, level, "answer failed", "kind", outcome, "ref", s.ErrorRef,
			"detail", redact.Secrets(s.ErrorDetail), "thread", s.ThreadTS, "user", s.UserID, "query_log", where)
	}
}

// queryLogOf builds the log row of a turn that ended at ended from its
// final state and trace; the error kind is left to nodes.Outcome.
func queryLogOf(s *nodes.State, res workflow.Result, backend string, ended time.Time) store.QueryLog {
	total := res.Total
	if !s.Started.IsZero() {
		// From the message's arrival: loading the history counts too.
		total = ended.Sub(s.Started)
	}
	nodeTime := make(map[string]time.Duration, len(res.Steps))
	for _, st := range res.Steps {
		nodeTime[st.Node] += st.Duration
	}
	queryID := ""
	spec, _ := nodes.SpecOf(s.Intent)
	if s.ErrorKind == "" && spec.Question {
		queryID = s.QueryID
	}
	rows := s.Result.RowCount
	if spec.File {
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

// The round trips a question makes to the bot's own database, one after
// another, before its query runs (its history, the value index's match, the
// example search) and after (caching the result, finding its verified
// example), its record aside: what SilentWait adds up.
const (
	ownRoundTripsBefore = 3
	ownRoundTripsAfter  = 2
)

// SilentWait is the longest a question waits for its reply, past the
// model's time, when its databases stop answering mid-turn without closing
// anything (docs/scaling.md). Each round trip gives up after its deadline
// (DATABASE_TIMEOUT; the question's query STATEMENT_TIMEOUT more) and the
// grace pgx gives a canceled statement (pgpool.Overrun); the first to the
// backend that gives up ends the turn, while the bot's own database only
// costs the turn what it could not read or write; and the turn's record
// outlives a silent database by no more than its own bound and that grace.
// The worst is the longer of: the bot's database silent alone (every round
// trip to it), and both silent, the backend noticed at the query.
func (c Config) SilentWait() time.Duration {
	reader := c.ReaderConfig()
	reader.Timeout = cmp.Or(reader.Timeout, pgpool.DefaultTimeout)
	own := reader.Timeout + pgpool.Overrun
	query := reader.StatementBound() + pgpool.Overrun
	record := queryLogTimeout + pgpool.Overrun
	return max((ownRoundTripsBefore+ownRoundTripsAfter)*own, ownRoundTripsBefore*own+query) + record
}
