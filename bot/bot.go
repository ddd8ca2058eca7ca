// Package bot assembles the analytics bot from its configuration: the
// database, the model, the workflow graph. Every front end (the terminal
// chat, the CLI, Slack) asks it questions and presses its buttons.
package bot

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/telemetry"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// Bot answers questions and button presses.
type Bot struct {
	cfg   Config
	db    *store.DB
	exec  *store.Executor
	cache *store.Cache
	graph *workflow.Runnable[nodes.State]
	log   *slog.Logger
	// ModelName is the display name of the model, e.g. "openai:gpt-4o-mini".
	ModelName string
	// Scripted is the scripted model when the provider is "script".
	Scripted *llm.Scripted
	// Demo reports that the bot runs the built-in demo script, not a model.
	Demo bool
}

// New connects to the database and the model. It does not migrate.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*Bot, error) {
	if log == nil {
		log = slog.Default()
	}
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	b, err := newWithDB(cfg, db, log)
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := b.exec.Ping(ctx); err != nil {
		b.Close()
		return nil, err
	}
	if ok, err := db.SchemaExists(ctx, cfg.Schema); err == nil && !ok {
		log.WarnContext(ctx, "the analytics schema does not exist: questions will fail until it does",
			"schema", cfg.Schema, "hint", "check ANALYTICS_SCHEMA, or run `analyticsbot demo load`")
	}
	return b, nil
}

func newWithDB(cfg Config, db *store.DB, log *slog.Logger) (*Bot, error) {
	b := &Bot{cfg: cfg, db: db, log: log}
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
	if b.cache, err = store.NewCache(db, cfg.CachePerThread, cfg.CacheLRUSize); err != nil {
		return nil, fmt.Errorf("result cache: %w", err)
	}
	exec := store.NewExecutor(db, store.ExecConfig{
		Role: cfg.ReaderRole, Schema: cfg.Schema, StatementTimeout: cfg.StatementTimeout, MaxRows: cfg.MaxRows,
		MaxBytes: cfg.MaxResultBytes, URL: cfg.ReaderURL,
	})
	b.exec = exec
	retries := cfg.MaxRetries
	if retries == 0 {
		retries = -1 // SQL_MAX_RETRIES=0 means none, not the default
	}
	n := (&nodes.Nodes{
		Model: model, DB: db, Exec: exec, Cache: telemetry.InstrumentCache(b.cache), Examples: examples,
		Domain: cfg.Domain, Suggestions: b.Suggestions(), Schema: cfg.Schema, MaxRetries: retries, MaxRows: cfg.MaxRows, ExportMaxRows: cfg.ExportMaxRows, Logger: log,
	}).Defaults()
	if n.Cube, err = cubeClient(cfg); err != nil {
		return nil, err
	}
	if b.graph, err = nodes.Graph(n).Compile(); err != nil {
		return nil, fmt.Errorf("compile workflow: %w", err)
	}
	return b, nil
}

// cubeClient returns the Cube client when BACKEND=cube, nil for SQL.
func cubeClient(cfg Config) (nodes.CubeAPI, error) {
	switch cfg.Backend {
	case "", "sql":
		return nil, nil
	case "cube":
	default:
		return nil, fmt.Errorf("BACKEND must be sql or cube, got %q", cfg.Backend)
	}
	var claims map[string]any
	if cfg.CubeSecurityContext != "" {
		if err := json.Unmarshal([]byte(cfg.CubeSecurityContext), &claims); err != nil {
			return nil, fmt.Errorf("CUBE_SECURITY_CONTEXT must be a JSON object: %w", err)
		}
	}
	if cfg.CubeAPISecret == "" {
		return nil, errors.New("BACKEND=cube needs CUBE_API_SECRET, the secret the Cube server checks tokens with")
	}
	c, err := cube.New(cube.Config{APIURL: cfg.CubeAPIURL, Secret: cfg.CubeAPISecret, SecurityContext: claims, Timeout: cfg.CubeTimeout})
	if err != nil {
		return nil, fmt.Errorf("cube: %w", err)
	}
	return c, nil
}

// model builds the language model the configuration names.
func (b *Bot) model() (*llm.Client, error) {
	cfg := b.cfg
	lc := llm.Config{Provider: cfg.Provider(), Model: cfg.LLMModel, BaseURL: cfg.LLMBaseURL, ScriptPath: cfg.LLMScript}
	switch lc.Provider {
	case llm.ProviderOpenAI:
		lc.APIKey = cfg.OpenAIAPIKey
	case llm.ProviderAnthropic:
		lc.APIKey = cfg.AnthropicAPIKey
	}
	opts := []llm.ClientOption{llm.WithTimeout(cfg.LLMTimeout), llm.WithRetries(cfg.LLMRetries)}
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
	return llm.NewClient(model, append(opts, llm.WithModelName(name))...), nil
}

// Close releases the database pools.
func (b *Bot) Close() {
	b.exec.Close()
	b.db.Close()
}

// DB returns the bot's database.
func (b *Bot) DB() *store.DB { return b.db }

// Cache returns the bot's result cache.
func (b *Bot) Cache() *store.Cache { return b.cache }

// Graph returns the compiled workflow.
func (b *Bot) Graph() *workflow.Runnable[nodes.State] { return b.graph }

// Message is one user message in a thread.
type Message struct {
	ThreadID  string
	UserID    string
	ChannelID string
	Text      string
}

// Ask answers a message: it loads the thread's recent turns, runs the
// workflow and returns its final state. The error is for failures of the
// workflow itself; answers that explain a problem come back in the state.
func (b *Bot) Ask(ctx context.Context, m Message, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	s := &nodes.State{UserQuery: m.Text, UserID: m.UserID, ChannelID: m.ChannelID, ThreadTS: m.ThreadID, Started: time.Now()}
	return b.run(ctx, s, opts...)
}

// Actions a button can press.
const (
	ActionExportCSV = "export_csv"
	ActionShowSQL   = "show_sql"
)

// ErrBadAction is returned for a button press with an unknown action or a
// malformed value. Button payloads are untrusted input.
var ErrBadAction = errors.New("bad action")

var queryIDPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

// Press answers a button press for the query id in value. It never calls
// the model.
func (b *Bot) Press(ctx context.Context, m Message, action, value string, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	var intent nodes.Intent
	switch action {
	case ActionExportCSV:
		intent = nodes.IntentExportCSV
	case ActionShowSQL:
		intent = nodes.IntentShowSQL
	default:
		return nil, workflow.Result{}, fmt.Errorf("%w: unknown action %q (want %s or %s)", ErrBadAction, action, ActionExportCSV, ActionShowSQL)
	}
	if !queryIDPattern.MatchString(value) {
		return nil, workflow.Result{}, fmt.Errorf("%w: %q is not a query id (8 hex characters)", ErrBadAction, value)
	}
	if m.Text == "" {
		m.Text = "[button] " + action + " " + value
	}
	s := &nodes.State{
		UserQuery: m.Text, UserID: m.UserID, ChannelID: m.ChannelID, ThreadTS: m.ThreadID, Started: time.Now(),
		Intent: intent, ReferencedQueryID: value,
	}
	return b.run(ctx, s, opts...)
}

func (b *Bot) run(ctx context.Context, s *nodes.State, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	if s.ThreadTS == "" {
		s.ThreadTS = NewThreadID()
	}
	turns, err := b.db.RecentTurns(ctx, s.ThreadTS, b.cfg.HistoryTurns)
	if err != nil {
		// The workflow reports an unreachable database to the user itself.
		b.log.WarnContext(ctx, "load history", "thread", s.ThreadTS, "err", err)
	}
	s.History = turns
	res, err := b.graph.Run(ctx, s, opts...)
	b.logTurn(ctx, s, res)
	telemetry.RecordTurn(ctx, s, res, cmp.Or(b.cfg.Backend, "sql"))
	if err != nil {
		return s, res, fmt.Errorf("answer in thread %s: %w", s.ThreadTS, err)
	}
	return s, res, nil
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

// Suggestions are the example questions offered to users: in the demo, the
// ones the demo script knows; none otherwise.
func (b *Bot) Suggestions() []string {
	if b.Demo {
		return demo.Questions()[:4]
	}
	return nil
}
