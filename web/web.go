// Package web is the bot's browser front end: a JSON and server-sent-events
// API (/api/*) over the same workflow Slack uses, and the chat page that
// calls it, embedded from web/static. It holds no state of its own:
// conversations live in Postgres under thread ids of the form "web-<hex>",
// which the bot issues to the identity that starts them and refuses to
// anyone else (bot.StartThread, bot.CheckThread).
package web

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/bot"
)

//go:embed static
var staticFiles embed.FS

// Defaults of Config.
const (
	// DefaultMaxBody bounds a request body: a question is at most a few
	// thousand characters.
	DefaultMaxBody = 64 << 10
)

// Config configures the web front end.
type Config struct {
	// Token, when set, is the bearer token every /api/* request needs.
	// Without it only loopback clients should reach the server (see
	// CheckAddr), and requests from other sites are refused.
	Token string
	// Tokens are named API tokens (the access file's): each secret, and
	// the user id its requests ask as ("token:dashboards"), whose access
	// policy applies. HTTP_TOKEN's requests ask as "web".
	Tokens map[string]string
	// MaxBody bounds request bodies in bytes (default DefaultMaxBody);
	// larger ones get 413.
	MaxBody int
	// MaxRuns, when above 0, bounds the questions the web API answers at
	// once on its own; 0 shares the bot's bound (MAX_TURNS, TURN_QUEUE,
	// TURN_WAIT) with Slack. A question beyond the bound waits, its stream
	// saying so; one beyond the queue is refused with 503 and Retry-After.
	MaxRuns int
	// RunDone, when set, is called after each chat run with its thread,
	// reply and error: tests wait on it instead of on time.
	RunDone func(thread string, r bot.Reply, err error)

	// ask, when set, answers the chat's questions in place of the bot's
	// Ask: tests make a run fail as only a defect of the bot would.
	ask func(context.Context, bot.Message, ...bot.AskOption) (bot.Reply, error)
}

// server holds the handlers' dependencies.
type server struct {
	bot     *bot.Bot
	cfg     Config
	log     *slog.Logger
	turns   *bot.Turns
	threads threadQueues
}

// New returns the handler of the web chat: the page at / and /static/*,
// the API at /api/*, /healthz (the process is alive) and /readyz (its
// databases answer: bot.ServeReady).
func New(b *bot.Bot, cfg Config, log *slog.Logger) http.Handler {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if log == nil {
		log = slog.Default()
	}
	turns := b.Turns()
	if cfg.MaxRuns > 0 {
		turns = bot.NewTurns(cfg.MaxRuns, 0, turns.MaxWait())
	}
	s := &server{bot: b, cfg: cfg, log: log.With("component", "web"), turns: turns}
	if s.cfg.ask == nil {
		s.cfg.ask = b.Ask
	}

	api := http.NewServeMux()
	api.Handle("/api/chat/stream", only(http.MethodPost, s.serveStream))
	api.Handle("/api/actions", only(http.MethodPost, s.serveAction))
	api.Handle("/api/threads/{id}", only(http.MethodGet, s.serveThread))
	api.Handle("/api/examples", only(http.MethodGet, s.serveExamples))
	api.Handle("/api/buttons", only(http.MethodGet, s.serveButtons))
	api.HandleFunc("/api/", func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "no such API endpoint")
	})

	mux := http.NewServeMux()
	mux.Handle("/api/", s.guard(api))
	static, _ := fs.Sub(staticFiles, "static") // "static" is embedded: Sub cannot fail
	files := http.StripPrefix("/static/", http.FileServerFS(static))
	mux.HandleFunc("GET /static/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "index.html")
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		bot.ServeReady(w, b.Ready(r.Context()))
	})
	return s.recover(headers(mux))
}

// pageCSP matches the policy the page declares itself: it loads nothing
// but its own files, whatever answers and data say.
const pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// headers sets the headers every response carries.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Security-Policy", pageCSP)
		// The embedded files change with the binary and carry no dates:
		// browsers revalidate rather than keep an old page. The API's
		// answers hold data (rows, CSV files, threads): a browser keeps
		// none of them, on a shared machine's disk least of all.
		h.Set("Cache-Control", "no-cache")
		if strings.HasPrefix(r.URL.Path, "/api/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// recover turns a handler's panic into a 500 with a JSON error, logged
// with its stack, so no client ever sees one.
func (s *server) recover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			switch v := recover(); v {
			case nil:
			case http.ErrAbortHandler: // the server's own way to drop a connection
				panic(v)
			default:
				s.log.ErrorContext(r.Context(), "handler panicked", "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
				writeError(w, http.StatusInternalServerError, textInternal)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// only lets method through and answers others with a JSON 405.
func only(method string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeError(w, http.StatusMethodNotAllowed, "use "+method+" for "+r.URL.Path)
			return
		}
		h(w, r)
	})
}

// readTimeout bounds reading a request body; the server itself sets no
// read timeout, since one would also cancel a long answer's stream.
const readTimeout = 30 * time.Second
