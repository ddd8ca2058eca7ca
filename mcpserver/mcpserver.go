// Package mcpserver serves the bot over the Model Context Protocol, to
// desktop and IDE assistants (stdio) and to any MCP client over HTTP (the
// streamable transport on serve's /mcp). It is a front end like Slack, the
// web chat and the terminal: every tool asks through package bot as one
// identity, so the guard, that identity's access policy and database role,
// row scoping, verified examples and the query log hold as they do there.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/bot"
)

// Channel is the channel id of every MCP call: the access file's channel
// lists name it, and the bot knows by it that a thread belongs to whoever
// started it.
const Channel = "mcp"

// DefaultUser is who calls ask as over stdio without --as and without an
// access file: everyone reads what the reader role reads.
const DefaultUser = "mcp"

// Config bounds what one call may take and return.
type Config struct {
	// MaxRows bounds the rows a result returns in one call (ask,
	// run_query); the rest are counted, and export_csv has them all.
	MaxRows int `env:"MCP_MAX_ROWS" envDefault:"100"`
	// MaxBytes bounds a call's whole result in bytes as the client
	// receives it, content and structured content together (bounded):
	// rows and listed items beyond it are left out, saying so, and an
	// export beyond it is refused.
	MaxBytes int `env:"MCP_MAX_BYTES" envDefault:"262144"`
	// Timeout bounds one call, waiting for a place (MAX_TURNS) included.
	Timeout time.Duration `env:"MCP_TIMEOUT" envDefault:"2m"`
}

// ConfigFromEnv reads the MCP_* settings and refuses a bound that is not
// above 0, which withDefaults would otherwise replace without a word.
func ConfigFromEnv() (Config, error) {
	var c Config
	if err := bot.ParseEnv(&c); err != nil {
		return Config{}, fmt.Errorf("MCP configuration: %w", err)
	}
	var errs []error
	if c.MaxRows <= 0 {
		errs = append(errs, fmt.Errorf("MCP_MAX_ROWS must be a number of rows above 0, such as 100, got %d", c.MaxRows))
	}
	if c.MaxBytes <= 0 {
		errs = append(errs, fmt.Errorf("MCP_MAX_BYTES must be a number of bytes above 0, such as 262144, got %d", c.MaxBytes))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("MCP_TIMEOUT must be a duration above 0, such as 2m, got %s", c.Timeout))
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, err
	}
	return c, nil
}

// withDefaults fills the bounds a Config built in code left at 0.
func (c Config) withDefaults() Config {
	if c.MaxRows <= 0 {
		c.MaxRows = 100
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 256 << 10
	}
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Minute
	}
	return c
}

// Server is the bot's MCP server: its tools, for one identity (stdio) or
// the identity of each HTTP request's token.
type Server struct {
	bot *bot.Bot
	cfg Config
	log *slog.Logger
	// user is who every call asks as; empty over HTTP, where each
	// request's bearer token says (TokenInfo.UserID).
	user string
	mcp  *mcp.Server
	// inputs are the tools' input schemas by name, which checkArguments
	// checks each call's arguments against.
	inputs map[string]*jsonschema.Schema
}

// version is the server's version as clients see it.
const version = "1.0.0"

// implementation is the server as clients see it: the SDK sends it in
// every result's _meta to a client of a newer protocol.
var implementation = &mcp.Implementation{Name: "analyticsbot", Title: "analyticsbot", Version: version}

// New returns the MCP server of b whose calls ask as user; an empty user
// takes each call's identity from its HTTP bearer token (Handler), and a
// call without one is refused.
func New(b *bot.Bot, cfg Config, user string, log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{bot: b, cfg: cfg.withDefaults(), log: log.With("component", "mcp"), user: user,
		inputs: map[string]*jsonschema.Schema{}}
	s.mcp = mcp.NewServer(implementation,
		&mcp.ServerOptions{Instructions: s.instructions(), Logger: s.log})
	s.addTools()
	s.mcp.AddReceivingMiddleware(s.checkArguments)
	return s
}

// MCP is the SDK's server, to run over a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves one client over r and w (stdin and stdout: newline-delimited
// JSON-RPC) until it disconnects or ctx ends. A message longer than the
// SDK's bound (mcp.DefaultMaxLineLength, 16 MiB) ends the session; a
// shorter one with too long an argument is a tool error.
func (s *Server) Run(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	t := &mcp.IOTransport{Reader: r, Writer: w}
	if err := s.mcp.Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("serve MCP over stdio: %w", err)
	}
	return nil
}

func (s *Server) instructions() string {
	d := s.bot.Backend().Dialect()
	return fmt.Sprintf("analyticsbot answers questions about %s from %s, read-only, under the caller's access policy. "+
		"Call ask with a question in plain words for a whole answer; or get_context, list_tables, describe_table and "+
		"search_values to learn the data, then run_query with a %s query of your own. list_verified_queries shows "+
		"queries the data team verified. export_csv returns an answer's whole result as CSV.",
		s.bot.Config().Domain, d.Source, d.Language)
}

// errNoIdentity refuses a call that carries no identity: no tools without
// one.
var errNoIdentity = errors.New("this call has no identity: the MCP server answers only calls it can tell the asker of (docs/mcp.md)")

// message is the bot message of a call: its asker, the MCP channel.
func (s *Server) message(req *mcp.CallToolRequest) (bot.Message, error) {
	user := s.user
	if req != nil && req.Extra != nil && req.Extra.TokenInfo != nil {
		user = req.Extra.TokenInfo.UserID
	}
	if user == "" {
		return bot.Message{}, errNoIdentity
	}
	return bot.Message{UserID: user, ChannelID: Channel}, nil
}

// errBusy is what a call is told when the bot answers as many as it may
// (MAX_TURNS, TURN_QUEUE, TURN_WAIT).
var errBusy = errors.New("the bot is answering as many questions as it may at once: try again in a minute")

// limited runs fn within the call's limits: a place among the turns the
// process answers at once (MAX_TURNS, shared with every surface) and
// MCP_TIMEOUT. A panic is the call's error, never the server's end.
func (s *Server) limited(ctx context.Context, tool string, fn func(ctx context.Context) error) (err error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	release, err := s.bot.Turns().Admit(ctx, nil)
	switch {
	case errors.Is(err, bot.ErrBusy):
		return errBusy
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("no place to answer within MCP_TIMEOUT (%s): %w", s.cfg.Timeout, errBusy)
	case err != nil:
		return err
	}
	defer release()
	defer func() {
		if v := recover(); v != nil {
			s.log.ErrorContext(ctx, "tool panicked", "tool", tool, "panic", v, "stack", string(debug.Stack()))
			err = errInternal
		}
	}()
	return s.said(ctx, tool, fn(ctx))
}

// told is an error whose text is written for the client.
type told struct{ error }

// tell returns an error whose text the client reads as it is.
func tell(format string, args ...any) error { return told{fmt.Errorf(format, args...)} }

// said is a tool's error as the client reads it: the sentences written
// for people (this package's, the access file's refusal, bot's) as they
// are; anything else is the bot's own failure, logged for the operator.
func (s *Server) said(ctx context.Context, tool string, err error) error {
	var (
		ref *access.Refusal
		t   told
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &t):
		return t
	case errors.As(err, &ref):
		return errors.New(ref.Reason)
	case errors.Is(err, bot.ErrNoTable):
		return errors.New("no such table among those you may read: list_tables lists them")
	case errors.Is(err, bot.ErrValuesOff):
		return bot.ErrValuesOff
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return fmt.Errorf("the call took longer than MCP_TIMEOUT (%s) and was stopped", s.cfg.Timeout)
	}
	s.log.ErrorContext(ctx, "tool failed", "tool", tool, "err", err)
	return errInternal
}

// errInternal is what the client reads of a failure of the bot's own.
var errInternal = errors.New("something went wrong on the bot's side; the operator's log has the details")
