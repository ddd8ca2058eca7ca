package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ScheduleState is where a schedule is in its life.
type ScheduleState string

// The states of a schedule.
const (
	// SchedulePending waits for its owner to confirm it; it never runs.
	SchedulePending ScheduleState = "pending"
	// ScheduleActive runs at its times.
	ScheduleActive ScheduleState = "active"
	// SchedulePaused was paused by a person; resuming runs it again.
	SchedulePaused ScheduleState = "paused"
	// ScheduleStopped was stopped by the bot (its owner's policy no longer
	// allows the query); StopReason says why.
	ScheduleStopped ScheduleState = "stopped"
)

// Schedule is a saved question that runs by itself: the query of an
// answer, when it runs (a cron spec in a time zone), where it posts, in
// what form, and, for an alert, the condition that must hold.
type Schedule struct {
	ID    string
	State ScheduleState
	// OwnerID is who made it; every run reads as them (their access
	// policy, their row-level security).
	OwnerID, OwnerEmail string
	// Surface is where it was made and posts: "slack", "web" or "cli".
	Surface                     string
	SourceThread, SourceChannel string
	Query                       warehouse.Query
	QueryID, Question           string
	// Spec is a 5-field cron spec read in TimeZone (an IANA name).
	Spec, TimeZone string
	// DestKind is "thread", "channel" or "dm"; DestChannel the channel (or
	// user, for a DM) it posts to; DestThread the thread for "thread";
	// DestName the channel's name as the owner wrote it.
	DestKind, DestChannel, DestThread, DestName string
	// Format is "answer" or "csv".
	Format string
	// CondKind is empty for a report that always posts; an alert's
	// condition otherwise (package schedule), with its threshold and the
	// column it reads.
	CondKind      string
	CondThreshold float64
	CondColumn    string
	// CondUnit says how a percentage threshold reads against the column
	// (schedule.ThresholdUnit): "" as a plain number, "percent" as
	// written, "fraction" as its hundredth.
	CondUnit string
	// DueAt is the regular run the next attempt belongs to, NextRunAt when
	// that attempt is due (later than DueAt for a retry); nil unless
	// active.
	DueAt, NextRunAt *time.Time
	// Failures counts the runs in a row that failed.
	Failures    int
	LastRunAt   *time.Time
	LastOutcome string
	// LastValue is the number the last run that found one read, which
	// the next alert compares with.
	LastValue  *float64
	StopReason string
	// ClaimedBy and ClaimedUntil are the replica running it and its lease.
	ClaimedBy    string
	ClaimedUntil *time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

const scheduleColumns = `id, state, owner_id, owner_email, surface, source_thread, source_channel, backend, query,
	query_id, question, spec, time_zone, dest_kind, dest_channel, dest_thread, dest_name, format, cond_kind,
	coalesce(cond_percent, cond_threshold), cond_column,
	CASE WHEN cond_percent IS NOT NULL THEN 'fraction' ELSE cond_unit END, due_at, next_run_at, failures, last_run_at, last_outcome, last_value,
	stop_reason, coalesce(claimed_by, ''), claimed_until, created_at, updated_at`

func scanSchedule(row pgx.Row) (Schedule, error) {
	var s Schedule
	err := row.Scan(&s.ID, &s.State, &s.OwnerID, &s.OwnerEmail, &s.Surface, &s.SourceThread, &s.SourceChannel,
		&s.Query.Backend, &s.Query.Text, &s.QueryID, &s.Question, &s.Spec, &s.TimeZone, &s.DestKind, &s.DestChannel,
		&s.DestThread, &s.DestName, &s.Format, &s.CondKind, &s.CondThreshold, &s.CondColumn, &s.CondUnit, &s.DueAt, &s.NextRunAt,
		&s.Failures, &s.LastRunAt, &s.LastOutcome, &s.LastValue, &s.StopReason, &s.ClaimedBy, &s.ClaimedUntil,
		&s.CreatedAt, &s.UpdatedAt)
	return s, err
}

// storedCondition is how s's threshold is stored, so that every replica
// compares it as this version does (migrations 00030): a percentage read
// as a fraction ("above 5%" on error_rate = 0.0042) is stored as the
// fraction it is compared with, cond_threshold 0.05 with cond_unit "",
// which the replicas of the versions before 00025 (they compare
// cond_threshold as written) and those of 00025 on (they divide it by 100
// for cond_unit 'fraction' alone) both compare as it is; its percent (5)
// is kept in cond_percent, which this version reads back as CondThreshold
// with CondUnit "fraction". Other conditions are stored as they are.
func storedCondition(s Schedule) (threshold float64, unit string, percent *float64) {
	if s.CondUnit != "fraction" {
		return s.CondThreshold, s.CondUnit, nil
	}
	p := s.CondThreshold
	return hundredth(p), "", &p
}

// hundredth is p percent as a fraction worked out in decimal, as package
// schedule's Hundredth, with which the condition is checked: 1.1 % is
// 0.011, not p/100's 0.011000000000000001.
func hundredth(p float64) float64 {
	f, err := strconv.ParseFloat(strconv.FormatFloat(p, 'f', -1, 64)+"e-2", 64)
	if err != nil {
		return p / 100
	}
	return f
}

// newScheduleID is a short random id people can type ("3fa85f64").
func newScheduleID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on Linux
	return hex.EncodeToString(b[:])
}

// AddSchedule stores s (pending, unless its State says otherwise) under a
// new id and returns it as stored.
func (d *DB) AddSchedule(ctx context.Context, s Schedule) (Schedule, error) {
	if s.State == "" {
		s.State = SchedulePending
	}
	if s.OwnerID == "" || s.Spec == "" || s.TimeZone == "" || s.Query.Text == "" {
		return Schedule{}, errors.New("add schedule: it needs an owner, a spec, a time zone and a query")
	}
	threshold, unit, percent := storedCondition(s)
	for range 3 {
		s.ID = newScheduleID()
		out, err := scanSchedule(d.pool.QueryRow(ctx, `
			INSERT INTO schedules (id, state, owner_id, owner_email, surface, source_thread, source_channel, backend,
				query, query_id, question, spec, time_zone, dest_kind, dest_channel, dest_thread, dest_name, format,
				cond_kind, cond_threshold, cond_column, cond_unit, due_at, next_run_at, cond_percent)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $23, $22, $22, $24)
			ON CONFLICT (id) DO NOTHING
			RETURNING `+scheduleColumns,
			s.ID, s.State, cleanText(s.OwnerID), cleanText(s.OwnerEmail), s.Surface, cleanText(s.SourceThread),
			cleanText(s.SourceChannel), s.Query.Backend, cleanText(s.Query.Text), s.QueryID, cleanText(s.Question),
			s.Spec, s.TimeZone, s.DestKind, cleanText(s.DestChannel), cleanText(s.DestThread), cleanText(s.DestName),
			s.Format, s.CondKind, threshold, cleanText(s.CondColumn), s.NextRunAt, unit, percent))
		if errors.Is(err, pgx.ErrNoRows) {
			continue // the id was taken: draw another
		}
		if err != nil {
			return Schedule{}, fmt.Errorf("add schedule: %w", classify(err))
		}
		return out, nil
	}
	return Schedule{}, errors.New("add schedule: no free id after three draws")
}

// ScheduleByID returns one schedule, or ErrNotFound.
func (d *DB) ScheduleByID(ctx context.Context, id string) (Schedule, error) {
	s, err := scanSchedule(d.pool.QueryRow(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE id = $1`, id))
	if err != nil {
		return Schedule{}, fmt.Errorf("schedule %q: %w", id, classify(notFound(err)))
	}
	return s, nil
}

// ScheduleFilter selects schedules; zero fields select everything.
type ScheduleFilter struct {
	OwnerID string
	// Channel keeps those that post to a channel or were made in it.
	Channel string
	// States keeps these states; none: every state but pending.
	States []ScheduleState
	Limit  int
}

// Schedules returns the schedules f selects, the next to run first.
func (d *DB) Schedules(ctx context.Context, f ScheduleFilter) ([]Schedule, error) {
	states := f.States
	if len(states) == 0 {
		states = []ScheduleState{ScheduleActive, SchedulePaused, ScheduleStopped}
	}
	where := []string{"state = ANY($1)"}
	args := []any{states}
	if f.OwnerID != "" {
		args = append(args, f.OwnerID)
		where = append(where, fmt.Sprintf("owner_id = $%d", len(args)))
	}
	if f.Channel != "" {
		args = append(args, f.Channel)
		where = append(where, fmt.Sprintf("(dest_channel = $%d OR source_channel = $%[1]d)", len(args)))
	}
	limit := ""
	if f.Limit > 0 {
		limit = fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := d.pool.Query(ctx, `SELECT `+scheduleColumns+` FROM schedules WHERE `+strings.Join(where, " AND ")+
		` ORDER BY next_run_at NULLS LAST, created_at`+limit, args...)
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", classify(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Schedule, error) { return scanSchedule(r) })
	if err != nil {
		return nil, fmt.Errorf("list schedules: %w", classify(err))
	}
	return out, nil
}

// ErrScheduleState means a schedule is not in a state the change applies
// to (resuming one that runs, confirming one already confirmed).
var ErrScheduleState = errors.New("the schedule is not in a state this applies to")

// ScheduleChange moves a schedule from one of From to To.
type ScheduleChange struct {
	ID   string
	From []ScheduleState
	To   ScheduleState
	// Next is its next run for To = active (due and next run); nil clears
	// them.
	Next *time.Time
	// Reason is the stop reason for To = stopped.
	Reason string
}

// ChangeSchedule applies c and returns the schedule as it is now:
// ErrNotFound when there is none, ErrScheduleState (with the schedule)
// when it is not in one of c.From. A change also drops any claim's
// pending retry, so a resumed schedule starts from its next regular time.
func (d *DB) ChangeSchedule(ctx context.Context, c ScheduleChange) (Schedule, error) {
	s, err := scanSchedule(d.pool.QueryRow(ctx, `
		UPDATE schedules SET state = $3, due_at = $4, next_run_at = $4, stop_reason = $5, failures = 0, updated_at = now()
		WHERE id = $1 AND state = ANY($2)
		RETURNING `+scheduleColumns, c.ID, c.From, c.To, c.Next, c.Reason))
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return Schedule{}, fmt.Errorf("change schedule %q: %w", c.ID, classify(err))
	}
	cur, err := d.ScheduleByID(ctx, c.ID)
	if err != nil {
		return Schedule{}, err
	}
	return cur, fmt.Errorf("schedule %s is %s: %w", c.ID, cur.State, ErrScheduleState)
}

// SetOwnerEmail saves email as the address of schedule id's owner, the one
// their surface gave at a run (a Slack address changes), so what shows and
// checks the owner's address sees the one runs read as. It reports
// whether the saved one was different.
func (d *DB) SetOwnerEmail(ctx context.Context, id, email string) (bool, error) {
	tag, err := d.pool.Exec(ctx, `UPDATE schedules SET owner_email = $2, updated_at = now() WHERE id = $1 AND owner_email <> $2`,
		id, cleanText(email))
	if err != nil {
		return false, fmt.Errorf("set the owner's address of schedule %q: %w", id, classify(err))
	}
	return tag.RowsAffected() > 0, nil
}

// DeleteSchedule deletes a schedule and its runs; ErrNotFound when there
// is none.
func (d *DB) DeleteSchedule(ctx context.Context, id string) error {
	tag, err := d.pool.Exec(ctx, `DELETE FROM schedules WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("delete schedule %q: %w", id, classify(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("delete schedule %q: %w", id, ErrNotFound)
	}
	return nil
}

// DeletePendingSchedule deletes a schedule never confirmed; ErrScheduleState
// when it was confirmed meanwhile, ErrNotFound when there is none.
func (d *DB) DeletePendingSchedule(ctx context.Context, id string) error {
	tag, err := d.pool.Exec(ctx, `DELETE FROM schedules WHERE id = $1 AND state = 'pending'`, id)
	if err != nil {
		return fmt.Errorf("delete pending schedule %q: %w", id, classify(err))
	}
	if tag.RowsAffected() == 0 {
		if _, err := d.ScheduleByID(ctx, id); err != nil {
			return err
		}
		return fmt.Errorf("delete pending schedule %q: %w", id, ErrScheduleState)
	}
	return nil
}

// DeletePendingSchedules deletes schedules never confirmed that were made
// more than age ago, by the database's clock.
func (d *DB) DeletePendingSchedules(ctx context.Context, age time.Duration) (int64, error) {
	tag, err := d.pool.Exec(ctx, `DELETE FROM schedules WHERE state = 'pending' AND created_at < now() - make_interval(secs => $1)`,
		age.Seconds())
	if err != nil {
		return 0, fmt.Errorf("delete pending schedules: %w", classify(err))
	}
	return tag.RowsAffected(), nil
}
