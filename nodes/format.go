package nodes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/chart"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// FormatAnswer builds the answer: the interpreter's text, the result, a
// chart when one fits, the assumptions and the actions.
func (n *Nodes) FormatAnswer(ctx context.Context, s *State) error {
	res := s.Result
	if spec, ok := chart.Choose(res, s.Question(), s.ChartHint); ok {
		s.Chart = &spec
	}
	a := &answer.Answer{
		Kind:        answer.KindAnswer,
		Chart:       s.Chart,
		Question:    s.Question(),
		Text:        answer.ParseText(s.Answer).Exposed(n.Links.Trusts),
		Result:      &res,
		Assumptions: s.Assumptions,
		QueryID:     s.QueryID,
		Actions:     n.buttons(s),
		DataAsOf:    s.DataAsOf,
		Elapsed:     n.elapsed(s),
		Feedback:    n.Feedback,
		VerifiedBy:  n.verifiedBy(ctx, s),
		FollowUps:   s.FollowUps,
		Links:       n.Links.For(&res),
		Units:       n.units(ctx, res),
	}
	tb := a.Table()
	a.Text = answer.LinkText(answer.NumbersAsTable(a.Text, tb), tb)
	f := FormatTable
	if res.RowCount <= 1 && len(res.Columns) <= 1 {
		f = FormatSimple
	}
	s.SetReply(f, a)
	return nil
}

// units finds the units the catalog's descriptions give the result's
// number columns, by name: a column whose name means different units in
// different tables gets none. A catalog that cannot be read costs only the
// units.
func (n *Nodes) units(ctx context.Context, r warehouse.Result) map[string]answer.Unit {
	want := map[string]bool{}
	for _, c := range r.Columns {
		if c.Kind == warehouse.KindNumber {
			want[strings.ToLower(c.Name)] = true
		}
	}
	if len(want) == 0 || n.Warehouse == nil {
		return nil
	}
	cat, err := n.Warehouse.Catalog(ctx)
	if err != nil {
		return nil
	}
	// Every same-named column of the catalog must state the same unit:
	// the result does not say which table its column came from.
	found, clash := map[string]answer.Unit{}, map[string]bool{}
	for _, t := range cat.Tables {
		for _, c := range t.Columns {
			name := strings.ToLower(c.Name)
			if !want[name] {
				continue
			}
			u, ok := answer.UnitOfComment(c.Comment)
			if prev, seen := found[name]; !ok || (seen && prev != u) {
				clash[name] = true
			}
			found[name] = u
		}
	}
	for name := range clash {
		delete(found, name)
	}
	if len(found) == 0 {
		return nil
	}
	return found
}

// verifiedBy finds the verified example whose query is the answer's (the
// same however it is written) and returns who verified it; "" when none.
// A failed lookup only costs the badge.
func (n *Nodes) verifiedBy(ctx context.Context, s *State) string {
	if n.ExampleStore == nil || s.Query.Text == "" {
		return ""
	}
	fp, ok := n.fingerprint(s)
	if !ok {
		return ""
	}
	e, ok, err := n.ExampleStore.VerifiedExample(ctx, n.Warehouse.Name(), fp)
	if err != nil {
		n.Logger.WarnContext(ctx, "find the verified example of the answer", "err", err)
		return ""
	}
	if !ok {
		return ""
	}
	s.Verified = &e
	if e.VerifiedBy == "" {
		return "the data team"
	}
	return e.VerifiedBy
}

// fingerprint is the dialect's fingerprint of s's query: the one Check
// gave it when it is the query checked this turn, else (a query read back
// from the store) the dialect's.
func (n *Nodes) fingerprint(s *State) (string, bool) {
	if s.Checked.Fingerprint != "" && s.Checked.Query == s.Query {
		return s.Checked.Fingerprint, true
	}
	fingerprint := n.Warehouse.Dialect().Fingerprint
	if fingerprint == nil {
		return "", false
	}
	fp, err := fingerprint(s.Query.Text)
	return fp, err == nil
}

// buttons are the buttons under s's answer (the table's Under): those of
// every answer, Refresh when the result was not run now, Explain when the
// answer assumed something, Schedule when schedules are on.
func (n *Nodes) buttons(s *State) []answer.Action {
	under := []Under{UnderAlways}
	if !s.DataAsOf.IsZero() {
		under = append(under, UnderRecent)
	}
	if len(s.Assumptions) > 0 {
		under = append(under, UnderAssumed)
	}
	if n.Schedules != nil && s.Intent != IntentScheduledRun {
		under = append(under, UnderSchedules)
	}
	return ButtonsUnder(under...)
}

// Decline answers a message that is not about the data, with questions the
// user could ask instead. It never calls the model.
func (n *Nodes) Decline(ctx context.Context, s *State) error {
	s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindNotice,
		Text:      answer.Plain(fmt.Sprintf("I can only answer questions about %s.", n.Domain)),
		Questions: n.questionsToTry(ctx, s)})
	return nil
}

// textDemoUnknown answers, in the offline demo, a question its script does
// not know: a canned answer to another question would mislead.
const textDemoUnknown = "This is the offline demo: no language model is connected, so I can only answer the questions I suggest, " +
	"and follow-ups that change the year of one about a year (“And in 2017?” after “How many games were released in 2018?”). " +
	"To ask anything else, connect a model: set LLM_PROVIDER=openai and " +
	"OPENAI_API_KEY (or anthropic, or ollama for a local one); the README shows how."

// HandleError turns the recorded error kind into a friendly message. It
// never calls the model; the detail stays in logs.
func (n *Nodes) HandleError(ctx context.Context, s *State) error {
	demoUnknown := s.ErrorKind == ErrModelRefused && len(n.DemoQuestions) > 0
	if operatorKinds[s.ErrorKind] && s.ErrorRef == "" && !demoUnknown {
		s.ErrorRef = newErrorRef()
	}
	if demoUnknown {
		// The offline demo turning down a question it has no script for is
		// not a failure: a notice, with no reference to a log line (and so
		// logged as information, not a warning).
		text, suggestions := n.errorText(ctx, s)
		s.SetReply(FormatError, &answer.Answer{Kind: answer.KindNotice, Text: answer.Plain(text), Questions: suggestions})
		return nil
	}
	text, suggestions := n.errorText(ctx, s)
	if s.ErrorRef != "" {
		text += " (Reference " + s.ErrorRef + ".)"
	}
	s.SetReply(FormatError, &answer.Answer{Kind: answer.KindError, Text: answer.Plain(text), Questions: suggestions})
	return nil
}

// operatorKinds are the failures whose cause only the people who run the
// bot can see or fix: the reply gives a reference to their log.
var operatorKinds = map[ErrorKind]bool{
	ErrModelRefused: true, ErrModelUnavailable: true, ErrModelTimeout: true, ErrModelRateLimited: true, ErrInternal: true, ErrDatabaseDown: true,
	ErrWarehouseDown: true, ErrWarehouseNoAnswer: true, ErrWarehouseAuth: true, ErrWarehouseDenied: true,
}

// newErrorRef is a short random reference for a failure, e.g. "e-3f9a1c2b".
func newErrorRef() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "e-" + hex.EncodeToString(b[:])
}

// beyondDataClasses are the guard's classes (sqlguard.Class, the state's
// ErrorClass) of a statement refused for reaching past the data without
// changing it: the
// server's files, its time, its settings, other databases, SQL run from
// text. Every other refusal of the guard's or the database's (a write in
// a read-only transaction) is a change.
var beyondDataClasses = []string{"sleep", "file_access", "code_execution", "dynamic_sql", "foreign_data", "side_effect",
	"session_change", "setting_change", "system_catalog", "explain", "name_resolution", "unbounded_work"}

// classColumns is the class (sqlguard.ClassColumns; Cube's backend uses it
// too) of a query refused for returning a column the policy masks or
// denies, or a whole row holding one.
const classColumns = "columns_not_allowed"

// errorText is the reply's text for the failure on s, and the questions to
// try instead. The text is whole alone: it never introduces the questions
// ("for example:"), which each surface shows under its own heading, because
// notifications, fallbacks and the API's text show the text alone.
func (n *Nodes) errorText(ctx context.Context, s *State) (string, []string) {
	// Asked only for the replies that offer them: finding them checks
	// queries against the catalog, no use when the failure is the data
	// source's.
	examples := func() []string { return n.questionsToTry(ctx, s) }
	var d warehouse.Dialect
	if n.Warehouse != nil {
		d = n.Warehouse.Dialect()
	}
	switch s.ErrorKind {
	case ErrEmptyMessage:
		return "Ask me a question about " + n.Domain + ".", examples()
	case ErrMessageTooLong:
		return fmt.Sprintf("Your message is too long (%s); I read questions of up to %d characters. Please shorten it.", s.ErrorDetail, n.MaxMessageLen), nil
	case ErrUnsafeQuery:
		if slices.Contains(beyondDataClasses, s.ErrorClass) {
			// pg_sleep, pg_read_file, dblink, set_config…: not a change of
			// data, and not for the asker to be told it was one.
			return "I only run queries that read data, and that one would do more, so I didn't run it. Ask a question about the data instead.", examples()
		}
		return "I can only read data, never change it, so I can't run that. Ask a question about the data instead.", examples()
	case ErrInvalidQuery:
		switch {
		case strings.HasPrefix(s.ErrorDetail, otherBackendDetail) && (s.Intent == IntentShowSQL || s.Intent == IntentExplain):
			// Under an access file: nothing can check it against the
			// presser's policy (mayRead).
			return "The query behind that answer was written for another data source than the one I answer from now, so I can't check that you may see it. Ask the question again for a fresh result.", nil
		case strings.HasPrefix(s.ErrorDetail, otherBackendDetail):
			return "The query behind that answer was written for another data source than the one I answer from now, so I can't run it. Ask the question again for a fresh result.", nil
		case s.Intent == IntentExportCSV && s.ErrorClass == classColumns:
			// The presser's policy masks, since the answer, a column it
			// returns (mayTake).
			return "That answer returns a column you may not read in full, so I can't export it. Ask the question again for a fresh result.", nil
		}
		if s.Intent == IntentExportCSV || s.Intent == IntentShowSQL {
			return "The query behind that answer no longer runs against the database (the tables may have changed). Ask the question again for a fresh result.", nil
		}
		return fmt.Sprintf("I couldn't write a query that works for this question, even after %s. Try rephrasing it with the exact names of what you're looking for.", answer.Plural(s.RetryCount+1, "attempt", "attempts")), examples()
	case ErrQueryTimeout:
		return "The query took too long and was stopped. Try narrowing the question: a shorter time range, a filter, or fewer groups.", nil
	case ErrDatabaseDown:
		return "I can't reach the database right now. Please try again in a minute; if it keeps happening, tell whoever runs this bot.", nil
	case ErrWarehouseDown:
		return fmt.Sprintf("I can't reach %s right now. Please try again in a minute; if it keeps happening, tell whoever runs this bot.", d.Source), nil
	case ErrWarehouseNoAnswer:
		return fmt.Sprintf("%s did not answer in time, so I stopped waiting. Please try again in a minute; if it keeps happening, tell whoever runs this bot.", capitalize(d.Source)), nil
	case ErrWarehouseBusy:
		return "Too many queries are running right now; try again in a moment.", nil
	case ErrWarehouseAuth:
		return fmt.Sprintf("%s refused my credentials, so I can't answer from it. %s", capitalize(d.Source), d.AuthHint), nil
	case ErrAccessDenied:
		// The guard's reason names only what the question reached for
		// ("you may not read analytics.salaries"), never what else exists.
		what := strings.TrimPrefix(s.ErrorDetail, "access_denied: ")
		if name, ok := strings.CutPrefix(what, "you may not read "); ok && s.Ceiling != "" && !s.Private() {
			// Checked against the channel's ceiling too: the asker may
			// read it elsewhere.
			return "I can't answer that in this channel: what is posted here may not show " + name + ".", nil
		}
		return "I can't answer that: " + what + ". If you need it, ask whoever runs this bot for access.", nil
	case ErrWarehouseDenied:
		if d.DeniedHint != "" {
			return capitalize(d.Source) + " " + d.DeniedHint, nil
		}
		return fmt.Sprintf("%s would not let me read something this question needs: the account I use has no grant on it. "+
			"Whoever runs this bot can grant it; the bot's log says exactly what to grant.", capitalize(d.Source)), nil
	case ErrNoData:
		return fmt.Sprintf("I can't see any tables in %s, so there is nothing to answer from yet. %s", d.Scope, d.EmptyHint), nil
	case ErrModelTimeout:
		return "The language model took too long to answer. Please try again in a minute.", nil
	case ErrModelRateLimited:
		return "The language model's provider is turning my requests away right now: too many at once for its rate limit. Please try again in a minute; if it keeps happening, tell whoever runs this bot.", nil
	case ErrModelUnavailable:
		return "The language model isn't reachable right now. Please try again in a minute; if it keeps happening, tell whoever runs this bot.", nil
	case ErrModelRefused:
		if len(n.DemoQuestions) > 0 {
			return textDemoUnknown, n.DemoQuestions
		}
		// The model's error may quote the request or a key: it stays in the log.
		// The questions to try follow under their own heading.
		return "The language model could not answer this one. Try again or ask it another way; if it keeps happening, tell whoever runs this bot.", examples()
	case ErrNoPreviousQuery:
		return "I couldn't find an earlier result in this thread for that. Ask a data question first, then use its buttons.", nil
	default:
		return "Something went wrong on my side while answering. Please try again, or rephrase the question.", nil
	}
}

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// questionsToTry are the questions a reply on s offers to ask instead: the
// Suggester's, for whoever will read the reply (a channel's shared policy
// under its ceiling).
func (n *Nodes) questionsToTry(ctx context.Context, s *State) []string {
	if n.Suggester == nil {
		return nil
	}
	return n.Suggester.QuestionsToTry(audienceCtx(ctx, s), QuestionsToTry)
}

func (n *Nodes) elapsed(s *State) (d time.Duration) {
	if s.Started.IsZero() {
		return 0
	}
	return n.Now().Sub(s.Started)
}
