package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"regexp"
	"time"
)

// What users read when the bot itself failed; the details go to the log.
const (
	textInternal = "Something went wrong on my side while answering. Please try again; if it keeps happening, tell whoever runs me."
	textBusy     = "I'm answering a lot of questions right now. Please ask again in a minute."
)

// writeJSON sends v with status. An encoding failure can only be a bug in
// the types sent; it is reported as a plain 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"error": "cannot encode the response"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// writeError sends {"error": msg} with status.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// statusError is a request the handler refuses, with its status.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &statusError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// writeStatusError answers err: its own status when it is a *statusError.
func writeStatusError(w http.ResponseWriter, err error) {
	var se *statusError
	if errors.As(err, &se) {
		writeError(w, se.status, se.msg)
		return
	}
	writeError(w, http.StatusInternalServerError, textInternal)
}

// decodeBody reads the JSON body into v: at most maxBody bytes (413
// beyond), within readTimeout, then clears the read deadline so that a
// long answer is not cut by it.
func (s *server) decodeBody(w http.ResponseWriter, r *http.Request, maxBody int, v any) error {
	rc := http.NewResponseController(w)
	// Not every ResponseWriter supports deadlines (httptest's recorder):
	// the body size still bounds the read.
	_ = rc.SetReadDeadline(time.Now().Add(readTimeout))
	defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(maxBody)))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &statusError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the request is larger than %d bytes", maxBody)}
		}
		// A client that stalled past readTimeout, hung up, or sent a body
		// its own framing breaks (a bad chunk): what the network said is
		// for the log, not for the client.
		s.log.InfoContext(r.Context(), "read a request body", "path", r.URL.Path, "err", err)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return badRequest("the request body could not be read in time")
		}
		return badRequest("the request body could not be read")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return badRequest("the request body is empty: send a JSON object")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return badRequest("%s", jsonProblem(err))
	}
	return nil
}

// jsonProblem says what is wrong with a request body that does not decode,
// in the request's own terms: where its JSON breaks, or which field has
// the wrong type; never the Go types it decodes into.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var wrongType *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("the request body is not valid JSON (at byte %d)", syntax.Offset)
	case errors.As(err, &wrongType) && wrongType.Field != "":
		return fmt.Sprintf("the request body is not valid JSON for this request: %s must be %s, not %s",
			wrongType.Field, jsonKind(wrongType.Type), wrongType.Value)
	case errors.As(err, &wrongType):
		return fmt.Sprintf("the request body is not valid JSON for this request: it must be %s, not %s",
			jsonKind(wrongType.Type), wrongType.Value)
	}
	return "the request body is not valid JSON"
}

// jsonKind names the JSON kind a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "an object"
}

// threadIDPattern is what web thread ids look like (bot.StartThread issues
// them). Requests may name only these, so the web API cannot read Slack's
// or the terminal's threads.
var threadIDPattern = regexp.MustCompile(`^web-[0-9a-f]{32}$`)

// textNoThread answers every request for a thread that is not the
// asker's, whether it exists or not (bot.ErrNoThread): an unknown id, an
// id the server never issued, another identity's thread.
const textNoThread = "no such thread"

// writeNoThread answers a request naming a thread that is not the asker's:
// a 404 like an unknown thread's, saying nothing about whether it exists.
func writeNoThread(w http.ResponseWriter) {
	writeError(w, http.StatusNotFound, textNoThread)
}

// checkThreadID returns a 400 for an id that is not a web thread id.
func checkThreadID(id string) error {
	if !threadIDPattern.MatchString(id) {
		return badRequest("thread_id %q is not a web thread id (web- and 32 hex digits, as message_end gives it)", clip(id, 80))
	}
	return nil
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ms renders a duration in milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
