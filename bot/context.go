package bot

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// contextTracer names the tracer of Context's span.
const contextTracer = "github.com/analyticsbot/analyticsbot/bot"

// GeneratorContext is what the query generator would be given for a
// question, built without the model: `analyticsbot context` prints it.
type GeneratorContext struct {
	// State holds the chosen part of the catalog (State.Grounding).
	State *nodes.State
	// Prompt is the generator's prompt as it would be sent.
	Prompt string
	// PromptTokens estimates Prompt's size; WholePromptTokens that of the
	// prompt with the whole catalog described.
	PromptTokens, WholePromptTokens int
	// Examples are the questions of the examples the prompt shows.
	Examples []string
	// Queries are the SQL the prompt shows: the examples' and the earlier
	// query a follow-up builds on.
	Queries []string
	// Ambiguous are the question's words that match several stored values
	// about equally well: the prompt lets the generator ask back about
	// them.
	Ambiguous []prompts.AmbiguousValue
}

// Context builds what the generator would be given for question in thread
// (a follow-up when the thread has turns), without calling the model: the
// question is taken as it is, not rewritten. With an access file, m's user
// is answered under their policy there, as Ask would. A thread that is not
// m.UserID's gets ErrNoThread (see CheckThread). Terms stand for the
// search terms the classifier names in Ask (`context --terms`).
func (b *Bot) Context(ctx context.Context, m Message, terms ...string) (gc GeneratorContext, err error) {
	// A span of its own, as a turn has workflow.run: the statements it
	// makes (the catalog, the value index, the examples) are traced below
	// it, as they are only within a span.
	ctx, span := otel.Tracer(contextTracer).Start(ctx, "bot.context")
	span.SetAttributes(attribute.Bool("bot.follow_up", m.ThreadID != ""), attribute.Int("bot.terms", len(terms)))
	defer func() {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}()
	// The generator is shown what the asker's access policy lets them see
	// (tables, columns, matched values): so is this.
	if b.access != nil {
		p, err := b.access.Admit(ctx, whoOf(&nodes.State{UserID: m.UserID, ChannelID: m.ChannelID}))
		if err != nil {
			return GeneratorContext{}, fmt.Errorf("context: %w", err)
		}
		ctx = warehouse.WithCaller(ctx, warehouse.Caller{UserID: m.UserID, ChannelID: m.ChannelID, Access: p})
	}
	var turns []store.Turn
	if m.ThreadID != "" {
		if err := b.CheckThread(ctx, m); err != nil {
			return GeneratorContext{}, err
		}
		var err error
		if turns, err = b.db.RecentTurns(ctx, m.ThreadID, b.cfg.HistoryTurns); err != nil {
			return GeneratorContext{}, fmt.Errorf("context: %w", err)
		}
	}
	return b.ContextOf(ctx, m, turns, terms...)
}

// ContextOf is Context with the thread's earlier turns given, oldest
// first, rather than read from the database (an eval's conversation).
func (b *Bot) ContextOf(ctx context.Context, m Message, history []store.Turn, terms ...string) (GeneratorContext, error) {
	s := &nodes.State{UserQuery: m.Text, UserID: m.UserID, ChannelID: m.ChannelID, ThreadTS: m.ThreadID,
		Started: time.Now(), Intent: nodes.IntentAnalytics, History: history, SearchTerms: terms}
	if len(history) > 0 {
		s.Intent = nodes.IntentFollowUp
	}
	data, err := b.nodes.GeneratorPrompt(ctx, s)
	if err != nil {
		return GeneratorContext{}, fmt.Errorf("context: %w", err)
	}
	prompt, err := prompts.Render(data)
	if err != nil {
		return GeneratorContext{}, fmt.Errorf("context: %w", err)
	}
	out := GeneratorContext{State: s, Prompt: prompt, PromptTokens: llm.EstimateTokens(prompt), Ambiguous: data.Ambiguous}
	out.WholePromptTokens = out.PromptTokens - s.Grounding.Tokens + s.Grounding.WholeTokens
	for _, e := range data.Examples {
		out.Examples, out.Queries = append(out.Examples, e.Question), append(out.Queries, e.SQL)
	}
	if data.EarlierQuery != "" {
		out.Queries = append(out.Queries, data.EarlierQuery)
	}
	return out, nil
}
