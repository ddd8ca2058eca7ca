package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

type classifyReply struct {
	Intent     Intent  `json:"intent"`
	Confidence float64 `json:"confidence"`
	Question   string  `json:"question"`
	// Terms are read on their own (searchTerms): a malformed list loses
	// the terms, never the intent.
	Terms json.RawMessage `json:"terms"`
}

// Search terms the classifier names: a few short plain words or names.
const (
	maxSearchTerms   = 8
	maxSearchTermLen = 40
)

// searchTerms reads the classifier's "terms": a list of strings, each kept
// when it is a short run of words (letters, digits, spaces, _ - . ' &) with
// a letter in it; anything else, or a list that is no list of strings, is
// dropped.
func searchTerms(raw json.RawMessage) []string {
	var list []any
	if len(raw) == 0 || json.Unmarshal(raw, &list) != nil {
		return nil
	}
	var out []string
	for _, v := range list {
		t, ok := v.(string)
		t = strings.Join(strings.Fields(t), " ")
		if !ok || t == "" || utf8.RuneCountInString(t) > maxSearchTermLen || !plainTerm(t) || slices.Contains(out, t) {
			continue
		}
		if out = append(out, t); len(out) == maxSearchTerms {
			break
		}
	}
	return out
}

func plainTerm(t string) bool {
	letter := false
	for _, r := range t {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r) || strings.ContainsRune(" _-.'&", r):
		default:
			return false
		}
	}
	return letter
}

// RouteIntent decides what the user wants; it is the one reader of a
// message's text. Button presses arrive with the intent set; a note on a 👎
// ("feedback: …"), a request for one's schedules, words that schedule an
// answer, and a message that is a button's command and nothing else
// (keywordIntent) take theirs without the model; everything else costs one
// classification call, offered the intent table's choices.
func (n *Nodes) RouteIntent(ctx context.Context, s *State) error {
	if !utf8.ValidString(s.UserQuery) {
		s.UserQuery = strings.ToValidUTF8(s.UserQuery, "\uFFFD")
		s.note("the message was not valid UTF-8; invalid bytes were replaced")
	}
	if s.Intent != "" {
		if s.IntentSource == "" {
			s.IntentSource = "button"
		}
		s.Confidence = 1
		return nil
	}
	// Commands beside the conversation, read whatever their length.
	if note := feedbackNote.FindStringSubmatch(s.UserQuery); note != nil && n.Feedback {
		s.Intent, s.Note, s.Confidence, s.IntentSource = IntentFeedback, note[1], 1, "keyword"
		return nil
	}
	if n.ScheduleKeeper != nil && SurfaceOf(s.ChannelID) != SurfaceSlack && schedulesPhrase.MatchString(s.UserQuery) {
		s.Intent, s.Confidence, s.IntentSource = IntentListSchedules, 1, "keyword"
		return nil
	}
	switch {
	case Blank(s.UserQuery):
		s.fail(ErrEmptyMessage, "empty message")
		return nil
	case utf8.RuneCountInString(s.UserQuery) > n.MaxMessageLen:
		s.fail(ErrMessageTooLong, fmt.Sprintf("%d characters", utf8.RuneCountInString(s.UserQuery)))
		return nil
	}
	if n.Schedules != nil && schedule.IsRequest(s.UserQuery) {
		// Before the action phrases: "send me this every Monday as CSV"
		// schedules a CSV, it does not export one now.
		s.Intent, s.Confidence, s.IntentSource = IntentSchedule, 1, "keyword"
		return nil
	}
	if intent, ok := keywordIntent(s.UserQuery); ok {
		s.Intent, s.Confidence, s.IntentSource = intent, 1, "keyword"
		return nil
	}
	// The schedule intent is offered when there is an answer to schedule:
	// the words' own reader missed this message, the model may not.
	choices := Choices(n.Schedules != nil && hasQuery(s.History))
	reply, err := n.complete(ctx, s, llm.StepClassify, prompts.Classify{
		Domain: n.Domain, Question: s.UserQuery, History: history(s.History), Intents: choices,
	})
	if err != nil {
		modelFailure(s, err)
		return nil
	}
	var r classifyReply
	err = llm.DecodeJSON(reply, &r)
	if err == nil && !offered(r.Intent, choices) {
		err = fmt.Errorf("intent %q not offered", r.Intent)
	}
	if err != nil {
		// An unreadable classification is most likely a data question: try to
		// answer it rather than refuse the user.
		s.Intent, s.Confidence, s.IntentSource = IntentAnalytics, 0, "fallback"
		s.note(fmt.Sprintf("classifier reply unusable (%v): %.200q", err, reply))
		if len(s.History) > 0 {
			s.Intent = IntentFollowUp
		}
		return nil
	}
	s.Intent, s.Confidence, s.IntentSource = r.Intent, clamp01(r.Confidence), "model"
	if s.Intent == IntentAnalytics || s.Intent == IntentFollowUp {
		s.SearchTerms = searchTerms(r.Terms)
	}
	if s.Intent == IntentFollowUp && len(s.History) == 0 {
		s.Intent = IntentAnalytics // nothing to follow up on
	}
	if s.Intent == IntentFollowUp {
		s.Standalone = s.capText("standalone question", strings.TrimSpace(r.Question), n.MaxMessageLen)
	}
	return nil
}

// hasQuery reports whether an earlier turn answered with a query.
func hasQuery(turns []store.Turn) bool {
	for _, t := range turns {
		if t.QueryID != "" {
			return true
		}
	}
	return false
}

func clamp01(f float64) float64 {
	switch {
	case f < 0:
		return 0
	case f > 1:
		return 1
	}
	return f
}
