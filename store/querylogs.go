package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/analyticsbot/analyticsbot/internal/redact"
)

// maxLoggedQuestion is how many characters of a question a query log keeps:
// the longest message the router accepts, so answered questions stay whole
// while a pasted novel cannot bloat the table.
const maxLoggedQuestion = 4000

// maxErrorDetail bounds a failure's stored detail.
const maxErrorDetail = 2000

const queryLogColumns = `id, created_at, question, thread_id, user_id, channel_id, intent, node_path,
	model_calls, prompt_tokens, completion_tokens, row_count, response_chars, error_kind, backend,
	model_ms, db_ms, total_ms, node_ms, query_id, error_ref, error_detail, policy, db_role`

// ErrNoQueryLogs means the chat_query_logs table does not exist: the
// database was not migrated since query logs were added.
var ErrNoQueryLogs = errors.New("the chat_query_logs table does not exist (run `analyticsbot migrate`)")

// QueryLog is one turn of the bot as chat_query_logs keeps it: what was
// asked, the path it took, what it cost and how long each part took.
type QueryLog struct {
	ID        int64
	CreatedAt time.Time
	// Question is truncated to 4000 characters when stored.
	Question  string
	ThreadID  string
	UserID    string
	ChannelID string
	Intent    string
	// Path lists the executed nodes in order, retries included.
	Path             []string
	ModelCalls       int
	PromptTokens     int
	CompletionTokens int
	RowCount         int
	// ResponseChars is the length of the reply text in characters.
	ResponseChars int
	// ErrorKind is empty for a turn that answered.
	ErrorKind string
	// ErrorRef is the reference the user was given for a failure only the
	// bot's operators can see into; ErrorDetail what went wrong, cut to
	// 2,000 characters with key-like text masked.
	ErrorRef, ErrorDetail string
	// Policy is the access policy the turn was answered under (empty
	// without ACCESS_FILE); Role the database role its queries ran as.
	Policy, Role string
	// Backend is "sql" or "cube".
	Backend   string
	ModelTime time.Duration
	DBTime    time.Duration
	Total     time.Duration
	// NodeTime is the time spent in each node, summed over its attempts.
	NodeTime map[string]time.Duration
	// QueryID names the answer's result (empty when the turn answered
	// with none); feedback on the answer points at this row.
	QueryID string
}

// AddQueryLog stores l and returns it with ID and CreatedAt set and the
// question truncated to 4000 characters.
func (d *DB) AddQueryLog(ctx context.Context, l QueryLog) (QueryLog, error) {
	return addQueryLog(ctx, d.pool, l, time.Time{})
}

// addQueryLog inserts l through q, created at at (zero: now, by the
// database's clock).
func addQueryLog(ctx context.Context, q rowQuerier, l QueryLog, at time.Time) (QueryLog, error) {
	l, sql, args := queryLogInsert(l, at)
	if err := q.QueryRow(ctx, sql, args...).Scan(&l.ID, &l.CreatedAt); err != nil {
		return QueryLog{}, queryLogInsertError(l, err)
	}
	return l, nil
}

// queryLogInsert is the statement that inserts l, created at at, and its
// arguments, with l as it is stored; it returns ID and CreatedAt.
func queryLogInsert(l QueryLog, at time.Time) (QueryLog, string, []any) {
	l.Question = truncateRunes(cleanText(l.Question), maxLoggedQuestion)
	l.ThreadID, l.UserID, l.ChannelID = cleanText(l.ThreadID), cleanText(l.UserID), cleanText(l.ChannelID)
	l.Intent, l.ErrorKind, l.Backend = cleanText(l.Intent), cleanText(l.ErrorKind), cleanText(l.Backend)
	l.ErrorDetail = truncateRunes(redact.Secrets(cleanText(l.ErrorDetail)), maxErrorDetail)
	l.Path = nonNil(l.Path)
	// Never a JSON null: the per-node summary expands node_ms as an object.
	nodeMS := make(map[string]float64, len(l.NodeTime))
	for name, dur := range l.NodeTime {
		nodeMS[cleanText(name)] += millis(dur)
	}
	return l, `
		INSERT INTO chat_query_logs
			(question, thread_id, user_id, channel_id, intent, node_path, model_calls, prompt_tokens,
			 completion_tokens, row_count, response_chars, error_kind, backend, model_ms, db_ms, total_ms, node_ms, query_id,
			 error_ref, error_detail, policy, db_role, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
			coalesce($23, now()))
		RETURNING id, created_at`,
		[]any{l.Question, l.ThreadID, l.UserID, l.ChannelID, l.Intent, l.Path, l.ModelCalls, l.PromptTokens,
			l.CompletionTokens, l.RowCount, l.ResponseChars, l.ErrorKind, l.Backend,
			millis(l.ModelTime), millis(l.DBTime), millis(l.Total), nodeMS, cleanText(l.QueryID),
			cleanText(l.ErrorRef), l.ErrorDetail, cleanText(l.Policy), cleanText(l.Role), timeOrNull(at)}
}

func queryLogInsertError(l QueryLog, err error) error {
	return fmt.Errorf("add query log of thread %q: %w", l.ThreadID, queryLogError(err))
}

// QueryLogFilter selects query logs. Zero fields select everything.
type QueryLogFilter struct {
	// Since keeps logs created less than Since ago, by the database's clock.
	Since time.Duration
	// ThreadID keeps the logs of one thread.
	ThreadID string
	// UserID keeps the logs of one user (a Slack user ID, "web", "cli").
	UserID string
	// ErrorRef keeps the log of the failure the user was given this
	// reference for.
	ErrorRef string
	// Limit caps the number of logs returned.
	Limit int
}

// QueryLogs returns the logs f selects, newest first.
func (d *DB) QueryLogs(ctx context.Context, f QueryLogFilter) ([]QueryLog, error) {
	limit := any(nil) // LIMIT NULL is no limit
	if f.Limit > 0 {
		limit = f.Limit
	}
	rows, err := d.pool.Query(ctx, `
		SELECT `+queryLogColumns+` FROM chat_query_logs
		WHERE ($1::float8 <= 0 OR created_at >= now() - make_interval(secs => $1))
		  AND ($2 = '' OR thread_id = $2)
		  AND ($4 = '' OR user_id = $4)
		  AND ($5 = '' OR error_ref = $5)
		ORDER BY created_at DESC, id DESC
		LIMIT $3`, f.Since.Seconds(), f.ThreadID, limit, f.UserID, f.ErrorRef)
	if err != nil {
		return nil, fmt.Errorf("read query logs: %w", queryLogError(err))
	}
	logs, err := pgx.CollectRows(rows, scanQueryLog)
	if err != nil {
		return nil, fmt.Errorf("read query logs: %w", queryLogError(err))
	}
	return logs, nil
}

// DeleteQueryLogsOlderThan deletes the logs created more than age ago, by
// the database's clock, batch rows per statement until fewer than batch
// are left, and returns how many it deleted. Several processes may run it
// at once; each row is deleted by one of them.
func (d *DB) DeleteQueryLogsOlderThan(ctx context.Context, age time.Duration, batch int) (int64, error) {
	return deleteQueryLogs(ctx, d.pool, age, batch)
}

// deleteQueryLogs is DeleteQueryLogsOlderThan on ex.
func deleteQueryLogs(ctx context.Context, ex execer, age time.Duration, batch int) (int64, error) {
	n, err := deleteInBatches(ctx, ex, `
		DELETE FROM chat_query_logs WHERE id IN (
			SELECT id FROM chat_query_logs
			WHERE created_at < now() - make_interval(secs => $1)
			ORDER BY created_at
			LIMIT $2
			FOR UPDATE SKIP LOCKED)`, age, batch)
	if err != nil {
		return n, fmt.Errorf("delete query logs older than %s: %w", age, queryLogError(err))
	}
	return n, nil
}

func scanQueryLog(row pgx.CollectableRow) (QueryLog, error) {
	var l QueryLog
	var modelMS, dbMS, totalMS float64
	var nodeMS map[string]float64
	err := row.Scan(&l.ID, &l.CreatedAt, &l.Question, &l.ThreadID, &l.UserID, &l.ChannelID, &l.Intent,
		&l.Path, &l.ModelCalls, &l.PromptTokens, &l.CompletionTokens, &l.RowCount, &l.ResponseChars,
		&l.ErrorKind, &l.Backend, &modelMS, &dbMS, &totalMS, &nodeMS, &l.QueryID, &l.ErrorRef, &l.ErrorDetail, &l.Policy, &l.Role)
	l.ModelTime, l.DBTime, l.Total = fromMillis(modelMS), fromMillis(dbMS), fromMillis(totalMS)
	l.NodeTime = make(map[string]time.Duration, len(nodeMS))
	for name, v := range nodeMS {
		l.NodeTime[name] = fromMillis(v)
	}
	return l, err
}

// queryLogError classifies err, naming the missing table when the database
// predates the query logs migration.
func queryLogError(err error) error {
	if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == "42P01" {
		return fmt.Errorf("%w: %w", ErrNoQueryLogs, err)
	}
	return classify(err)
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }

// fromMillis turns milliseconds back into a duration, to the microsecond.
func fromMillis(ms float64) time.Duration {
	return time.Duration(ms*1e3+0.5) * time.Microsecond
}

// QueryLogSummary sums up the query logs of a time window, for
// `analyticsbot logs`. Every figure comes from one snapshot of the table,
// so the counts agree with each other.
type QueryLogSummary struct {
	// From is the start of the window by the database's clock; zero when
	// the window is unbounded.
	From  time.Time
	Turns int
	// ByIntent and ByOutcome count turns, most frequent first. An outcome
	// is "ok" or the turn's error kind.
	ByIntent  []LabelCount
	ByOutcome []LabelCount
	// Total, Model and Database are the percentiles of a turn's total time
	// and of its time waiting for the model and for the database.
	Total    Percentiles
	Model    Percentiles
	Database Percentiles
	// Nodes holds each node's percentiles over the turns it ran in, the
	// nodes that took the most time overall first.
	Nodes            []NodeLatency
	ModelCalls       int64
	PromptTokens     int64
	CompletionTokens int64
	// Slowest holds the slowest turns, slowest first.
	Slowest []QueryLog
	// Errors holds the most frequent error kinds, most frequent first.
	Errors []ErrorCount
}

// OutcomeOK is the outcome of a turn that answered, in ByOutcome.
const OutcomeOK = "ok"

// LabelCount is how many turns had one label (an intent or an outcome).
type LabelCount struct {
	Label string
	Turns int
}

// Percentiles are the median and the 95th percentile of a duration,
// interpolated between turns (percentile_cont).
type Percentiles struct {
	P50 time.Duration
	P95 time.Duration
}

// NodeLatency is the time one node took per turn, over the turns it ran in.
type NodeLatency struct {
	Node  string
	Turns int
	Percentiles
}

// ErrorCount is how many turns ended with one error kind, and the latest of
// them.
type ErrorCount struct {
	Kind           string
	Turns          int
	LatestQuestion string
	LatestAt       time.Time
	// LatestRef and LatestDetail are the latest failure's reference and
	// detail (what to fix).
	LatestRef, LatestDetail string
}

// SummarizeQueryLogs sums up the logs created less than since ago (all of
// them when since is not positive); Slowest and Errors hold up to limit
// entries each.
func (d *DB) SummarizeQueryLogs(ctx context.Context, since time.Duration, limit int) (QueryLogSummary, error) {
	var sum QueryLogSummary
	// Repeatable read: one snapshot for every query, so a turn logged
	// meanwhile cannot make the totals disagree with the breakdowns.
	opts := pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}
	err := pgx.BeginTxFunc(ctx, d.pool, opts, func(tx pgx.Tx) error {
		return summarize(ctx, tx, since, limit, &sum)
	})
	if err != nil {
		return QueryLogSummary{}, fmt.Errorf("summarize query logs of the last %s: %w", since, queryLogError(err))
	}
	return sum, nil
}

func summarize(ctx context.Context, tx pgx.Tx, since time.Duration, limit int, sum *QueryLogSummary) error {
	if since > 0 {
		err := tx.QueryRow(ctx, `SELECT now() - make_interval(secs => $1)`, since.Seconds()).Scan(&sum.From)
		if err != nil {
			return err
		}
	}
	var total, model, db []float64
	err := tx.QueryRow(ctx, `
		SELECT count(*),
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY total_ms),
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY model_ms),
			percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY db_ms),
			coalesce(sum(model_calls), 0), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0)
		FROM chat_query_logs WHERE created_at >= $1`, sum.From,
	).Scan(&sum.Turns, &total, &model, &db, &sum.ModelCalls, &sum.PromptTokens, &sum.CompletionTokens)
	if err != nil {
		return err
	}
	sum.Total, sum.Model, sum.Database = percentiles(total), percentiles(model), percentiles(db)

	if sum.ByIntent, err = labelCounts(ctx, tx, `intent`, sum.From); err != nil {
		return err
	}
	outcome := `CASE WHEN error_kind = '' THEN '` + OutcomeOK + `' ELSE error_kind END`
	if sum.ByOutcome, err = labelCounts(ctx, tx, outcome, sum.From); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `
		SELECT n.key, count(*), percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY n.value::float8)
		FROM chat_query_logs l CROSS JOIN LATERAL jsonb_each(l.node_ms) AS n
		WHERE l.created_at >= $1
		GROUP BY n.key
		ORDER BY sum(n.value::float8) DESC, n.key`, sum.From)
	if err != nil {
		return err
	}
	sum.Nodes, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (NodeLatency, error) {
		var n NodeLatency
		var p []float64
		err := row.Scan(&n.Node, &n.Turns, &p)
		n.Percentiles = percentiles(p)
		return n, err
	})
	if err != nil {
		return err
	}
	if rows, err = tx.Query(ctx, `
		SELECT `+queryLogColumns+` FROM chat_query_logs
		WHERE created_at >= $1
		ORDER BY total_ms DESC, id DESC
		LIMIT $2`, sum.From, limit); err != nil {
		return err
	}
	if sum.Slowest, err = pgx.CollectRows(rows, scanQueryLog); err != nil {
		return err
	}
	// The latest question of each kind through the partial index, rather
	// than aggregating every question of the window.
	if rows, err = tx.Query(ctx, `
		SELECT e.error_kind, e.turns, latest.question, latest.created_at, latest.error_ref, latest.error_detail
		FROM (
			SELECT error_kind, count(*) AS turns FROM chat_query_logs
			WHERE created_at >= $1 AND error_kind <> ''
			GROUP BY error_kind
			ORDER BY turns DESC, error_kind
			LIMIT $2
		) AS e
		CROSS JOIN LATERAL (
			SELECT question, created_at, error_ref, error_detail FROM chat_query_logs l
			WHERE l.error_kind = e.error_kind AND l.created_at >= $1
			ORDER BY l.created_at DESC, l.id DESC
			LIMIT 1
		) AS latest
		ORDER BY e.turns DESC, e.error_kind`, sum.From, limit); err != nil {
		return err
	}
	sum.Errors, err = pgx.CollectRows(rows, pgx.RowToStructByPos[ErrorCount])
	return err
}

// labelCounts counts the window's turns by the SQL expression label.
func labelCounts(ctx context.Context, tx pgx.Tx, label string, from time.Time) ([]LabelCount, error) {
	rows, err := tx.Query(ctx, `
		SELECT `+label+` AS label, count(*) AS turns FROM chat_query_logs
		WHERE created_at >= $1
		GROUP BY 1
		ORDER BY 2 DESC, 1`, from)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[LabelCount])
}

// percentiles reads percentile_cont's [p50, p95], NULL (no turns) as zero.
func percentiles(p []float64) Percentiles {
	if len(p) != 2 {
		return Percentiles{}
	}
	return Percentiles{P50: fromMillis(p[0]), P95: fromMillis(p[1])}
}
