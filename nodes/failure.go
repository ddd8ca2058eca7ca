package nodes

import (
	"context"
	"errors"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// dataFailure records on s a failure of the backend or of the bot's own
// database, with the kind that decides what happens next: a query the
// backend rejected is worth rewriting; a timeout or an unreachable backend
// is not.
func dataFailure(s *State, err error) {
	if we, ok := errors.AsType[*warehouse.Error](err); ok {
		s.fail(warehouseKinds[we.Kind], we.Error())
		s.ErrorClass = we.Class
		if s.ErrorKind == "" {
			s.fail(ErrInternal, err.Error())
		}
		return
	}
	switch {
	case errors.Is(err, store.ErrUnavailable):
		s.fail(ErrDatabaseDown, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		s.fail(ErrQueryTimeout, err.Error())
	default:
		s.fail(ErrInternal, err.Error())
	}
}

// warehouseKinds maps the backends' error kinds to the workflow's.
var warehouseKinds = map[warehouse.ErrorKind]ErrorKind{
	warehouse.Invalid:      ErrInvalidQuery,
	warehouse.Unsafe:       ErrUnsafeQuery,
	warehouse.Timeout:      ErrQueryTimeout,
	warehouse.Unavailable:  ErrWarehouseDown,
	warehouse.NoAnswer:     ErrWarehouseNoAnswer,
	warehouse.Busy:         ErrWarehouseBusy,
	warehouse.Unauthorized: ErrWarehouseAuth,
	warehouse.Denied:       ErrWarehouseDenied,
	warehouse.Forbidden:    ErrAccessDenied,
	warehouse.NoData:       ErrNoData,
}

// modelFailure records a failed model call on s with the right kind.
func modelFailure(s *State, err error) {
	switch {
	case errors.Is(err, context.Canceled):
		s.fail(ErrInternal, err.Error())
	case errors.Is(err, llm.ErrRateLimited):
		s.fail(ErrModelRateLimited, err.Error())
	case errors.Is(err, llm.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		s.fail(ErrModelTimeout, err.Error())
	case errors.Is(err, llm.ErrUnavailable):
		s.fail(ErrModelUnavailable, err.Error())
	default:
		s.fail(ErrModelRefused, err.Error())
	}
}
