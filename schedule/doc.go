// Package schedule reads, stores and runs scheduled questions and alerts.
//
// This part reads what a person asks in words when they turn an answer into
// a scheduled report or an alert: the recurrence ("every Monday at 9"), the
// destination ("to #growth", "DM me"), the format ("as CSV") and the alert's
// condition ("when the count is above 100"). The reading is deterministic,
// with regular expressions and no model, so the same words always give the
// same schedule, and what it cannot read it says in a sentence for the person
// (Request.Unclear) instead of guessing.
package schedule
