// Package schedule is what a scheduled question or alert is made of, and
// how it is read from words: the recurrence ("every Monday at 9", a cron
// spec in a time zone, When), the time zone ("in Europe/London", "London
// time"), the destination ("to #growth", "DM me"), the format ("as CSV")
// and the alert's condition ("when the count is above 100", Condition).
// The reading is deterministic, with regular expressions and no model, so
// the same words always give the same schedule, and what it cannot read
// whole it says in a sentence for the person (Request.Unclear) instead of
// guessing. Package store keeps schedules; package scheduler runs them.
package schedule
