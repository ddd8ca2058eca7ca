package slackapp

import (
	"github.com/slack-go/slack"

	"github.com/analyticsbot/analyticsbot/bot"
)

// The steps of an answer a streamed message shows as task cards, in their
// order, are the bot's phases (bot.Phase). Each is a task_update chunk
// whose id (the phase) stays the same while its status changes, so Slack
// updates the card in place. Steps of no phase (reading the question,
// saving the turn, the buttons' paths) change no card: a question that
// needs no query shows none.

// taskOrder is the order of the phases in a run without retries.
var taskOrder = map[bot.Phase]int{bot.PhaseTables: 0, bot.PhaseQuery: 1, bot.PhaseRun: 2, bot.PhaseExplain: 3}

// taskTitles are what the cards say.
var taskTitles = map[string]string{
	string(bot.PhaseTables):  "Finding the tables",
	string(bot.PhaseQuery):   "Writing the query",
	string(bot.PhaseRun):     "Running it",
	string(bot.PhaseExplain): "Explaining",
}

// planTitle heads the cards (task_display_mode "plan").
const planTitle = "Answering your question"

// task is one card: its status now and the one Slack last got.
type task struct {
	id         string
	status     slack.TaskCardStatus
	sentStatus slack.TaskCardStatus
}

// tasks follows the answer's phases as cards: at most one step is in
// progress; the step before it is complete, or, when the workflow goes
// back to an earlier step (a query retried after it failed), the later
// step waits again as pending. Cards appear in the order steps first
// start. It is not safe for concurrent use.
type tasks struct {
	list    []task
	current int // index in list of the step in progress, -1 for none
}

func newTasks() *tasks { return &tasks{current: -1} }

// phase moves the cards to the phase of the step that starts (the step in
// progress ends in error for PhaseFailed); it reports whether anything
// changed.
func (ts *tasks) phase(p bot.Phase) bool {
	if p == bot.PhaseFailed {
		return ts.end(slack.TaskCardStatusError)
	}
	if _, ok := taskOrder[p]; !ok {
		return false
	}
	id := string(p)
	next := -1
	for i, t := range ts.list {
		if t.id == id {
			next = i
		}
	}
	if next >= 0 && next == ts.current {
		return false
	}
	if ts.current >= 0 {
		cur := &ts.list[ts.current]
		if taskOrder[bot.Phase(cur.id)] < taskOrder[p] {
			cur.status = slack.TaskCardStatusComplete
		} else {
			cur.status = slack.TaskCardStatusPending
		}
	}
	if next < 0 {
		ts.list = append(ts.list, task{id: id})
		next = len(ts.list) - 1
	}
	ts.list[next].status = slack.TaskCardStatusInProgress
	ts.current = next
	return true
}

// end closes the step in progress with status (complete, or error).
func (ts *tasks) end(status slack.TaskCardStatus) bool {
	if ts.current < 0 {
		return false
	}
	ts.list[ts.current].status = status
	ts.current = -1
	return true
}

// unsent returns the chunks of the cards whose status Slack has not got.
func (ts *tasks) unsent() []slack.StreamChunk {
	var out []slack.StreamChunk
	for _, t := range ts.list {
		if t.status == t.sentStatus {
			continue
		}
		c := slack.NewTaskUpdateChunk(t.id, taskTitles[t.id])
		c.Status = t.status
		out = append(out, c)
	}
	return out
}

// sent records that Slack got chunks: a card that moved on while they
// were on their way is still unsent.
func (ts *tasks) sent(chunks []slack.StreamChunk) {
	for _, c := range chunks {
		u, ok := c.(slack.TaskUpdateChunk)
		if !ok {
			continue
		}
		for i := range ts.list {
			if ts.list[i].id == u.ID {
				ts.list[i].sentStatus = u.Status
			}
		}
	}
}
