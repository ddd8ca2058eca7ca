package nodes

import (
	"regexp"
	"slices"
	"sync"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/prompts"
)

// IntentSpec is one row of the intent table: everything a surface needs to
// know of an intent. The classifier's choices, Intent.Valid, the buttons
// and their action ids, the names front ends show and the query log's
// labels are all read from Intents, so an intent is added in one place
// (docs/architecture.md, "Recipe: add an intent").
type IntentSpec struct {
	Intent Intent
	// Meaning is what the classifier is told the intent means; empty: the
	// classifier is never offered it (it comes from buttons, words the
	// router reads itself, or the bot).
	Meaning string
	// Offer says when the classifier is offered it (with Meaning).
	Offer Offer
	// Label is the button that presses it, whose action id is the intent
	// itself; empty: no button of its own.
	Label string
	// Under says when that button shows under an answer.
	Under Under
	// Actions are the other action ids whose presses reach it (a 👍, a
	// schedule's Pause).
	Actions []string
	// Words, when set, is a message that asks for it and nothing else, as
	// commandWords reads it ("show me the SQL"): such a message takes it
	// without the model.
	Words *regexp.Regexp
	// Command is the chat's command that presses its button (":csv"),
	// and CommandHelp what the chat's help says it does (lines of at most
	// 70 characters).
	Command, CommandHelp string
	// Name is how a front end names a turn of it that the user made with
	// a press (the web's replay of a thread): the button's label, else
	// this.
	Name string
	// Question says it asks the data a question: its query id is the
	// query log's, and its answer lists questions to try.
	Question bool
	// File says its reply is a file (the web downloads it).
	File bool
	// ToPresser says its reply is for the presser alone, never the thread
	// (a rating, a schedule's confirmation).
	ToPresser bool
	// Aside says it is answered beside the conversation: the thread keeps
	// no turn of it and the query log no row (ratings, verifying, the
	// schedules' list and their management).
	Aside bool
	// Catalog says it reads the catalog for an AI client's tool (MCP's
	// list_tables): a query log row of its own, no path of the graph.
	Catalog bool
}

// Offer says when the classifier is offered an intent.
type Offer int

// The offers.
const (
	OfferAlways Offer = iota
	// OfferSchedulable: schedules are on and the thread has an answer to
	// schedule.
	OfferSchedulable
)

// Under says when a button shows under an answer.
type Under int

// The conditions of a button under answers.
const (
	// UnderNever: not under answers (a reply's own button, as Verify).
	UnderNever Under = iota
	// UnderAlways: under every answer with a result.
	UnderAlways
	// UnderRecent: under an answer served from a recent result.
	UnderRecent
	// UnderSchedules: when schedules are on.
	UnderSchedules
	// UnderAssumed: under an answer that made assumptions.
	UnderAssumed
)

// Intents is the intent table: every intent, in the order the classifier
// is offered them.
var Intents = []IntentSpec{
	{Intent: IntentAnalytics, Question: true,
		Meaning: "a new, self-contained question about the data."},
	{Intent: IntentFollowUp, Question: true,
		Meaning: `a question that depends on the conversation so far (refines, filters, compares or drills into an earlier answer; uses words like "those", "that", "them", "what about").`},
	{Intent: IntentExportCSV, Label: "Export CSV", Under: UnderAlways, File: true, Words: csvCommand,
		Command: ":csv", CommandHelp: "export the last answer as CSV (saved in the current directory)",
		Meaning: "the user wants the last result as a file (CSV, download, export)."},
	{Intent: IntentShowSQL, Label: "Show SQL", Under: UnderAlways, Words: showSQLCommand,
		Command: ":sql", CommandHelp: "show the SQL of the last answer",
		Meaning: "the user wants to see the SQL query behind an answer."},
	{Intent: IntentOffTopic,
		Meaning: "anything that is not a question about the data (greetings, jokes, general knowledge, requests to change data)."},
	{Intent: IntentRefresh, Label: "Refresh", Under: UnderRecent,
		Command: ":refresh", CommandHelp: "run the last answer's query again, when it was answered from a\nrecent result (RESULT_FRESHNESS)"},
	{Intent: IntentExplain, Label: "Explain", Under: UnderAssumed, Words: explainWords,
		Command: ":explain", CommandHelp: "explain the last answer: its query, the tables it reads and what it\nassumed"},
	{Intent: IntentSchedule, Label: "Schedule", Under: UnderSchedules, ToPresser: true,
		Command: ":schedule", CommandHelp: "send the last answer again by itself, or alert on it (or say it:\n\"send me this every Monday at 9\", \"alert me when it is above 100\")",
		Actions: []string{ActionSchedulePreset}, Offer: OfferSchedulable,
		Meaning: `the user wants an earlier answer sent again on a recurrence, or an alert when its numbers meet a condition ("send me this every Monday", "ping me if it goes over 100"); not a question about daily, weekly or monthly figures.`},
	{Intent: IntentScheduledRun},
	{Intent: IntentFeedback, Name: "Feedback", ToPresser: true, Aside: true,
		Actions: []string{ActionFeedbackUp, ActionFeedbackDown}},
	{Intent: IntentVerify, Label: "Verify this query", Name: "Verify", ToPresser: true, Aside: true},
	{Intent: IntentListSchedules, Name: "Schedules", ToPresser: true, Aside: true},
	{Intent: IntentManageSchedule, Name: "Schedule", ToPresser: true, Aside: true,
		Actions: []string{ActionScheduleSave, ActionScheduleCancel, ActionSchedulePause, ActionScheduleResume, ActionScheduleDelete}},
	{Intent: IntentAskBack},
	{Intent: IntentRunQuery, Name: "Run a query", Question: true},
	{Intent: IntentListTables, Name: "List tables", Catalog: true},
	{Intent: IntentDescribeTable, Name: "Describe a table", Catalog: true},
	{Intent: IntentSearchValues, Name: "Search values", Catalog: true},
	{Intent: IntentListVerified, Name: "Verified queries", Catalog: true},
	{Intent: IntentGetContext, Name: "Context", Catalog: true},
}

// The presses of a rating: a 👍 or 👎 under an answer (also as Slack's
// feedback element, blockkit.FeedbackActionID with "feedback_up:<id>").
const (
	ActionFeedbackUp   = "feedback_up"
	ActionFeedbackDown = "feedback_down"
)

// SpecOf returns i's row of the table; ok is false for an intent it does
// not list.
func SpecOf(i Intent) (spec IntentSpec, ok bool) {
	for _, s := range Intents {
		if s.Intent == i {
			return s, true
		}
	}
	return IntentSpec{}, false
}

// Valid reports whether i is one of the intents the classifier may pick
// (those the table gives a Meaning); whether it was offered this time is
// Choices'.
func (i Intent) Valid() bool {
	s, ok := SpecOf(i)
	return ok && s.Meaning != ""
}

// Choices are the intents the classifier is offered: every one with a
// Meaning, those offered only with schedules when schedulable. The list is
// shared: read it, never change it.
func Choices(schedulable bool) []prompts.Choice {
	if schedulable {
		return choices()[1]
	}
	return choices()[0]
}

// choices are the two lists of Choices, made once.
var choices = sync.OnceValue(func() (lists [2][]prompts.Choice) {
	for _, s := range Intents {
		c := prompts.Choice{Name: string(s.Intent), Meaning: s.Meaning}
		switch {
		case s.Meaning == "":
		case s.Offer == OfferAlways:
			lists[0] = append(lists[0], c)
			lists[1] = append(lists[1], c)
		default:
			lists[1] = append(lists[1], c)
		}
	}
	return lists
})

// offered reports whether i is among choices.
func offered(i Intent, choices []prompts.Choice) bool {
	return slices.ContainsFunc(choices, func(c prompts.Choice) bool { return c.Name == string(i) })
}

// ButtonsUnder are the buttons that show under answers when under, in the
// table's order.
func ButtonsUnder(under ...Under) []answer.Action {
	var out []answer.Action
	for _, s := range Intents {
		if s.Label != "" && slices.Contains(under, s.Under) {
			out = append(out, answer.Action{ID: string(s.Intent), Label: s.Label})
		}
	}
	return out
}

// Buttons are the buttons under every answer with a result: their action
// ids are the intents they press.
func Buttons() []answer.Action { return ButtonsUnder(UnderAlways) }

// AnswerButtons are every button that may show under an answer, those of
// schedules only when they are on.
func AnswerButtons(schedules bool) []answer.Action {
	under := []Under{UnderAlways, UnderRecent, UnderAssumed}
	if schedules {
		under = append(under, UnderSchedules)
	}
	return ButtonsUnder(under...)
}

// ButtonIntent returns the intent a press of action reaches: a button's
// own intent, or one of the Actions of its row; ok is false for anything
// else.
func ButtonIntent(action string) (intent Intent, ok bool) {
	for _, s := range Intents {
		if (s.Label != "" && string(s.Intent) == action) || slices.Contains(s.Actions, action) {
			return s.Intent, true
		}
	}
	return "", false
}

// PressName is how a front end names a turn of intent i that a press
// made: its Name, else its button's label; "Button" for one the table does
// not know.
func PressName(i Intent) string {
	s, _ := SpecOf(i)
	switch {
	case s.Name != "":
		return s.Name
	case s.Label != "":
		return s.Label
	}
	return "Button"
}

// Aside reports whether intent i is answered beside the conversation (the
// table's Aside): no turn kept, no query log row.
func Aside(i Intent) bool {
	s, _ := SpecOf(i)
	return s.Aside
}

// CommandOf returns the chat command that presses action's button; empty
// for none.
func CommandOf(action string) string {
	if s, ok := SpecOf(Intent(action)); ok {
		return s.Command
	}
	return ""
}

// CommandIntent returns the intent the chat command cmd (":csv") presses.
func CommandIntent(cmd string) (Intent, bool) {
	for _, s := range Intents {
		if s.Command != "" && s.Command == cmd {
			return s.Intent, true
		}
	}
	return "", false
}
