// Package bot assembles the analytics bot from its configuration: the
// database, the model, the workflow graph. Every front end (the terminal
// chat, the CLI, Slack) asks it questions and presses its buttons.
package bot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/feedback"
	"github.com/analyticsbot/analyticsbot/grounding"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/scratch"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/telemetry"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// Bot answers questions and button presses.
type Bot struct {
	cfg     Config
	db      *store.DB
	backend warehouse.Backend
	// closeBackend releases the backend's connections.
	closeBackend func()
	cache        *store.Cache
	values       *grounding.ValueIndex
	nodes        *nodes.Nodes
	graph        *workflow.Runnable[nodes.State]
	log          *slog.Logger
	// ModelName is the display name of the model, e.g. "openai:gpt-4o-mini".
	ModelName string
	// Scripted is the scripted model when the provider is "script".
	Scripted *llm.Scripted
	// Demo reports that the bot runs the built-in demo script, not a model.
	Demo bool
	// access are the rules of ACCESS_FILE; nil: everyone reads everything.
	access *access.Rules
	turns  *Turns
	// membership checks a schedule's owner is a member of the channel it
	// posts to; the Slack app sets it.
	membership Membership
	// slashCommand is Slack's slash command, for what the bot writes
	// about schedules.
	slashCommand string
	// stopGauges unregisters the capacity gauges.
	stopGauges func()
	// scratch holds full exports' files while they are delivered.
	scratch *scratch.Dir
	// unsaved are the turn records the database refused while it was
	// away, to write when it is back.
	unsaved *unsaved
	// ready is the last outcome of Ready.
	ready readiness
}

// Turns is the bound on the turns the bot answers at once, which every
// surface of the process shares.
func (b *Bot) Turns() *Turns { return b.turns }

// New connects to the database, the backend BACKEND names and the model.
// It does not migrate.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Bot, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL, store.WithSchema(cfg.BotSchema), store.WithTimeout(cfg.DatabaseTimeout))
	if err != nil {
		return nil, err
	}
	// A version started before its migrations ran (a deploy that skipped
	// `migrate`) works in part: say so once, by name, rather than leave the
	// operator the failures of each feature that needs a new column.
	if n, err := db.PendingMigrations(ctx); err == nil && n > 0 {
		log.WarnContext(ctx, "the bot's database lacks migrations this version needs: run `analyticsbot migrate`; until then some features fail (value listing, stored examples)", "pending", n)
	}
	switch key, err := db.IdentityKey(ctx); {
	case err == nil:
		cfg.identityKey = key
	case errors.Is(err, store.ErrNotFound):
		log.WarnContext(ctx, "row-level security cannot tell who asks: the identity functions return NULL until `analyticsbot migrate` has run", "err", err)
	default:
		db.Close()
		return nil, err
	}
	backend, closeBackend, err := backends[cfg.backendName()](ctx, cfg, log)
	if err != nil {
		db.Close()
		return nil, err
	}
	b, err := newBot(cfg, db, backend, log)
	if err != nil {
		closeBackend()
		db.Close()
		return nil, err
	}
	b.closeBackend = closeBackend
	if err := b.storeExamples(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// storeExamples stores the examples file's examples as verified examples
// (once: a stored one, even rejected since, is left as it is) and turns on
// their retrieval (by meaning too with EXAMPLES_EMBEDDINGS); where they
// cannot be stored (the database is not migrated yet), every prompt shows
// the file's examples instead, and the questions to try are theirs
// (questionsToTry). The error is a configuration that cannot
// work.
func (b *Bot) storeExamples(ctx context.Context) error {
	n := b.nodes
	d := b.backend.Dialect()
	checked, err := b.checkExamples(ctx, n.Examples)
	if err != nil {
		return err
	}
	n.Examples = checked
	if d.Fingerprint == nil {
		return nil
	}
	if err := b.db.PrepareExamples(ctx); err != nil && !errors.Is(err, store.ErrNoTrigram) {
		b.log.WarnContext(ctx, "examples are found by their words only", "err", err)
	}
	// Examples stored under a fingerprint of an earlier form (or unknown)
	// take today's first, so they are found and not stored again. Those of
	// a later form are left alone, as a serving bot's passes leave them
	// (StartRefingerprint): an earlier version started against the same
	// database (a desktop mcp, a CLI ask) does not take them back. Not
	// migrated yet: the loop below says so.
	changed, err := b.db.RefingerprintEarlier(ctx, b.backend.Name(), d.FingerprintForm, d.Fingerprint)
	b.logRefingerprint(ctx, changed, err)
	added := 0
	for _, e := range n.Examples {
		fp, err := d.Fingerprint(e.SQL)
		if err != nil {
			b.log.WarnContext(ctx, "an example's query is not "+d.Language+": left out", "question", e.Question, "err", err)
			continue
		}
		_, isNew, err := b.db.AddExample(ctx, store.Example{Backend: b.backend.Name(), Question: e.Question, Query: e.SQL,
			Fingerprint: fp, FingerprintForm: d.FingerprintForm, Assumptions: slices.Clone(e.Assumptions), Explanation: e.Explanation,
			Source: store.SourceFile, Status: store.StatusVerified, ProposedBy: store.SourceFile, VerifiedBy: store.SourceFile})
		if err != nil {
			b.log.WarnContext(ctx, "examples are shown whole, not retrieved: cannot store them (run analyticsbot migrate)", "err", err)
			return nil
		}
		if isNew {
			added++
		}
	}
	if added > 0 {
		b.log.InfoContext(ctx, "examples stored", "added", added)
	}
	examples := &grounding.Examples{DB: b.db, Logger: b.log}
	if b.cfg.ExamplesEmbeddings {
		e, name, err := llm.NewEmbedder(b.cfg.llmConfig(), b.cfg.EmbeddingModel)
		if err != nil {
			return err
		}
		examples.Embedder, examples.Model = e, name
	}
	n.ExampleStore, n.ExamplesK, n.Feedback = examples, b.cfg.ExamplesK, true
	if b.cfg.ExamplesK == 0 {
		n.ExamplesK = -1 // none shown; the badge and feedback still work
	}
	return nil
}

// checkExamples returns the examples file's examples that pass the
// backend's check (CheckExamples). An unsafe one is a mistake in the file
// that stops the start, naming the file and each such entry; one the data
// does not fit is left out, and the log says which. When the data source
// cannot check them (it is down or slow), none is stored this start: the
// examples stored before stay, and the next start checks them again.
func (b *Bot) checkExamples(ctx context.Context, examples []prompts.Example) ([]prompts.Example, error) {
	c := checkExamples(ctx, b.cfg, b.backend, examples)
	if c.Unchecked != nil {
		b.log.WarnContext(ctx, "the examples file's queries cannot be checked now: none is stored this start (those stored before stay)",
			"file", c.File, "err", c.Unchecked)
		return nil, nil
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	if b.cfg.SQLExamples == "" {
		if len(c.LeftOut) > 0 {
			b.log.InfoContext(ctx, "the demo's examples are about tables this data lacks: left out", "examples", len(c.LeftOut))
		}
	} else {
		for _, l := range c.LeftOut {
			b.log.WarnContext(ctx, "an example's query does not run on this data: left out", "file", c.File, "example", l)
		}
	}
	return c.Passed, nil
}

// ExamplesCheck is what checking the examples file found.
type ExamplesCheck struct {
	// File names the file for people: SQL_EXAMPLES, or the demo's.
	File string
	// Passed are the examples a start stores.
	Passed []prompts.Example
	// Unsafe and LeftOut name the examples the guard refuses as unsafe
	// (a write, a pg_sleep: the start stops) and those the data does not
	// fit (a table the catalog lacks: left out), "example N (“question”):
	// why".
	Unsafe, LeftOut []string
	// Unchecked is why the data source could not check them, when it
	// could not (down, slow): a start stores none.
	Unchecked error
}

// Err is the error that stops a start: the unsafe examples.
func (c ExamplesCheck) Err() error {
	if len(c.Unsafe) == 0 {
		return nil
	}
	return fmt.Errorf("examples file %s: the guard refuses %d of its examples, which the model would copy: %s",
		c.File, len(c.Unsafe), strings.Join(c.Unsafe, "; "))
}

// CheckExamples reads the examples file cfg names (SQL_EXAMPLES, or the
// demo's) and checks each query against backend as a start does, as a
// generated query and `examples add`'s are: they are shown to the model
// as answers to copy. It stores nothing; doctor runs it. The error is a
// file that cannot be read.
func CheckExamples(ctx context.Context, cfg Config, backend warehouse.Backend) (ExamplesCheck, error) {
	examples := prompts.DefaultExamples()
	if cfg.SQLExamples != "" {
		var err error
		if examples, err = prompts.LoadExamples(cfg.SQLExamples); err != nil {
			return ExamplesCheck{}, err
		}
	}
	return checkExamples(ctx, cfg, backend, examples), nil
}

func checkExamples(ctx context.Context, cfg Config, backend warehouse.Backend, examples []prompts.Example) ExamplesCheck {
	c := ExamplesCheck{File: cfg.SQLExamples}
	if c.File == "" {
		c.File = "prompts/examples.yaml (the demo's: SQL_EXAMPLES is not set)"
	}
	for i, e := range examples {
		_, err := backend.Check(ctx, e.SQL, cfg.MaxRows)
		which := func() string { return fmt.Sprintf("example %d (%s): %v", i+1, answer.Quoted(e.Question), err) }
		switch kind := warehouse.KindOf(err); {
		case err == nil:
			c.Passed = append(c.Passed, e)
		case kind == warehouse.Unsafe:
			c.Unsafe = append(c.Unsafe, which())
		case kind == warehouse.Invalid || kind == warehouse.Forbidden:
			c.LeftOut = append(c.LeftOut, which())
		default:
			return ExamplesCheck{File: c.File, Unchecked: err}
		}
	}
	return c
}

// OpenBackend opens the data source cfg names (BACKEND: PostgreSQL or
// Cube) as New does, without the bot's database; it reads nothing until
// asked. doctor checks it so, since New stores the examples file.
func OpenBackend(ctx context.Context, cfg Config, log *slog.Logger) (backend warehouse.Backend, closeBackend func(), err error) {
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.Check(); err != nil {
		return nil, nil, err
	}
	return backends[cfg.backendName()](ctx, cfg, log)
}

// NewWithBackend assembles a bot on an open database and backend, for
// backends that are not in BACKEND's list (the conformance tests' in-memory
// one). Close does not close backend.
func NewWithBackend(cfg Config, db *store.DB, backend warehouse.Backend, log *slog.Logger) (*Bot, error) {
	if log == nil {
		log = slog.Default()
	}
	return newBot(cfg, db, backend, log)
}

func newBot(cfg Config, db *store.DB, backend warehouse.Backend, log *slog.Logger) (*Bot, error) {
	b := &Bot{cfg: cfg, db: db, backend: backend, closeBackend: func() {}, log: log, slashCommand: "/ask",
		turns: NewTurns(cfg.MaxTurns, cfg.TurnQueue, cfg.TurnWait)}
	model, err := b.model()
	if err != nil {
		return nil, err
	}
	examples := prompts.DefaultExamples()
	if cfg.SQLExamples != "" {
		if examples, err = prompts.LoadExamples(cfg.SQLExamples); err != nil {
			return nil, err
		}
	}
	links, err := cfg.links(backend.Name())
	if err != nil {
		return nil, err
	}
	if cfg.AccessFile != "" {
		if b.access, err = access.Load(cfg.AccessFile); err != nil {
			return nil, err
		}
		log.Info("access rules loaded", "file", cfg.AccessFile, "policies", b.access.Policies())
		if _, err := b.APITokens(); err != nil {
			return nil, err
		}
	} else {
		log.Warn("ACCESS_FILE is not set: everyone who can reach the bot reads everything the reader role can (docs/access.md)")
	}
	lex, err := cfg.lexicon(log)
	if err != nil {
		return nil, err
	}
	limits := store.CacheLimits{PerThread: cfg.CachePerThread, Entries: cfg.CacheLRUSize, Bytes: cfg.ResultCacheBytes}
	if b.cache, err = store.NewCache(db, limits); err != nil {
		return nil, fmt.Errorf("result cache: %w", err)
	}
	retries := cfg.MaxRetries
	if retries == 0 {
		retries = -1 // SQL_MAX_RETRIES=0 means none, not the default
	}
	n := (&nodes.Nodes{
		Model: model, DB: db, Warehouse: backend, Cache: telemetry.InstrumentCache(b.cache), Examples: examples,
		Domain: cfg.Domain, Suggester: suggester{b}, MaxRetries: retries, MaxRows: cfg.MaxRows,
		ExportMaxRows: cfg.ExportMaxRows, ExportMaxBytes: cfg.ExportMaxBytes, SchemaBudget: cfg.SchemaBudget, Links: links, Logger: log,
		AskingBack:      nodes.AskBackMode(cfg.AskBack),
		ResultFreshness: cfg.ResultFreshness, TimeZone: cfg.Location(), Lexicon: lex,
	}).Defaults()
	n.Ratings = &feedback.Book{DB: db, Backend: backend.Name(), Fingerprint: backend.Dialect().Fingerprint,
		FingerprintForm: backend.Dialect().FingerprintForm, AutoVerify: cfg.ExamplesAutoVerify, Admins: cfg.ExampleAdmins}
	if cfg.Schedules {
		n.Schedules, n.ScheduleKeeper = db, db
	}
	n.ScheduleRules = scheduleRules{b}
	if b.Demo {
		n.DemoQuestions = demo.Questions()
	}
	if cfg.ValueIndexMaxDistinct > 0 {
		b.values = &grounding.ValueIndex{DB: db, Backend: backend, MaxDistinct: cfg.ValueIndexMaxDistinct, Domain: cfg.Domain, Log: log}
		n.Values = b.values
	}
	b.nodes = n
	if b.graph, err = nodes.Graph(n).Compile(); err != nil {
		return nil, fmt.Errorf("compile workflow: %w", err)
	}
	if b.scratch, err = openScratch(log); err != nil {
		return nil, err
	}
	n.ExportDir = b.scratch.Path()
	b.unsaved = newUnsaved(log)
	go b.unsaved.run(db, queryLogTimeout)
	b.stopGauges, err = telemetry.ObserveCapacity(otel.GetMeterProvider(), telemetry.Capacity{
		Turns: func() (int, int) { return b.turns.Running(), b.turns.Waiting() },
		Cache: b.cache.InMemory,
	})
	if err != nil {
		// Only the gauges are lost.
		log.Warn("capacity gauges", "err", err)
		b.stopGauges = func() {}
	}
	return b, nil
}

// CheckModel sends the model c names one short prompt, as doctor does,
// within LLM_TIMEOUT and without retries, and returns the model's display
// name ("openai:gpt-4o-mini"). Its error names the setting to look at.
func CheckModel(ctx context.Context, c Config) (string, error) {
	return llm.Check(ctx, c.llmConfig(), c.LLMTimeout)
}

// llmConfig is the model provider's part of the configuration.
func (c Config) llmConfig() llm.Config {
	lc := llm.Config{Provider: c.Provider(), Model: c.LLMModel, BaseURL: c.LLMBaseURL, ScriptPath: c.LLMScript}
	switch lc.Provider {
	case llm.ProviderOpenAI:
		lc.APIKey = c.OpenAIAPIKey
	case llm.ProviderAnthropic:
		lc.APIKey = c.AnthropicAPIKey
	}
	return lc
}

// model builds the language model the configuration names.
func (b *Bot) model() (*llm.Client, error) {
	cfg := b.cfg
	lc := cfg.llmConfig()
	opts := []llm.ClientOption{llm.WithTimeout(cfg.LLMTimeout), llm.WithRetries(cfg.LLMRetries),
		llm.WithConcurrency(cfg.ModelConcurrency), llm.WithMaxTokens(cfg.LLMMaxTokens)}
	if lc.Provider == llm.ProviderScript && lc.ScriptPath == "" {
		s, err := llm.ParseScript(demo.Script())
		if err != nil {
			return nil, fmt.Errorf("demo script: %w", err)
		}
		b.Scripted, b.Demo, b.ModelName = s, true, "script:demo"
		return llm.NewClient(s, append(opts, llm.WithModelName(b.ModelName))...), nil
	}
	model, name, err := llm.NewModel(lc)
	if err != nil {
		return nil, err
	}
	b.ModelName = name
	if s, ok := model.(*llm.Scripted); ok {
		b.Scripted = s
	}
	return llm.NewClient(model, append(opts, llm.WithModelName(name), llm.WithSecrets(lc.Secrets()...))...), nil
}

// Close releases the backend and the database pool, and removes the
// directory of full exports (deliver them before).
func (b *Bot) Close() {
	b.stopGauges()
	if x, ok := b.nodes.ExampleStore.(*grounding.Examples); ok {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := x.FlushUses(ctx); err != nil {
			b.log.Warn("count example uses", "err", err)
		}
		cancel()
	}
	b.closeBackend()
	b.unsaved.close(b.db, 5*time.Second)
	b.db.Close()
	if err := b.scratch.Close(); err != nil {
		b.log.Warn("remove the export directory", "err", err)
	}
}

// DB returns the bot's database.
func (b *Bot) DB() *store.DB { return b.db }

// Cache returns the bot's result cache.
func (b *Bot) Cache() *store.Cache { return b.cache }

// RefreshValueIndex reads the values of the backend's text columns into
// the value index now (VALUE_INDEX_MAX_DISTINCT=0 turns it off).
func (b *Bot) RefreshValueIndex(ctx context.Context) (grounding.RefreshStats, error) {
	if b.values == nil {
		return grounding.RefreshStats{}, errors.New("the value lookup is off (VALUE_INDEX_MAX_DISTINCT=0)")
	}
	return b.values.Refresh(ctx)
}

// StartValueIndex refreshes the value index in the background, now and
// every VALUE_INDEX_REFRESH, until stop is called or ctx ends. Answers
// never wait for it.
func (b *Bot) StartValueIndex(ctx context.Context) (stop func()) {
	if b.values == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.values.Run(ctx, b.cfg.ValueIndexRefresh)
	}()
	return func() {
		cancel()
		<-done
	}
}

// Backend returns the backend answers come from.
func (b *Bot) Backend() warehouse.Backend { return b.backend }

// Graph returns the compiled workflow.
func (b *Bot) Graph() *workflow.Runnable[nodes.State] { return b.graph }

// Message is one user message in a thread.
type Message struct {
	ThreadID  string
	UserID    string
	ChannelID string
	// Email is the user's address when the surface knows it (Slack's
	// users.info): the database's row-level security can scope rows by it.
	Email string
	// TimeZone is the user's IANA time zone when the surface knows it
	// (Slack's users.info): schedules they make run in it.
	TimeZone string
	Text     string
	// Channels are the channel mentions Text names as "#name", by name
	// (lower case) to their ids: Slack sends a channel picked from its
	// list with its id, which a schedule posting there needs.
	Channels map[string]string
	// Private says a press came from a message its presser alone sees
	// (Slack's ephemeral): in a channel with a ceiling, possibly an answer
	// beyond it, whose thread is theirs (see Press).
	Private bool
	// started is the thread StartThread began for this message, which
	// vouches for its owner (CheckThread) and says, until a question is
	// asked in it, that it has no turns. Unexported: only StartThread
	// vouches.
	started *startedThread
}

// AskState answers a message as Ask does and returns the workflow's final
// state and trace, for the eval and the tests that read the run; front
// ends use Ask. It loads the thread's recent turns and runs the workflow.
// The error is for failures of the workflow itself, and ErrNoThread for a
// thread that is not m.UserID's (see CheckThread; on the web chat a
// message without a thread starts one); answers that explain a problem
// come back in the state.
func (b *Bot) AskState(ctx context.Context, m Message, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	m, err := b.askThread(ctx, m)
	if err != nil {
		return nil, workflow.Result{}, err
	}
	return b.runFrom(ctx, b.stateOf(m), m.startedEmpty(), opts...)
}

// stateOf is the state a run for m starts from.
func (b *Bot) stateOf(m Message) *nodes.State {
	return &nodes.State{UserQuery: m.Text, Channels: m.Channels, UserID: m.UserID, UserEmail: m.Email, ChannelID: m.ChannelID,
		ThreadTS: m.ThreadID, TimeZone: m.TimeZone, Started: time.Now()}
}

// ErrBadAction is returned for a button press with an unknown action or a
// malformed value. Button payloads are untrusted input.
var ErrBadAction = errors.New("bad action")

// BadActionReason is what was wrong with a press err (ErrBadAction), for
// whoever sent it: the reason, without the sentinel's words.
func BadActionReason(err error) string {
	reason, _ := strings.CutPrefix(err.Error(), ErrBadAction.Error()+": ")
	return reason
}

var queryIDPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

// PressState answers a button press as Press does and returns the
// workflow's final state and trace (see AskState): an action of the intent
// table (nodes.ButtonIntent) on the query id (or, for a schedule's, the
// schedule id) in value. It never calls the model. A thread that is not
// m.UserID's gets ErrNoThread (see CheckThread).
func (b *Bot) PressState(ctx context.Context, m Message, action, value string, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	if err := b.CheckThread(ctx, m); err != nil {
		return nil, workflow.Result{}, err
	}
	action, value = pressOf(action, value)
	m, private := b.pressedWhere(ctx, m, value)
	s, err := b.pressOn(m, action, value)
	if err != nil {
		return nil, workflow.Result{}, err
	}
	if private {
		s.Audience = nodes.AudienceAsker
	}
	return b.run(ctx, s, opts...)
}

// run runs the graph for s: with the thread's recent turns, under the
// asker's access policy, and records the turn. A run beside the
// conversation (the intent table's Aside: ratings, Verify, schedules' lists
// and changes) is neither admitted again nor recorded, as it keeps no turn.
func (b *Bot) run(ctx context.Context, s *nodes.State, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	return b.runFrom(ctx, s, false, opts...)
}

// runFrom is run, told whether s's thread is known to have no turns (a
// thread begun for this message): then its history is not asked for.
func (b *Bot) runFrom(ctx context.Context, s *nodes.State, empty bool, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	if s.ThreadTS == "" {
		s.ThreadTS = NewThreadID()
		empty = true
	}
	if nodes.Aside(s.Intent) {
		ctx = warehouse.WithCaller(ctx, warehouse.Caller{UserID: s.UserID, Email: s.UserEmail, ChannelID: s.ChannelID})
	} else {
		var turns []store.Turn
		var err error
		if !empty {
			turns, err = b.db.RecentTurns(ctx, s.ThreadTS, b.cfg.HistoryTurns)
		}
		if err != nil {
			// The workflow reports an unreachable database to the user itself.
			b.log.WarnContext(ctx, "load history", "thread", s.ThreadTS, "err", err)
		}
		s.History = turns
		// Every query of the run is made for this person: their policy
		// (ACCESS_FILE) and the database's row-level security apply.
		ctx, err = b.asCaller(ctx, s)
		var ref *access.Refusal
		if errors.As(err, &ref) {
			return b.refuse(ctx, s, ref), workflow.Result{}, nil
		}
	}
	res, err := b.graph.Run(ctx, s, opts...)
	if !nodes.Aside(s.Intent) {
		b.auditShared(ctx, s)
		b.logTurn(ctx, s, res)
		telemetry.RecordTurn(ctx, s, res, b.backend.Name())
	}
	if err != nil {
		return s, res, fmt.Errorf("answer in thread %s: %w", s.ThreadTS, err)
	}
	return s, res, nil
}

// MinTokenLength is the shortest secret a named API token, or HTTP_TOKEN,
// may have (serve refuses to start with a shorter one; doctor says so
// first).
const MinTokenLength = 16

// APITokens are the web API's named tokens of the access file: each
// secret (from its environment variable) and the user id its requests ask
// as ("token:dashboards"). None without an access file.
func (b *Bot) APITokens() (map[string]string, error) {
	if b.access == nil {
		return nil, nil
	}
	out := map[string]string{}
	for _, tk := range b.access.Tokens() {
		secret := os.Getenv(tk.Env)
		if len(secret) < MinTokenLength {
			return nil, fmt.Errorf("ACCESS_FILE: the token %q needs a secret of at least %d characters in %s", tk.Name, MinTokenLength, tk.Env)
		}
		if _, dup := out[secret]; dup {
			return nil, fmt.Errorf("ACCESS_FILE: the token %q has the same secret as another", tk.Name)
		}
		out[secret] = access.TokenUser(tk.Name)
	}
	return out, nil
}

// Admit says whether the access file lets m's user ask where m comes from:
// nil, or an *access.Refusal whose Reason is the sentence to tell them.
// Without an access file everyone may. Surfaces that would show a question
// to others before answering it (Slack's /ask posts it in the channel)
// check first; Ask and Press check anyway.
func (b *Bot) Admit(ctx context.Context, m Message) error {
	if b.access == nil {
		return nil
	}
	_, err := b.access.Admit(ctx, whoOf(&nodes.State{UserID: m.UserID, ChannelID: m.ChannelID}))
	return err
}

// LogRefusal records in the query log a question of m's that a front end
// refused itself after Admit (Slack's /ask refuses before the question is
// posted, so it never reaches Ask): docs/access.md says refusals are
// logged, with their reason.
func (b *Bot) LogRefusal(ctx context.Context, m Message, ref *access.Refusal) {
	s := b.stateOf(m)
	if s.ThreadTS == "" {
		s.ThreadTS = NewThreadID()
	}
	b.refuse(ctx, s, ref)
}

// SetDirectory lets the access file's groups list Slack user groups,
// whose members d returns (Slack's usergroups.users.list).
func (b *Bot) SetDirectory(d access.Directory) {
	if b.access != nil {
		b.access.SetDirectory(d)
	}
}

// SlackGroups are the Slack user groups the access file's groups name,
// for a surface to list ahead of the first question that needs them.
func (b *Bot) SlackGroups() []string {
	if b.access == nil {
		return nil
	}
	return b.access.SlackGroups()
}

// localChannels are the channels of the operator's own command line,
// which the access file's user and channel lists do not apply to.
var localChannels = []string{"terminal", "cli", "eval"}

// whoOf is the person asking in s, for the access file: a Slack channel id
// starting with D is a direct message.
func whoOf(s *nodes.State) access.Who {
	return access.Who{UserID: s.UserID, ChannelID: s.ChannelID,
		DM: strings.HasPrefix(s.ChannelID, "D"), Local: slices.Contains(localChannels, s.ChannelID)}
}

// refuse answers someone the access file does not admit: the reason, no
// model call, no query; the query log records the refusal.
func (b *Bot) refuse(ctx context.Context, s *nodes.State, ref *access.Refusal) *nodes.State {
	s.ErrorKind, s.ErrorDetail = b.refusalKind(ctx, s.UserID, s.ChannelID, ref)
	s.SetReply(nodes.FormatError, &answer.Answer{Kind: answer.KindError, Text: answer.Plain(ref.Reason)})
	b.logTurn(ctx, s, workflow.Result{})
	return s
}

// refusalKind is the query log's error kind and detail of ref, the access
// file's answer to user in channel: not_admitted with the reason, or, when
// Slack did not say who is in a user group that decides (ref.Unknown),
// access_unknown with why, also logged as a warning. The latter is a
// failure to check, not a refusal of the file's: a schedule is tried
// again for it, not stopped (scheduler's refusedKinds), and the metrics
// count it as failed, not rejected.
func (b *Bot) refusalKind(ctx context.Context, user, channel string, ref *access.Refusal) (nodes.ErrorKind, string) {
	if ref.Unknown == nil {
		return nodes.ErrNotAdmitted, "not admitted: " + ref.Reason
	}
	b.log.WarnContext(ctx, "refused: a Slack user group's members are unknown", "user", user, "channel", channel, "err", ref.Unknown)
	return nodes.ErrAccessUnknown, "access unknown: " + ref.Unknown.Error()
}

// NewThreadID returns a fresh thread id for conversations that start
// outside Slack.
func NewThreadID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on Linux
	return "local-" + hex.EncodeToString(b[:])
}

// Config returns the bot's configuration.
func (b *Bot) Config() Config { return b.cfg }
