package scheduler

import (
	"fmt"

	"github.com/analyticsbot/analyticsbot/nodes"
)

// refusedKinds stop a schedule: its owner may no longer read what it
// reads. permanentKinds fail every attempt alike and are not retried.
var (
	refusedKinds   = map[nodes.ErrorKind]bool{nodes.ErrNotAdmitted: true, nodes.ErrAccessDenied: true}
	permanentKinds = map[nodes.ErrorKind]bool{nodes.ErrInvalidQuery: true, nodes.ErrUnsafeQuery: true,
		nodes.ErrNoData: true, nodes.ErrWarehouseDenied: true}
)

// runFailure is the error kind of a run that did not answer; "" for one
// that did.
func runFailure(s *nodes.State, err error) nodes.ErrorKind {
	switch {
	case err != nil || s == nil:
		return nodes.ErrInternal
	case s.ErrorKind != "":
		return s.ErrorKind
	}
	return ""
}

// failureWords says why a run failed, for its owner.
func failureWords(kind string, attempts int) string {
	why := "something went wrong on my side"
	switch nodes.ErrorKind(kind) {
	case nodes.ErrWarehouseDown, nodes.ErrDatabaseDown:
		why = "the database could not be reached"
	case nodes.ErrWarehouseNoAnswer:
		why = "the database did not answer in time"
	case nodes.ErrWarehouseBusy:
		why = "too many queries were running at the time"
	case nodes.ErrQueryTimeout:
		why = "the query took too long"
	case nodes.ErrInvalidQuery, nodes.ErrNoData:
		why = "the query no longer runs on the data as it is now"
	case nodes.ErrWarehouseDenied:
		// A missing grant in the database, or a semantic layer's own
		// rules (Cube's queryRewrite) refusing: the data source's say.
		why = "the data source would not let me read what it needs"
	case nodes.ErrAccessUnknown:
		why = "Slack didn't say whether you may still read what it reads"
	case ownerUnknown:
		why = "Slack didn't confirm who you are now, so I read nothing as you"
	case membershipUnknown:
		why = "Slack didn't say whether you are still in its channel, so I read nothing as you"
	case "delivery_failed":
		why = "I couldn't post the message"
	}
	if attempts > 1 {
		why += fmt.Sprintf(", %d tries", attempts)
	}
	return why
}
