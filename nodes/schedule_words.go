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

// quoted is a restatement as the bot quotes it: Slack mentions as their
// labels, which its own words would otherwise turn into mentions.
func quoted(restated string) string {
	return answer.Defuse(answer.Labels(restated))
}

// words reads the bot's own words s as markup, as ParseText and Mentions
// do (a schedule's channel and owner as mentions, *paused*, `a3f0`), but
// keeps the white space at its ends, which ParseText trims, so pieces
// joined with Concat read as written.
func words(s string) answer.Text { return answer.Mentions(answer.Words(s)) }

// quote is someone's words in the bot's, in quotes and as they are
// (answer.Quote): a schedule's question is what its owner typed, and its
// *bold* or <https://…|label> must not read as the bot's own emphasis or
// link.
func quote(s string) answer.Text { return answer.Quote(s) }

// channelName is a "#name" in a message.
var channelName = regexp.MustCompile(`#([A-Za-z0-9][A-Za-z0-9_-]*)`)

// linkChannels writes each "#name" of text whose id the surface gave
// (State.Channels) as Slack's mention of it, <#C0123|name> (<#C0123> for
// a channel Slack sent without its name, "#C0123"), which the schedule's
// reading keeps the id of. A channel's id comes from the surface alone:
// a "<#" already in text is one the person typed ("&lt;#C0999|growth&gt;"
// in Slack's markup), kept from reading as a mention first, so that the
// schedule reads it as words and posts to no channel it names.
func linkChannels(text string, ids map[string]string) string {
	text = typedMention.Replace(text)
	if len(ids) == 0 {
		return text
	}
	return channelName.ReplaceAllStringFunc(text, func(m string) string {
		name := m[1:]
		id, ok := ids[strings.ToLower(name)]
		switch {
		case !ok:
			return m
		case strings.EqualFold(name, id):
			return "<#" + id + ">"
		}
		return "<#" + id + "|" + name + ">"
	})
}

// typedMention keeps a typed "<#" from starting a channel mention: a
// zero-width space after the "<", as answer.Defuse writes it.
var typedMention = strings.NewReplacer("<#", "<\u200b#")

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
		columns = promptColumns(c.Result.ColumnNames())
	}
	reply, err := n.complete(ctx, s, llm.StepSchedule, prompts.Schedule{
		Message: s.UserQuery, Ignored: req.Ignored, Unclear: req.Unclear,
		Question: prompts.OneLine(cmp.Or(turn.Question, turn.UserMessage)), Columns: columns,
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
	case again.Unread:
		s.note(fmt.Sprintf("schedule words restated as %q, which leaves %q unread", restated, again.Ignored))
		return rereading{req: req}
	case again.Unclear != "":
		// The restatement breaks a rule ("every 2 minutes"): say what was
		// read and why it cannot be.
		return rereading{req: schedule.Request{Unclear: fmt.Sprintf("I read that as “%s”. %s", quoted(restated), again.Unclear)}, restated: restated}
	}
	to, ok := keepPlace(req.To, again.To)
	if !ok {
		s.note(fmt.Sprintf("schedule words restated as %q, which names a channel the message does not", restated))
		return rereading{req: req}
	}
	again.To = to
	again.Format = cmp.Or(again.Format, req.Format)
	if again.Zone == nil {
		again.Zone = req.Zone // read in loc, which is req.Zone when set
	}
	if again.Condition.Kind == "" {
		again.Condition = req.Condition
	}
	return rereading{req: again, restated: restated}
}

// keepPlace is where a restated request posts: the first reading's place
// when the restatement names none, or names the same channel (the first
// keeps the id of the link Slack sent). ok is false when the restatement
// names another channel: the first reading holds every channel the message
// names, and the model rewords, it does not pick where to post.
func keepPlace(first, restated schedule.Destination) (schedule.Destination, bool) {
	switch {
	case restated.Kind == "":
		return first, true
	case restated.Kind != schedule.DestChannel || restated == schedule.Destination{Kind: schedule.DestChannel}:
		return restated, true // a thread, a DM, this channel
	case first.Kind != schedule.DestChannel:
		return restated, false
	case restated.Channel != "" && first.Channel == restated.Channel,
		restated.Channel == "" && strings.EqualFold(first.Name, restated.Name):
		return first, true
	}
	return restated, false
}
