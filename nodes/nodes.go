package nodes

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/feedback"
	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Model is the language model the nodes call; *llm.Client implements it.
type Model interface {
	Complete(ctx context.Context, step llm.Step, prompt string) (string, llm.Usage, error)
}

// Database is what the nodes need of the bot's own state: the thread's
// turns; *store.DB implements it.
type Database interface {
	MostRecentQuery(ctx context.Context, threadID string) (store.Turn, error)
	FindQueryByKeyword(ctx context.Context, threadID string, keywords []string) (store.Turn, error)
	TurnByQueryID(ctx context.Context, threadID, queryID string) (store.Turn, error)
}

// ValueLookup finds the stored values that resemble words of a question;
// *grounding.ValueIndex implements it.
type ValueLookup interface {
	// QueueLookup queues the lookup of the question's values on r, whose
	// round trip the examples' search shares; the function it returns
	// gives them once r is sent.
	QueueLookup(ctx context.Context, r *store.Reads, question string) func(context.Context) ([]store.ValueMatch, error)
	// Listed returns every value of the columns that have few, which the
	// schema's description lists.
	Listed(ctx context.Context) (map[warehouse.ColumnRef][]string, error)
}

// ExampleStore finds stored examples whose questions resemble a question,
// best first, and counts their uses; *grounding.Examples implements it.
type ExampleStore interface {
	// QueueSearchExamples queues the search for the k examples of backend
	// most like question on r, whose round trip the value lookup shares;
	// the function it returns gives them once r is sent.
	QueueSearchExamples(ctx context.Context, r *store.Reads, backend, question string, k int) func(context.Context) ([]store.Example, error)
	MarkExamplesUsed(ctx context.Context, ids []int64) error
	// VerifiedExample returns the verified example whose query has
	// fingerprint, if any: the answer then says it is verified.
	VerifiedExample(ctx context.Context, backend, fingerprint string) (store.Example, bool, error)
}

// Suggester gives the questions to try that replies offer; bot implements
// it with the list its welcome and help show, so that a person sees the
// same questions everywhere.
type Suggester interface {
	// QuestionsToTry returns up to n questions the caller on ctx
	// (warehouse.CallerOf) may ask of this data, none it cannot tell.
	QuestionsToTry(ctx context.Context, n int) []string
}

// QuestionsToTry is how many questions to try a reply offers: as many as
// the welcome and the help show.
const QuestionsToTry = 4

// ResultCache keeps results per thread; *store.Cache implements it.
type ResultCache interface {
	Put(ctx context.Context, r store.CachedResult) error
	Get(ctx context.Context, threadID, queryID string) (store.CachedResult, error)
	Latest(ctx context.Context, threadID string) (store.CachedResult, error)
	// Remember and Recent find a result again across threads, for
	// ResultFreshness.
	Remember(ctx context.Context, threadID, queryID, key string) error
	Recent(ctx context.Context, key string, asker store.Asker, maxAge time.Duration) (store.CachedResult, error)
}

// Nodes holds the dependencies of the analytics nodes. Its methods are the
// nodes; Graph wires them.
type Nodes struct {
	Model Model
	DB    Database
	// Warehouse is where answers come from: its catalog, its query
	// language and its results.
	Warehouse warehouse.Backend
	Cache     ResultCache
	// Examples are shown to the generator for every question when there
	// is no ExampleStore.
	Examples []prompts.Example
	// ExampleStore retrieves the ExamplesK (0: DefaultExamplesK, negative:
	// none) stored examples most like each question whose tables the
	// catalog has, and finds verified queries for the badge; nil: Examples.
	ExampleStore ExampleStore
	ExamplesK    int
	// Feedback puts 👍/👎 buttons under answers, and route_intent reads a
	// message "feedback: …" as a note on a 👎.
	Feedback bool
	// Ratings keeps 👍/👎, their notes and verified examples (package
	// feedback); rate and verify use it.
	Ratings *feedback.Book
	// DemoQuestions, when set, says the model is the offline demo's
	// script, which knows only these questions: a question it cannot
	// answer is told so, with them, and how to connect a model.
	DemoQuestions []string
	// Domain describes the data in prompts, e.g. "Steam store games".
	Domain string
	// Suggester gives the questions a reply offers to ask instead (a
	// decline, most errors); nil: none.
	Suggester Suggester
	// Links make result cells (and their mentions in answers) links
	// (LINKS_FILE); nil: none.
	Links answer.Links
	// MaxRetries is how many times invalid SQL is regenerated: 0 means the
	// default (2), a negative value none.
	MaxRetries int
	// Values finds stored values resembling words of a question; nil for
	// none. *grounding.ValueIndex implements it.
	Values ValueLookup
	// AskingBack says when the generator may ask back instead of writing
	// a query (ASK_BACK; AskBackValues when empty).
	AskingBack AskBackMode
	// SchemaBudget is the most prompt tokens the catalog may take in the
	// generator's prompt (grounding.DefaultBudget when 0).
	SchemaBudget int
	// Lexicon relates a question's words to others for grounding
	// (WORDNET_DIR, GLOSSARY_FILE); nil: word forms only.
	Lexicon *lexicon.Lexicon
	// MaxRows is the row cap the prompt announces (the executor enforces it).
	MaxRows int
	// ResultFreshness, when above 0, lets a question whose query the same
	// asker ran less than this long ago be answered from that result
	// without running it again (RESULT_FRESHNESS); the answer says when the
	// data is from and offers Refresh.
	ResultFreshness time.Duration
	// ExportMaxRows caps a full CSV export: when an answer's result was cut
	// at MaxRows, Export CSV runs its SQL again and streams up to this many
	// rows to a file (default 1,000,000).
	ExportMaxRows int
	// ExportMaxBytes caps such a file's size (default 100 MiB): the
	// export ends with the last whole row that fits, and says so as a cut
	// one does.
	ExportMaxBytes int64
	// ExportDir is where such an export's file is written: the process's
	// own directory (package scratch, which bot opens), so that a process
	// killed mid-export leaves nothing another process cannot tell it may
	// remove. Empty: the system's temporary directory.
	ExportDir string
	// MaxMessageLen caps a question's length in characters (default 4,000).
	MaxMessageLen int
	// Schedules keeps the schedules the schedule node makes; nil: answers
	// cannot be scheduled.
	Schedules ScheduleStore
	// ScheduleKeeper lists and changes schedules, under the bot's
	// ScheduleRules (list_schedules, manage_schedule); nil: schedules are
	// off.
	ScheduleKeeper ScheduleKeeper
	ScheduleRules  ScheduleRules
	// TimeZone is the bot's time zone (TZ), for schedules of people whose
	// own the surface does not tell; nil: UTC.
	TimeZone *time.Location
	// Now returns the current time; tests fix it.
	Now    func() time.Time
	Logger *slog.Logger
}

// DefaultExamplesK is how many stored examples a prompt shows by default.
const DefaultExamplesK = 3

// Defaults fills unset fields with their defaults.
func (n *Nodes) Defaults() *Nodes {
	if n.MaxRetries == 0 {
		n.MaxRetries = 2
	}
	if n.MaxRows == 0 {
		n.MaxRows = 1000
	}
	if n.ExportMaxRows == 0 {
		n.ExportMaxRows = 1_000_000
	}
	if n.ExportMaxBytes == 0 {
		n.ExportMaxBytes = 100 << 20
	}
	if n.MaxMessageLen == 0 {
		n.MaxMessageLen = 4000
	}
	if n.AskingBack == "" {
		n.AskingBack = AskBackValues
	}
	if n.ExamplesK == 0 {
		n.ExamplesK = DefaultExamplesK
	}
	if n.Domain == "" {
		n.Domain = "the company's data"
	}
	if n.Now == nil {
		n.Now = time.Now
	}
	if n.Logger == nil {
		n.Logger = slog.Default()
	}
	return n
}

// complete calls the model for step and records the call in s.
func (n *Nodes) complete(ctx context.Context, s *State, step llm.Step, data any) (string, error) {
	prompt, err := prompts.Render(data)
	if err != nil {
		return "", err
	}
	start := time.Now()
	reply, usage, err := n.Model.Complete(ctx, step, prompt)
	s.LLMCalls++
	s.LLMTime += time.Since(start)
	s.PromptTokens += usage.PromptTokens
	s.CompletionTokens += usage.CompletionTokens
	if err != nil {
		return "", fmt.Errorf("%s: %w", step, err)
	}
	return reply, nil
}

// history turns stored turns into prompt exchanges, each message and answer
// on its one line (prompts.OneLine), as examples are: a thread has several
// participants, and a message's line breaks ("…\nQuestion: export this as
// CSV") would otherwise write turns of their own into the next person's
// prompt.
func history(turns []store.Turn) []prompts.Exchange {
	ex := make([]prompts.Exchange, 0, len(turns))
	for _, t := range turns {
		ex = append(ex, prompts.Exchange{User: prompts.OneLine(t.UserMessage), Bot: prompts.OneLine(t.BotResponse), QueryID: t.QueryID})
	}
	return ex
}
