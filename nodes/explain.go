package nodes

import (
	"context"
	"regexp"
	"strings"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// IntentExplain says how an earlier answer was worked out: its query, the
// tables it reads and what it assumed, from what the thread kept, without
// the model (the Explain button, or "explain this answer").
const IntentExplain Intent = "explain"

// explainWords are the messages that ask for an explanation and nothing
// else (commandWords' form): "explain", "explain this answer", "how did
// you get that".
var explainWords = regexp.MustCompile(`^(?:explain|how did you (?:get|work out|calculate|compute) (?:it|this|that|these|those)|how was (?:it|this|that) (?:worked out|calculated|computed))` +
	`(?: (?:it|this|that|(?:this|that|the|the last|your) (?:answer|result|results|number|numbers)))?(?: (?:to me|for me))?$`)

// repliesKept is how many of a thread's latest replies Explain reads for
// the answer's assumptions.
const repliesKept = 50

// replyReader reads the replies a thread showed; *store.DB implements it.
// Without it, Explain says the assumptions were not kept.
type replyReader interface {
	ThreadReplies(ctx context.Context, threadID string, limit int) ([]store.Turn, error)
}

// Explain answers with how an earlier answer of the thread was worked out:
// the one a button names, else the latest. The reply's lines are its query
// (as Show SQL shows it), the tables it reads (warehouse.Dialect.Tables)
// and the assumptions its reply listed. It calls no model.
func (n *Nodes) Explain(ctx context.Context, s *State) error {
	ctx = audienceCtx(ctx, s)
	turn, ok := n.referredAnswer(ctx, s, lookup{none: "no answer to explain"})
	if !ok || !n.mayRead(ctx, s, turn.Query) {
		return nil
	}
	question := turn.Question
	if question == "" {
		question = turn.UserMessage
	}
	shown := warehouse.Shown{Language: "query", Text: turn.Query.Text}
	if turn.Query.Backend == n.Warehouse.Name() {
		shown = n.Warehouse.Show(ctx, turn.Query)
	}
	text := answer.Text{{Text: "How I answered “" + answer.Defuse(question) + "”:\n• The " + shown.Language + " I ran: "},
		{Text: strings.Join(strings.Fields(shown.Text), " "), Code: true}, {Text: "\n• It reads "}}
	text = append(text, n.tablesOf(turn.Query)...)
	text = append(text, answer.Span{Text: ".\n• " + n.assumedOf(ctx, s, turn)})
	s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindNotice, Text: text, QueryID: turn.QueryID})
	return nil
}

// tablesOf names the tables q reads, as code spans.
func (n *Nodes) tablesOf(q warehouse.Query) answer.Text {
	tablesOf := n.Warehouse.Dialect().Tables
	var tables []string
	if tablesOf != nil && q.Backend == n.Warehouse.Name() {
		tables, _ = tablesOf(q.Text)
	}
	if len(tables) == 0 {
		return answer.Plain("no table I can name")
	}
	var out answer.Text
	for i, t := range tables {
		switch {
		case i == 0:
		case i == len(tables)-1:
			out = append(out, answer.Span{Text: " and "})
		default:
			out = append(out, answer.Span{Text: ", "})
		}
		out = append(out, answer.Span{Text: t, Code: true})
	}
	return out
}

// assumedOf says what the answer assumed, from the reply the thread kept.
func (n *Nodes) assumedOf(ctx context.Context, s *State, turn store.Turn) string {
	assumed, kept := n.assumptionsOf(ctx, s.ThreadTS, turn.QueryID)
	switch {
	case !kept:
		return "What it assumed was not kept."
	case len(assumed) == 0:
		return "It assumed nothing the question did not say."
	}
	return "It assumed: " + answer.Defuse(strings.Join(assumed, " "))
}

// assumptionsOf reads what the latest answer of queryID in thread
// assumed, from the reply the thread kept; kept is false when no such
// reply could be read.
func (n *Nodes) assumptionsOf(ctx context.Context, thread, queryID string) (assumed []string, kept bool) {
	rr, ok := n.DB.(replyReader)
	if !ok || thread == "" || queryID == "" {
		return nil, false
	}
	turns, err := rr.ThreadReplies(ctx, thread, repliesKept)
	if err != nil {
		n.Logger.WarnContext(ctx, "read the replies for their assumptions", "thread", thread, "err", err)
		return nil, false
	}
	for i := len(turns) - 1; i >= 0; i-- {
		t := turns[i]
		if t.QueryID != queryID || len(t.Reply) == 0 {
			continue
		}
		a, err := answer.Unmarshal(t.Reply)
		if err != nil || a.Kind != answer.KindAnswer {
			continue
		}
		return a.Assumptions, true
	}
	return nil, false
}
