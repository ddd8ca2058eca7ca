package bot

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/demo"
	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

// DefaultDatabaseURL is the local Postgres that `make run` sets up.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/analyticsbot?sslmode=disable"

// Config is the bot's configuration, read from the environment. Every
// field has a default that works on a machine with a local Postgres.
type Config struct {
	DatabaseURL string `env:"DATABASE_URL"`
	// Postgres are the PostgreSQL backend's settings: the analytics
	// schemas, the reader role, the statement timeout and the byte cap
	// (ANALYTICS_SCHEMA, READER_ROLE, ...).
	Postgres pgwarehouse.Settings
	// BotSchema holds the bot's own tables, apart from the data.
	BotSchema string `env:"BOT_SCHEMA" envDefault:"analyticsbot"`
	// Domain describes the data to the model and to users.
	Domain string `env:"DATA_DESCRIPTION" envDefault:"Steam store games (the demo data, up to May 2019)"`
	// SQLExamples is a YAML file of few-shot examples, stored at start as
	// verified examples; empty means the embedded examples for the demo
	// schema.
	SQLExamples string `env:"SQL_EXAMPLES"`
	// ExamplesK is how many stored examples, the most like the question,
	// the generator is shown; 0 shows none.
	ExamplesK int `env:"EXAMPLES_K" envDefault:"3"`
	// ExampleAdmins are the Slack user IDs who may verify an answer's
	// query as an example (a Verify button after their 👍).
	ExampleAdmins []string `env:"EXAMPLE_ADMINS" envSeparator:","`
	// ExamplesAutoVerify verifies a candidate example once that many
	// different users gave its answers a 👍; 0 never.
	ExamplesAutoVerify int `env:"EXAMPLES_AUTO_VERIFY" envDefault:"0"`
	// ExamplesEmbeddings finds examples by the meaning of their questions
	// too, with the provider's embeddings (OpenAI or Ollama), by
	// EmbeddingModel (empty: the provider's default).
	ExamplesEmbeddings bool   `env:"EXAMPLES_EMBEDDINGS" envDefault:"false"`
	EmbeddingModel     string `env:"EMBEDDING_MODEL"`
	// ExamplesRefingerprint is how often `serve` and `mcp` (which an AI
	// client keeps for its whole session) bring the stored examples of an
	// earlier fingerprint form (or none) to today's, as every start does:
	// those a replica of an earlier version adds during a rolling upgrade
	// are then recognised without a restart. 0: only at start.
	ExamplesRefingerprint time.Duration `env:"EXAMPLES_REFINGERPRINT" envDefault:"1m"`

	// LinksFile is a YAML file of link rules (docs/links.md): result
	// columns whose values link to a page, in tables and answers. Empty:
	// the demo data's Steam links while DATA_DESCRIPTION is the demo's,
	// none otherwise.
	LinksFile string `env:"LINKS_FILE"`

	// AccessFile is the access file (docs/access.md): who may use the bot
	// and what each person may read. Empty: everyone who can reach the
	// bot reads everything the reader role can (a warning at start).
	AccessFile string `env:"ACCESS_FILE"`

	LLMProvider string        `env:"LLM_PROVIDER"`
	LLMModel    string        `env:"LLM_MODEL"`
	LLMBaseURL  string        `env:"LLM_BASE_URL"`
	LLMScript   string        `env:"LLM_SCRIPT"`
	LLMTimeout  time.Duration `env:"LLM_TIMEOUT" envDefault:"60s"`
	LLMRetries  int           `env:"LLM_RETRIES" envDefault:"2"`
	// LLMMaxTokens bounds each reply of the model (llm.WithMaxTokens); 0
	// leaves it to the provider.
	LLMMaxTokens    int    `env:"LLM_MAX_TOKENS" envDefault:"0"`
	OpenAIAPIKey    string `env:"OPENAI_API_KEY"`
	AnthropicAPIKey string `env:"ANTHROPIC_API_KEY"`

	// ModelConcurrency bounds the model calls made at once (0: no bound);
	// calls beyond it wait for one to end.
	ModelConcurrency int `env:"MODEL_CONCURRENCY" envDefault:"128"`

	// MaxTurns bounds the turns answered at once, over every surface;
	// TurnQueue how many more may wait for a place, each at most TurnWait
	// (Turns).
	MaxTurns  int           `env:"MAX_TURNS" envDefault:"256"`
	TurnQueue int           `env:"TURN_QUEUE" envDefault:"1000"`
	TurnWait  time.Duration `env:"TURN_WAIT" envDefault:"2m"`

	// SchemaBudget is the most prompt tokens the catalog may take in the
	// generator's prompt; a bigger catalog is cut to what the question needs.
	SchemaBudget int `env:"SCHEMA_BUDGET_TOKENS" envDefault:"3000"`
	// GlossaryFile is the team's glossary (docs/workflow.md): terms, their
	// synonyms and what they mean in the data; empty: none.
	GlossaryFile string `env:"GLOSSARY_FILE"`
	// WordNetDir is where the WordNet whose synonyms and related words
	// expand a question's words before grounding is read from: empty, the
	// copy the binary embeds; a dict directory (Debian's wordnet-base:
	// /usr/share/wordnet); or WordNetOff, none.
	WordNetDir string `env:"WORDNET_DIR"`
	// AskBack says when the query generator may ask back which reading of
	// a question is meant instead of writing a query: "values" when its
	// words match several stored values about equally well, "always", or
	// "off".
	AskBack string `env:"ASK_BACK" envDefault:"values"`
	// ValueIndexMaxDistinct is the most distinct values a text column may
	// have to have its values indexed for the value lookup; 0 turns the
	// lookup off.
	ValueIndexMaxDistinct int `env:"VALUE_INDEX_MAX_DISTINCT" envDefault:"50000"`
	// ValueIndexRefresh is how often `serve` reads the values again; 0
	// reads them once, at start.
	ValueIndexRefresh time.Duration `env:"VALUE_INDEX_REFRESH" envDefault:"24h"`

	// MaxRetries is how many times invalid SQL is regenerated.
	MaxRetries int `env:"SQL_MAX_RETRIES" envDefault:"2"`
	// MaxRows caps the rows of a result; above 0 (Check).
	MaxRows int `env:"MAX_ROWS" envDefault:"1000"`
	// ResultFreshness, when above 0, answers a question whose query the
	// same person ran in the same channel less than this long ago from
	// that result, without running it again; the answer says when the data
	// is from and has a Refresh button. 0 (the default) always runs.
	ResultFreshness time.Duration `env:"RESULT_FRESHNESS" envDefault:"0"`
	// ExportMaxRows caps a full CSV export of a result cut at MaxRows.
	ExportMaxRows int `env:"EXPORT_MAX_ROWS" envDefault:"1000000"`
	// ExportMaxBytes caps such an export's file (100 MiB): it ends with
	// the last whole row that fits, and says it was cut.
	ExportMaxBytes int64 `env:"EXPORT_MAX_BYTES" envDefault:"104857600"`
	// DatabaseTimeout bounds each round trip to a database on the bot's
	// side, its own and the reader's (pgpool.Tracer): waiting for a
	// connection, a statement (the question's query, its EXPLAIN, an
	// export and a value lookup get STATEMENT_TIMEOUT more), and the TCP
	// user timeout of their sockets; above 0 (Check).
	DatabaseTimeout time.Duration `env:"DATABASE_TIMEOUT" envDefault:"10s"`
	HistoryTurns    int           `env:"HISTORY_TURNS" envDefault:"5"`
	// identityKey signs who each query runs for (New reads it from the
	// bot's database): never from the environment, never logged.
	identityKey []byte

	// How long query logs, conversation turns and cached results are kept.
	QueryLogRetention time.Duration `env:"QUERY_LOG_RETENTION" envDefault:"168h"`
	TurnRetention     time.Duration `env:"TURN_RETENTION" envDefault:"2160h"`
	ResultRetention   time.Duration `env:"RESULT_RETENTION" envDefault:"720h"`

	// Backend is where answers come from: "postgres" (the analytics
	// schemas; "sql" is the same) or "cube" (a Cube semantic layer).
	Backend string `env:"BACKEND" envDefault:"postgres"`
	// Cube are the Cube backend's settings (CUBE_API_URL, ...).
	Cube           cubewarehouse.Settings
	CachePerThread int `env:"CACHE_PER_THREAD" envDefault:"10"`
	// CacheLRUSize and ResultCacheBytes bound the results kept in memory
	// (store.CacheLimits), by count and by estimated bytes: whichever is
	// reached first lets the least recently used go. The bytes are what
	// bounds memory; the count keeps its old meaning for deployments that
	// set it.
	CacheLRUSize     int   `env:"CACHE_LRU_SIZE" envDefault:"256"`
	ResultCacheBytes int64 `env:"RESULT_CACHE_BYTES" envDefault:"67108864"`

	// Schedules turns on scheduled questions and alerts: the Schedule
	// button, the words that make one, and (in serve) the scheduler that
	// runs them (docs/schedules.md).
	Schedules bool `env:"SCHEDULES" envDefault:"true"`
	// TimeZone is the time zone (an IANA name) of schedules whose owner's
	// the surface does not tell (Slack's users.info does); default UTC.
	TimeZone string `env:"TZ"`
	// SchedulePoll is how often the scheduler looks for due runs, and so
	// how late past its minute a run may start.
	SchedulePoll time.Duration `env:"SCHEDULE_POLL" envDefault:"30s"`
	// ScheduleLease is how long a replica's claim on a run lasts without
	// being renewed: a replica that dies mid-run is taken over after it.
	ScheduleLease time.Duration `env:"SCHEDULE_LEASE" envDefault:"2m"`
	// ScheduleRetries is how many times a failed run is tried again
	// (SCHEDULE_RETRY_DELAY, doubling) before its owner is told.
	ScheduleRetries    int           `env:"SCHEDULE_RETRIES" envDefault:"2"`
	ScheduleRetryDelay time.Duration `env:"SCHEDULE_RETRY_DELAY" envDefault:"1m"`
	// ScheduleAdmins may list, pause and delete every schedule of a
	// channel (Slack user ids); EXAMPLE_ADMINS when unset.
	ScheduleAdmins []string `env:"SCHEDULE_ADMINS" envSeparator:","`
}

// Location is TZ's time zone; UTC when TZ is unset or unknown (Check
// reports an unknown one).
func (c Config) Location() *time.Location {
	if c.TimeZone == "" {
		return time.UTC
	}
	loc, err := time.LoadLocation(strings.TrimPrefix(c.TimeZone, ":"))
	if err != nil {
		return time.UTC
	}
	return loc
}

// ConfigFromEnv reads Config from the environment and checks it.
func ConfigFromEnv() (Config, error) {
	var c Config
	if err := ParseEnv(&c); err != nil {
		return c, fmt.Errorf("read configuration: %w", err)
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = DefaultDatabaseURL
	}
	if err := c.Postgres.DefaultReader(c.DatabaseURL); err != nil {
		return c, fmt.Errorf("read configuration: %w", err)
	}
	if err := c.Check(); err != nil {
		return c, err
	}
	return c, nil
}

// Check cleans the schema list (spaces around names, empty entries,
// repeats), fills empty schema settings with their defaults, and reports
// settings that cannot work together; the backends' own settings are
// checked by their packages (pgwarehouse.Settings.Check; Cube's when the
// backend opens).
func (c *Config) Check() error {
	errs := append([]error{c.Postgres.Check()}, c.checkNumbers()...)
	schemas := c.Postgres.Schemas
	if c.BotSchema = strings.TrimSpace(c.BotSchema); c.BotSchema == "" {
		c.BotSchema = store.DefaultSchema
	}
	var admins []string
	for _, a := range c.ExampleAdmins {
		if a = strings.TrimSpace(a); a != "" && !slices.Contains(admins, a) {
			admins = append(admins, a)
		}
	}
	c.ExampleAdmins = admins
	if c.TimeZone != "" {
		if _, err := time.LoadLocation(strings.TrimPrefix(c.TimeZone, ":")); err != nil {
			errs = append(errs, fmt.Errorf("TZ must be a time zone such as Europe/London, got %q", c.TimeZone))
		}
	}
	if c.Schedules && (c.SchedulePoll <= 0 || c.ScheduleLease < 2*c.SchedulePoll || c.ScheduleRetries < 0 || c.ScheduleRetryDelay <= 0) {
		errs = append(errs, fmt.Errorf("SCHEDULE_POLL and SCHEDULE_RETRY_DELAY must be positive, SCHEDULE_RETRIES 0 or more, "+
			"and SCHEDULE_LEASE at least twice SCHEDULE_POLL; got %s, %s, %d and %s",
			c.SchedulePoll, c.ScheduleRetryDelay, c.ScheduleRetries, c.ScheduleLease))
	}
	if c.AskBack == "" {
		c.AskBack = string(nodes.AskBackValues)
	}
	if !nodes.AskBackMode(c.AskBack).Valid() {
		errs = append(errs, fmt.Errorf("ASK_BACK must be values, always or off, got %q", c.AskBack))
	}
	if c.ResultFreshness < 0 {
		errs = append(errs, fmt.Errorf("RESULT_FRESHNESS must be 0 (off) or a duration such as 10m, got %s", c.ResultFreshness))
	}
	if c.ExamplesK < 0 {
		errs = append(errs, fmt.Errorf("EXAMPLES_K must be 0 (no examples) or more, got %d", c.ExamplesK))
	}
	if c.ExamplesEmbeddings && !llm.HasEmbeddings(c.Provider()) {
		errs = append(errs, fmt.Errorf("EXAMPLES_EMBEDDINGS needs a model provider with embeddings (openai or ollama); %q has none", c.Provider()))
	}
	if c.ExamplesRefingerprint < 0 {
		errs = append(errs, fmt.Errorf("EXAMPLES_REFINGERPRINT must be 0 (only at start) or a duration such as 1m, got %s", c.ExamplesRefingerprint))
	}
	if c.ExamplesAutoVerify < 0 {
		errs = append(errs, fmt.Errorf("EXAMPLES_AUTO_VERIFY must be 0 (off) or a number of users, got %d", c.ExamplesAutoVerify))
	}
	if slices.Contains(schemas, c.BotSchema) {
		errs = append(errs, fmt.Errorf("BOT_SCHEMA %q holds the bot's own tables (conversations, results, logs) and must not be one of ANALYTICS_SCHEMA", c.BotSchema))
	}
	if ident := store.IdentitySchema(c.BotSchema); slices.Contains(schemas, ident) {
		errs = append(errs, fmt.Errorf("%q holds the functions that tell row-level security who a query runs for (docs/security.md) and must not be one of ANALYTICS_SCHEMA", ident))
	}
	if _, ok := backends[c.backendName()]; !ok {
		errs = append(errs, fmt.Errorf("BACKEND must be one of %s, got %q", strings.Join(backendNames(), ", "), c.Backend))
	}
	if c.LinksFile != "" {
		if _, err := answer.LoadLinks(c.LinksFile); err != nil {
			errs = append(errs, fmt.Errorf("LINKS_FILE: %w", err))
		}
	}
	if c.AccessFile != "" {
		if _, err := access.Load(c.AccessFile); err != nil {
			errs = append(errs, fmt.Errorf("ACCESS_FILE: %w", err))
		}
	}
	if c.GlossaryFile != "" {
		if _, err := lexicon.LoadGlossary(c.GlossaryFile); err != nil {
			errs = append(errs, fmt.Errorf("GLOSSARY_FILE: %w", err))
		}
	}
	if c.WordNetDir != "" && c.WordNetDir != WordNetOff {
		if _, err := os.Stat(filepath.Join(c.WordNetDir, "index.noun")); err != nil {
			errs = append(errs, fmt.Errorf("WORDNET_DIR: %q is no WordNet dict directory (it has no index.noun; Debian's wordnet-base installs one in /usr/share/wordnet; leave it empty for the embedded copy, %q for none)", c.WordNetDir, WordNetOff))
		}
	}
	return errors.Join(errs...)
}

// Provider returns the model provider to use: LLM_PROVIDER when set, else
// the first provider with a key, else the scripted demo model.
func (c Config) Provider() string {
	switch {
	case c.LLMProvider != "":
		return c.LLMProvider
	case c.OpenAIAPIKey != "":
		return "openai"
	case c.AnthropicAPIKey != "":
		return "anthropic"
	default:
		return "script"
	}
}

// demoDomain is DATA_DESCRIPTION's default: the bot answers from the demo
// data.
const demoDomain = "Steam store games (the demo data, up to May 2019)"

// links reads LINKS_FILE, or gives the demo data's links when the bot
// answers from it: PostgreSQL described as the demo (another backend's
// "name" column is not a Steam game).
func (c Config) links(backend string) (answer.Links, error) {
	if c.LinksFile != "" {
		return answer.LoadLinks(c.LinksFile)
	}
	if c.Domain != demoDomain || backend != pgwarehouse.Name {
		return nil, nil
	}
	l, err := answer.ParseLinks(demo.Links())
	if err != nil {
		return nil, fmt.Errorf("the demo's links: %w", err)
	}
	return l, nil
}

// WordNetOff is the WORDNET_DIR that turns WordNet off.
const WordNetOff = "off"

// lexicon opens WORDNET_DIR (empty: the embedded WordNet, decompressed
// now, at start, rather than by the first question) and GLOSSARY_FILE;
// nil with neither.
func (c Config) lexicon(log *slog.Logger) (*lexicon.Lexicon, error) {
	if c.WordNetDir == WordNetOff && c.GlossaryFile == "" {
		log.Info("WordNet is off (WORDNET_DIR=off)")
		return nil, nil
	}
	lex := &lexicon.Lexicon{}
	var err error
	if c.GlossaryFile != "" {
		if lex.Glossary, err = lexicon.LoadGlossary(c.GlossaryFile); err != nil {
			return nil, fmt.Errorf("GLOSSARY_FILE: %w", err)
		}
		log.Info("glossary loaded", "file", c.GlossaryFile, "terms", len(lex.Glossary.Entries))
	}
	switch c.WordNetDir {
	case WordNetOff:
		log.Info("WordNet is off (WORDNET_DIR=off)")
		return lex, nil
	case "":
		lex.WordNet = lexicon.EmbeddedWordNet()
		if err := lex.WordNet.Load(); err != nil {
			return nil, fmt.Errorf("WORDNET_DIR is empty: %w (WORDNET_DIR=%s starts without WordNet)", err, WordNetOff)
		}
	default:
		if lex.WordNet, err = lexicon.OpenWordNet(c.WordNetDir); err != nil {
			return nil, fmt.Errorf("WORDNET_DIR: %w", err)
		}
	}
	lex.WordNet.Logger = log
	log.Info("WordNet", "source", lex.WordNet.Source)
	return lex, nil
}
