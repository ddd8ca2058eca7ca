package nodes

import (
	"context"
	"errors"

	"github.com/analyticsbot/analyticsbot/workflow"
)

// Outcomes of a turn besides the error kinds of State.
const (
	// OutcomeOK: the turn was answered.
	OutcomeOK = "ok"
	// OutcomeCanceled: the run was stopped (a shutdown, the caller gone).
	OutcomeCanceled = "canceled"
)

// Outcome is how a finished run of the workflow ended, as query logs and
// metrics record it: "ok", the error kind a node recorded, or, for a run
// that stopped without one (a canceled context, a node's error or panic,
// the step cap), "canceled" or "internal", so no failed turn counts as
// answered. ctx is the run's context.
func Outcome(ctx context.Context, s *State, res workflow.Result) string {
	if errors.Is(ctx.Err(), context.Canceled) {
		// The caller gave up (a closed web connection, a shutdown): the
		// internal error a node recorded on the way out says nothing more.
		return OutcomeCanceled
	}
	if s.ErrorKind != "" {
		return string(s.ErrorKind)
	}
	if n := len(res.Steps); n > 0 {
		last := res.Steps[n-1]
		switch {
		case last.Outcome == workflow.OutcomeCanceled:
			return OutcomeCanceled
		case last.Outcome == workflow.OutcomeOK && last.Node == NodeSaveTurn:
			// Every complete run ends with save_turn.
			return OutcomeOK
		}
	}
	if ctx.Err() != nil {
		return OutcomeCanceled
	}
	return string(ErrInternal)
}

// rejections are the error kinds of a node refusing its input on purpose:
// the user's message, a query the guard or the backend turned down, an ask
// the user may not make. Every other kind is a failure of something the
// node depends on (a timeout, a service down, the model, the bot itself).
var rejections = map[ErrorKind]bool{
	ErrEmptyMessage:     true,
	ErrMessageTooLong:   true,
	ErrInvalidQuery:     true,
	ErrUnsafeQuery:      true,
	ErrAccessDenied:     true,
	ErrNotAdmitted:      true,
	ErrForbidden:        true,
	ErrNoPreviousQuery:  true,
	ErrInvalidArguments: true,
}

// Outcome is the outcome a node reports to the engine when it records k:
// workflow.Rejected or workflow.Failed with k as the kind, and the zero
// (ok) outcome for the empty kind. Spans and the node metric carry it.
func (k ErrorKind) Outcome() workflow.Outcome {
	switch {
	case k == "":
		return workflow.Outcome{}
	case rejections[k]:
		return workflow.Rejected(string(k))
	default:
		return workflow.Failed(string(k))
	}
}
