package bot

import (
	"context"
	"slices"

	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Questions to try come from one place, questionsToTry, wherever they are
// offered: Slack's Messages tab, /ask help, the web's welcome, and the
// replies that suggest asking something else instead (a decline, most
// errors: nodes.Suggester). The same person on the same data sees the same
// list everywhere.

// SuggestedQuestions are up to n questions to offer someone starting a
// conversation in m's channel (questionsToTry); none for someone the
// access file does not admit there.
func (b *Bot) SuggestedQuestions(ctx context.Context, m Message, n int) []string {
	if b.access != nil && !b.Demo {
		p, err := b.access.Admit(ctx, whoOf(&nodes.State{UserID: m.UserID, ChannelID: m.ChannelID}))
		if err != nil {
			return nil // no suggestions for someone the bot will not answer
		}
		ctx = warehouse.WithCaller(ctx, warehouse.Caller{UserID: m.UserID, ChannelID: m.ChannelID, Access: p})
	}
	return b.questionsToTry(ctx, n)
}

// HelpQuestions are up to n example questions for the help shown to
// someone asking in m's channel: SuggestedQuestions, except under access
// rules, where knowing what a person may ask can take Slack's listing of a
// user group, and the help is the slash command's immediate reply, which
// must not wait on Slack: none there.
func (b *Bot) HelpQuestions(ctx context.Context, m Message, n int) []string {
	if b.access != nil && !b.Demo {
		return nil
	}
	return b.SuggestedQuestions(ctx, m, n)
}

// suggester gives the workflow's replies the bot's questions to try.
type suggester struct{ b *Bot }

// QuestionsToTry implements nodes.Suggester: ctx carries the caller the
// reply is for.
func (s suggester) QuestionsToTry(ctx context.Context, n int) []string {
	return s.b.questionsToTry(ctx, n)
}

// questionsToTry are up to n questions for the caller on ctx
// (warehouse.CallerOf): in the demo, the demo's; otherwise the verified
// examples used most, or, where the examples file could not be stored
// (the database not migrated, a backend without fingerprints), the file's
// examples, in its order. Only those whose query runs on this data for the
// caller: the guard refuses a table the catalog lacks (the default
// examples are the demo's, kept wherever SQL_EXAMPLES is not set) and,
// under an access policy, what it does not allow.
func (b *Bot) questionsToTry(ctx context.Context, n int) []string {
	if b.Demo {
		return demo.Questions()[:min(n, len(demo.Questions()))]
	}
	var candidates []store.Example
	if b.nodes.ExampleStore == nil {
		for _, e := range b.nodes.Examples {
			candidates = append(candidates, store.Example{Question: e.Question, Query: e.SQL})
		}
	} else {
		// Some will be left out (above): a few more than n.
		list, err := b.db.ListExamples(ctx, store.ExampleFilter{Backend: b.backend.Name(), Status: store.StatusVerified, Limit: n * 4, MostUsed: true})
		if err != nil {
			b.log.WarnContext(ctx, "questions to try", "err", err)
			return nil
		}
		candidates = list
	}
	var out []string
	for _, e := range candidates {
		if len(out) == n {
			break
		}
		switch err := warehouse.PermitsShown(ctx, b.backend, e.Query); {
		case err == nil:
		case slices.Contains([]warehouse.ErrorKind{warehouse.Invalid, warehouse.Unsafe, warehouse.Forbidden}, warehouse.KindOf(err)):
			continue
		default:
			// The data source cannot say (it is down, or slow): no more
			// checks that would each wait on it.
			return out
		}
		out = append(out, e.Question)
	}
	return out
}
