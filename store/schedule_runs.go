package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/internal/redact"
)

// Outcomes of a schedule's run.
const (
	RunRunning   = "running"
	RunPosted    = "posted"
	RunQuiet     = "quiet" // an alert whose condition did not hold
	RunFailed    = "failed"
	RunRefused   = "refused" // the owner's policy no longer allows it
	RunAbandoned = "abandoned"
	// RunPaused is a run whose schedule was paused while it ran: nothing
	// was posted.
	RunPaused = "paused"
)

// Claim is a due run a replica took: the schedule, the regular time the
// run belongs to, its attempt, and its row in schedule_runs.
type Claim struct {
	Schedule Schedule
	Due      time.Time
	Attempt  int
	RunID    int64
	// Posted is set when an earlier attempt of this run, whose runner
	// stopped before finishing, had already posted: the run is done and
	// must not post again.
	Posted bool
	// Unsure is set when an earlier attempt's runner stopped while
	// posting, before it could record the post: it may have been posted
	// since DeliveringSince, and the surface is asked before posting again.
	Unsure          bool
	DeliveringSince time.Time
	// TookOver says an earlier runner's claim had lapsed.
	TookOver bool
}

// ClaimRequest says which due runs to claim, for whom and how long.
type ClaimRequest struct {
	Runner string
	Now    time.Time
	Lease  time.Duration
	// Surfaces are those the runner can post to.
	Surfaces []string
	Limit    int
	// Only, when set, claims that schedule alone (run-now).
	Only string
	// Except are schedules not to claim: the runner's own runs still under
	// way, whose claim may have lapsed while the database was away.
	Except []string
}

// ClaimDueSchedules claims up to r.Limit active schedules of r.Surfaces
// that are due at r.Now and that no live claim holds, for r.Runner, until
// Now+Lease. Replicas calling it at once never claim the same
// schedule (FOR UPDATE SKIP LOCKED); a claim whose lease ran out (its
// replica died mid-run) is taken over, its unfinished attempt marked
// abandoned. Each claim gets its own row in schedule_runs.
func (d *DB) ClaimDueSchedules(ctx context.Context, r ClaimRequest) ([]Claim, error) {
	runner, now := r.Runner, r.Now
	var out []Claim
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		out = nil
		rows, err := tx.Query(ctx, `
			WITH due AS (
				SELECT id, claimed_by IS NOT NULL AS lapsed FROM schedules
				WHERE state = 'active' AND next_run_at <= $2 AND surface = ANY($4)
				  AND (claimed_until IS NULL OR claimed_until <= $2) AND ($6 = '' OR id = $6)
				  AND NOT (id = ANY($7::text[]))
				ORDER BY next_run_at
				LIMIT $5
				FOR UPDATE SKIP LOCKED)
			UPDATE schedules s SET claimed_by = $1, claimed_until = $3
			FROM due WHERE s.id = due.id
			RETURNING due.lapsed, s.`+scheduleColumns, // only id is in both
			runner, now, now.Add(r.Lease), r.Surfaces, max(r.Limit, 1), r.Only, nonNil(r.Except))
		if err != nil {
			return err
		}
		for rows.Next() {
			var c Claim
			var s Schedule
			dest := []any{&c.TookOver}
			scan := func(d ...any) error { return rows.Scan(append(dest, d...)...) }
			s, err = scanSchedule(scanFunc(scan))
			if err != nil {
				rows.Close()
				return err
			}
			c.Schedule, c.Due = s, *s.DueAt
			out = append(out, c)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for i := range out {
			if err := startRun(ctx, tx, &out[i], runner, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim due schedules: %w", classify(err))
	}
	return out, nil
}

// startRun ends what earlier runners left of c's schedule (attempts still
// "running": abandoned, or posted when they had posted; of any due time,
// as a pause or run-now may have moved it since) and inserts the new
// attempt's row. An earlier attempt of the same run that had started
// posting without recording a post (it died, or Slack's answer was lost)
// makes the claim Unsure.
func startRun(ctx context.Context, tx pgx.Tx, c *Claim, runner string, now time.Time) error {
	var posted int
	var delivering *time.Time
	err := tx.QueryRow(ctx, `
		WITH left_over AS (
			UPDATE schedule_runs SET outcome = CASE WHEN posted_ts <> '' THEN 'posted' ELSE 'abandoned' END,
				finished_at = $3
			WHERE schedule_id = $1 AND outcome = 'running'
			RETURNING due_at, posted_ts)
		SELECT (SELECT count(*) FROM left_over WHERE due_at = $2 AND posted_ts <> ''),
			(SELECT min(delivering_at) FROM schedule_runs
			 WHERE schedule_id = $1 AND due_at = $2 AND delivering_at IS NOT NULL AND posted_ts = '')`,
		c.Schedule.ID, c.Due, now).Scan(&posted, &delivering)
	if err != nil {
		return err
	}
	c.Posted = posted > 0
	if !c.Posted && delivering != nil {
		c.Unsure, c.DeliveringSince = true, *delivering
	}
	return tx.QueryRow(ctx, `
		INSERT INTO schedule_runs (schedule_id, due_at, attempt, runner, started_at, outcome)
		SELECT $1, $2, coalesce(max(attempt), 0) + 1, $3, $4, CASE WHEN $5 THEN 'posted' ELSE 'running' END
		FROM schedule_runs WHERE schedule_id = $1 AND due_at = $2
		RETURNING id, attempt`, c.Schedule.ID, c.Due, runner, now, c.Posted).Scan(&c.RunID, &c.Attempt)
}

// scanFunc adapts a scan function to pgx.Row.
type scanFunc func(dest ...any) error

func (f scanFunc) Scan(dest ...any) error { return f(dest...) }

// ErrRunUnderWay means a schedule's run is under way (a replica holds a
// live claim on it): run-now would be overwritten when it ends.
var ErrRunUnderWay = errors.New("a run of the schedule is under way")

// RunScheduleNow makes an active schedule due at now, as an extra run: its
// regular runs stay as they were. ErrScheduleState when it is not active,
// ErrRunUnderWay while a run of it is under way.
func (d *DB) RunScheduleNow(ctx context.Context, id string, now time.Time) error {
	tag, err := d.pool.Exec(ctx, `UPDATE schedules SET due_at = $2, next_run_at = $2, updated_at = now()
		WHERE id = $1 AND state = 'active' AND (claimed_until IS NULL OR claimed_until <= $2)`, id, now)
	if err != nil {
		return fmt.Errorf("run schedule %q now: %w", id, classify(err))
	}
	if tag.RowsAffected() == 0 {
		s, err := d.ScheduleByID(ctx, id)
		if err != nil {
			return err
		}
		if s.State == ScheduleActive {
			return fmt.Errorf("run schedule %q now: %w", id, ErrRunUnderWay)
		}
		return fmt.Errorf("run schedule %q now: %w", id, ErrScheduleState)
	}
	return nil
}

// ExtendClaim renews runner's lease on a schedule until until; false when
// the claim is no longer runner's (it lapsed and another took it over).
func (d *DB) ExtendClaim(ctx context.Context, id, runner string, until time.Time) (bool, error) {
	tag, err := d.pool.Exec(ctx, `UPDATE schedules SET claimed_until = $3 WHERE id = $1 AND claimed_by = $2`, id, runner, until)
	if err != nil {
		return false, fmt.Errorf("extend the claim on schedule %q: %w", id, classify(err))
	}
	return tag.RowsAffected() == 1, nil
}

// StartPosting records that runner starts posting a run at now, if it
// still holds its claim and the schedule is still active; false when not
// (the claim lapsed and another replica took the run over, or the
// schedule was paused or deleted meanwhile): then it must not post. One
// statement, so no other replica can take the run over between the check
// and the mark. A runner dying after it leaves the run marked as being
// posted, so the one taking over asks the surface first (Claim.Unsure).
func (d *DB) StartPosting(ctx context.Context, c Claim, runner string, now time.Time) (bool, error) {
	tag, err := d.pool.Exec(ctx, `
		UPDATE schedule_runs r SET delivering_at = $3
		FROM schedules s
		WHERE r.id = $1 AND s.id = r.schedule_id AND s.claimed_by = $2 AND s.claimed_until > $3 AND s.state = 'active'`,
		c.RunID, runner, now)
	if err != nil {
		return false, fmt.Errorf("start posting schedule %q: %w", c.Schedule.ID, classify(err))
	}
	return tag.RowsAffected() == 1, nil
}

// PostedChannel is the channel a schedule's latest posted run went to
// ("" when none did): a direct message's channel id, which a post to a
// user id learns only from Slack's answer.
func (d *DB) PostedChannel(ctx context.Context, scheduleID string) (string, error) {
	var ch string
	err := d.pool.QueryRow(ctx, `SELECT posted_channel FROM schedule_runs WHERE schedule_id = $1 AND posted_channel <> ''
		ORDER BY started_at DESC LIMIT 1`, scheduleID).Scan(&ch)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("posted channel of schedule %q: %w", scheduleID, classify(err))
	}
	return ch, nil
}

// MarkPosted records at once where a run posted, so that a replica taking
// over the run after a crash does not post it again.
func (d *DB) MarkPosted(ctx context.Context, runID int64, channel, ts string) error {
	_, err := d.pool.Exec(ctx, `UPDATE schedule_runs SET posted_channel = $2, posted_ts = $3 WHERE id = $1`, runID, channel, ts)
	if err != nil {
		return fmt.Errorf("mark run %d posted: %w", runID, classify(err))
	}
	return nil
}

// RunEnd is how a claimed run ended and what the schedule does next.
type RunEnd struct {
	Claim  Claim
	Runner string
	At     time.Time
	// Outcome is one of the Run* outcomes.
	Outcome  string
	Rows     *int
	Value    *float64
	Previous *float64
	// ErrorKind and ErrorDetail say why a run failed or was refused.
	ErrorKind, ErrorDetail string
	// Due and Next are the schedule's next regular run and its next
	// attempt (a retry: Next before the next regular run, Due unchanged).
	Due, Next time.Time
	// Failures is the count of failed runs in a row after this one.
	Failures int
	// Stop stops the schedule with this reason (a refused run).
	Stop string
	// KeepValue replaces the schedule's last value with Value; a run that
	// found no number leaves it false, so the last value found stays.
	KeepValue bool
}

// ErrClaimLost means the run's claim had passed to another replica: its
// end was not recorded.
var ErrClaimLost = errors.New("the claim on the schedule passed to another runner")

// FinishRun records a run's end and releases the claim in one transaction,
// unless the claim passed to another runner or the attempt was ended by
// one taking the run over (ErrClaimLost). A claim whose lease lapsed but
// that no one took over is still its runner's to finish. A schedule paused
// while the run was under way stays as the pause left it (no next run, no
// failures, not stopped): resuming it sets them.
func (d *DB) FinishRun(ctx context.Context, e RunEnd) error {
	id := e.Claim.Schedule.ID
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		state, reason := ScheduleActive, ""
		if e.Stop != "" {
			state, reason = ScheduleStopped, e.Stop
		}
		tag, err := tx.Exec(ctx, `
			UPDATE schedules SET claimed_by = NULL, claimed_until = NULL,
				due_at = CASE WHEN state = 'active' THEN $3 ELSE due_at END,
				next_run_at = CASE WHEN state = 'active' THEN $4 ELSE next_run_at END,
				failures = CASE WHEN state = 'active' THEN $5 ELSE failures END, last_run_at = $6, last_outcome = $7,
				last_value = CASE WHEN $8 THEN $9 ELSE last_value END,
				state = CASE WHEN state = 'active' THEN $10 ELSE state END,
				stop_reason = CASE WHEN state = 'active' THEN $11 ELSE stop_reason END, updated_at = now()
			WHERE id = $1 AND claimed_by = $2`,
			id, e.Runner, timeOrNull(e.Due), timeOrNull(e.Next), e.Failures, e.At, e.Outcome, e.KeepValue, e.Value, state, reason)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrClaimLost
		}
		tag, err = tx.Exec(ctx, `
			UPDATE schedule_runs SET outcome = $2, finished_at = $3, row_count = $4, value = $5, previous = $6,
				error_kind = $7, error_detail = $8
			WHERE id = $1 AND finished_at IS NULL`,
			e.Claim.RunID, e.Outcome, e.At, e.Rows, e.Value, e.Previous, e.ErrorKind,
			truncateRunes(redact.Secrets(cleanText(e.ErrorDetail)), maxErrorDetail))
		if err == nil && tag.RowsAffected() == 0 {
			return ErrClaimLost
		}
		return err
	})
	if errors.Is(err, ErrClaimLost) {
		return fmt.Errorf("finish run of schedule %q: %w", id, err)
	}
	if err != nil {
		return fmt.Errorf("finish run of schedule %q: %w", id, classify(err))
	}
	return nil
}

// timeOrNull is t, or NULL for the zero time.
func timeOrNull(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// ScheduleRun is one attempt of one run of a schedule.
type ScheduleRun struct {
	ID                      int64
	ScheduleID              string
	Due                     time.Time
	Attempt                 int
	Runner                  string
	Started                 time.Time
	Finished                *time.Time
	Outcome                 string
	Rows                    *int
	Value, Previous         *float64
	ErrorKind, ErrorDetail  string
	PostedChannel, PostedTS string
}

// ScheduleRuns returns a schedule's runs, newest first, at most limit.
func (d *DB) ScheduleRuns(ctx context.Context, scheduleID string, limit int) ([]ScheduleRun, error) {
	rows, err := d.pool.Query(ctx, `
		SELECT id, schedule_id, due_at, attempt, runner, started_at, finished_at, outcome, row_count, value, previous,
			error_kind, error_detail, posted_channel, posted_ts
		FROM schedule_runs WHERE schedule_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2`, scheduleID, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("runs of schedule %q: %w", scheduleID, classify(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ScheduleRun, error) {
		var x ScheduleRun
		err := r.Scan(&x.ID, &x.ScheduleID, &x.Due, &x.Attempt, &x.Runner, &x.Started, &x.Finished, &x.Outcome, &x.Rows,
			&x.Value, &x.Previous, &x.ErrorKind, &x.ErrorDetail, &x.PostedChannel, &x.PostedTS)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("runs of schedule %q: %w", scheduleID, classify(err))
	}
	return out, nil
}
