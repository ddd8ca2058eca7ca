package nodes

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/schedule"
	"github.com/analyticsbot/analyticsbot/store"
)

// slackLinkRe is a Slack channel or user link: <#C0123|growth>, <@U0123>.
var slackLinkRe = regexp.MustCompile(`<([#@])([A-Z0-9]+)(?:\|([^>]*))?>`)

// quoted is a restatement as the bot quotes it: Slack links as #name or
// @id, which its own words would otherwise turn into mentions.
func quoted(restated string) string {
	return answer.Defuse(slackLinkRe.ReplaceAllStringFunc(restated, func(link string) string {
		m := slackLinkRe.FindStringSubmatch(link)
		return m[1] + cmp.Or(m[3], m[2])
	}))
}

// maxRestatement is the longest restatement of schedule words taken from
// the model; a schedule takes a sentence.
const maxRestatement = 500

// rereading is a schedule request read again from the model's words.
type rereading struct {
	req schedule.Request
	// restated are the model's words; "" when the first reading stands.
	restated string
}

// rereadSchedule has the model restate schedule words the parser left
// unread (req.Unread) in the words the parser reads, and reads those: the
// model only rewords, the parser decides, and the confirmation shows the
// reading before anything is saved. The model may not pick a channel the
// message does not name. Without a usable restatement (no model, a failed
// call, words still unread) the first reading stands.
func (n *Nodes) rereadSchedule(ctx context.Context, s *State, turn store.Turn, req schedule.Request, loc *time.Location) rereading {
	var columns []string
	if c, err := n.Cache.Get(ctx, s.ThreadTS, turn.QueryID); err == nil {
		columns = c.Result.ColumnNames()
	}
	reply, err := n.complete(ctx, s, llm.StepSchedule, prompts.Schedule{
		Message: s.UserQuery, Ignored: req.Ignored, Unclear: req.Unclear,
		Question: cmp.Or(turn.Question, turn.UserMessage), Columns: columns,
		TimeZone: loc.String(), Now: n.Now().In(loc).Format("Monday 2 January 2006, 15:04"),
	})
	if err != nil {
		s.note("schedule words not restated: " + err.Error())
		return rereading{req: req}
	}
	var r struct {
		Request string `json:"request"`
	}
	if err := llm.DecodeJSON(reply, &r); err != nil {
		s.note(fmt.Sprintf("schedule words not restated: unreadable reply (%v): %.200q", err, reply))
		return rereading{req: req}
	}
	restated := strings.Join(strings.Fields(r.Request), " ")
	switch {
	case restated == "":
		s.note("schedule words: the model has no restatement")
		return rereading{req: req}
	case len(restated) > maxRestatement:
		s.note(fmt.Sprintf("schedule words not restated: a restatement of %d bytes", len(restated)))
		return rereading{req: req}
	}
	again := schedule.ParseRequest(restated, loc)
	switch {
	case again.Unread || (again.Unclear == "" && again.Ignored != ""):
		s.note(fmt.Sprintf("schedule words restated as %q, which leaves %q unread", restated, again.Ignored))
		return rereading{req: req}
	case again.Unclear != "":
		// The restatement breaks a rule ("every 2 minutes"): say what was
		// read and why it cannot be.
		return rereading{req: schedule.Request{Unclear: fmt.Sprintf("I read that as “%s”. %s", quoted(restated), again.Unclear)}, restated: restated}
	}
	to, ok := keepPlace(s.UserQuery, req.To, again.To)
	if !ok {
		s.note(fmt.Sprintf("schedule words restated as %q, which names a channel the message does not", restated))
		return rereading{req: req}
	}
	again.To = to
	again.Format = cmp.Or(again.Format, req.Format)
	if again.Condition.Kind == "" {
		again.Condition = req.Condition
	}
	return rereading{req: again, restated: restated}
}

// keepPlace is where a restated request posts: the first reading's place
// when the restatement names none, or names the same channel without its
// Slack id. ok is false when the restatement names a channel the message
// does not: the model rewords, it does not pick where to post.
func keepPlace(message string, first, restated schedule.Destination) (schedule.Destination, bool) {
	switch {
	case restated.Kind == "":
		return first, true
	case restated.Kind != schedule.DestChannel || (restated.Channel == "" && restated.Name == ""):
		return restated, true
	case first.Kind == schedule.DestChannel && (first.Channel == restated.Channel && first.Channel != "" ||
		restated.Channel == "" && strings.EqualFold(first.Name, restated.Name)):
		return first, true
	}
	return restated, names(message, restated)
}

// names reports whether message names channel d, by link or by #name.
func names(message string, d schedule.Destination) bool {
	if d.Channel != "" && strings.Contains(message, "<#"+d.Channel) {
		return true
	}
	if d.Name == "" {
		return false
	}
	re := regexp.MustCompile(`(?i)(?:^|[^\w-])#` + regexp.QuoteMeta(d.Name) + `(?:$|[^\w-])|\|` + regexp.QuoteMeta(d.Name) + `>`)
	return re.MatchString(message)
}
