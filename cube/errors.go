package cube

import (
	"errors"
	"strings"
)

// Error kinds a caller can test with errors.Is or errors.As. They decide what
// the workflow does next: a *QueryError goes back to the model with Cube's
// message, the others end the question with a message for the user.
var (
	// ErrUnavailable means Cube could not answer: it is down or unreachable,
	// kept failing with 502/503/504 until the retries ran out, answered with
	// another unexpected status, or did not finish within Config.Timeout.
	ErrUnavailable = errors.New("cube is unavailable")
	// ErrUnauthorized means Cube rejected the token (HTTP 401 or 403): the
	// secret the bot signs with is not the one Cube checks.
	ErrUnauthorized = errors.New("cube rejected the token: check CUBE_API_SECRET")
	// ErrQueryLimit means Cube refused the rows a query asks for: its
	// limit is above the most the server allows (CUBEJS_DB_QUERY_LIMIT,
	// "The query limit has been exceeded."). Asking again with a lower
	// limit, or none, works; the request itself is fine.
	ErrQueryLimit = errors.New("cube refused the query's limit: it is above the server's CUBEJS_DB_QUERY_LIMIT")
)

// queryLimitExceeded is Cube's message for a limit above
// CUBEJS_DB_QUERY_LIMIT: a plain Error in Cube's API gateway, so an HTTP
// 500 in 0.33, "Error: " before it.
const queryLimitExceeded = "The query limit has been exceeded."

// QueryError is Cube refusing a query (HTTP 400): an unknown member, an
// invalid query shape, or an error of the database running the generated SQL.
// Message is Cube's own text, which the generator can retry with.
type QueryError struct {
	Message string
}

func (e *QueryError) Error() string {
	return "cube rejected the query: " + e.Message
}

// RefusedError is Cube answering a query with an error of its own code
// (HTTP 500 with Cube's JSON error): its queryRewrite or its data model
// threw, as docs/security.md's queryRewrite does for a request that says
// no user. Cube is up and answered, so it is neither an outage nor retried;
// nor is it the query's fault, so it does not go back to the generator.
type RefusedError struct {
	Message string
}

func (e *RefusedError) Error() string {
	return "cube refused the query with an error of its own (HTTP 500): " + e.Message
}

// ValidationError lists what [Normalize] found wrong with a query before it
// reached Cube. Each problem says what to change, so the list can be handed
// back to the model as is.
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string {
	return "invalid cube query: " + strings.Join(e.Problems, "; ")
}
