package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/access"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// The calls of the MCP server (package mcpserver) beside Ask and Press:
// what the asker may read of the catalog, the value index and the verified
// examples, and a query the client wrote itself. Each is answered under
// the asker's policy and database role, as a turn of its own thread that
// the query log records with its user, policy and role.

// Call intents, as the query log records the MCP server's calls that are
// not questions.
const (
	CallListTables    = string(nodes.IntentListTables)
	CallDescribeTable = string(nodes.IntentDescribeTable)
	CallSearchValues  = string(nodes.IntentSearchValues)
	CallVerified      = string(nodes.IntentListVerified)
	CallContext       = string(nodes.IntentGetContext)
)

// ErrValuesOff is the answer of SearchValues when the value index is off
// (VALUE_INDEX_MAX_DISTINCT=0).
var ErrValuesOff = errors.New("the value lookup is off (VALUE_INDEX_MAX_DISTINCT=0)")

// ErrNoTable is the answer of DescribeTable for a table the asker may not
// read, or that does not exist: the two are told apart for no one.
var ErrNoTable = errors.New("no such table")

// asCaller returns ctx carrying s's asker, under their policy when there
// is an access file, and records the policy and role on s (what run does
// for the graph); an asker the file does not admit gets its *access.Refusal.
func (b *Bot) asCaller(ctx context.Context, s *nodes.State) (context.Context, error) {
	caller := warehouse.Caller{UserID: s.UserID, Email: s.UserEmail, ChannelID: s.ChannelID}
	if b.access != nil {
		p, err := b.access.Admit(ctx, whoOf(s))
		if err != nil {
			return ctx, err
		}
		caller.Access, s.Policy = p, p.Policy()
		caller = b.underCeiling(s, caller)
	}
	ctx = warehouse.WithCaller(ctx, caller)
	if rt, ok := b.backend.(warehouse.RoleTeller); ok {
		s.Role = rt.RoleFor(ctx)
	}
	return ctx, nil
}

// call answers one call that is not a question: fn runs as m's user,
// in a thread of its own, and the query log records it as intent with
// what (its argument) as its question, whatever the outcome. A refused
// asker gets the *access.Refusal, fn not run.
func (b *Bot) call(ctx context.Context, m Message, intent, what string, fn func(ctx context.Context, s *nodes.State) error) error {
	s := &nodes.State{UserQuery: strings.TrimSpace("[" + intent + "] " + what), UserID: m.UserID, UserEmail: m.Email,
		ChannelID: m.ChannelID, ThreadTS: NewThreadID(), Intent: nodes.Intent(intent), Started: time.Now()}
	ctx, err := b.asCaller(ctx, s)
	var ref *access.Refusal
	switch {
	case errors.As(err, &ref):
		s.ErrorKind, s.ErrorDetail = b.refusalKind(ctx, s.UserID, s.ChannelID, ref)
	case err != nil:
		s.ErrorKind, s.ErrorDetail = nodes.ErrInternal, err.Error()
	default:
		if err = fn(ctx, s); err != nil && s.ErrorKind == "" {
			s.ErrorKind, s.ErrorDetail = kindOf(err), err.Error()
		}
	}
	b.logCall(ctx, s)
	if err != nil {
		return fmt.Errorf("%s: %w", intent, err)
	}
	return nil
}

// RefuseCall records a call of the MCP tool named tool that was refused
// before it ran, its arguments (args, as the client sent them) not what
// the tool's schema allows, for reason: a query log row of m's user, under
// their policy and role when the access file admits them, with the tool's
// intent (none for ask, whose intent a question's classification gives),
// "[tool] args" as its question (cut as every question is) and error kind
// invalid_arguments, so the refusal has its audit trail as a refused query
// does.
func (b *Bot) RefuseCall(ctx context.Context, m Message, tool, args, reason string) {
	s := &nodes.State{UserQuery: "[" + tool + "] " + args, UserID: m.UserID, UserEmail: m.Email,
		ChannelID: m.ChannelID, ThreadTS: NewThreadID(), Started: time.Now()}
	if _, ok := nodes.SpecOf(nodes.Intent(tool)); ok {
		s.Intent = nodes.Intent(tool)
	}
	if cctx, err := b.asCaller(ctx, s); err == nil {
		ctx = cctx
	}
	s.ErrorKind, s.ErrorDetail = nodes.ErrInvalidArguments, reason
	b.logCall(ctx, s)
}

// kindOf is the query log's error kind of a call's failure.
func kindOf(err error) nodes.ErrorKind {
	var we *warehouse.Error
	switch {
	case errors.Is(err, ErrNoTable):
		return nodes.ErrAccessDenied
	case errors.As(err, &we) && we.Kind == warehouse.Forbidden:
		return nodes.ErrAccessDenied
	case errors.Is(err, context.DeadlineExceeded):
		return nodes.ErrQueryTimeout
	case errors.Is(err, store.ErrUnavailable):
		return nodes.ErrDatabaseDown
	}
	return nodes.ErrInternal
}

// logCall writes the query log row of a call: no turn is kept, since
// nothing follows up on it.
func (b *Bot) logCall(ctx context.Context, s *nodes.State) {
	l := queryLogOf(s, workflow.Result{}, b.backend.Name(), time.Now())
	l.ErrorKind, l.ErrorDetail = string(s.ErrorKind), s.ErrorDetail
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), queryLogTimeout)
	defer cancel()
	if _, err := b.db.AddTurnRecord(wctx, store.TurnRecord{Log: l}); err != nil {
		b.log.WarnContext(ctx, "record a call", "intent", s.Intent, "user", s.UserID, "err", err)
	}
}

// Tables are the tables, views or cubes m's user may read, with the
// columns they may read (their policy's catalog, as the generator sees it).
func (b *Bot) Tables(ctx context.Context, m Message) ([]warehouse.Table, error) {
	var out []warehouse.Table
	err := b.call(ctx, m, CallListTables, "", func(ctx context.Context, _ *nodes.State) error {
		cat, err := b.backend.Catalog(ctx)
		if err != nil {
			return err
		}
		out = cat.Tables
		return nil
	})
	return out, err
}

// DescribeTable is the table name names ("schema.table", or a name only
// one schema has) as m's user may read it: ErrNoTable when they may not,
// or it does not exist.
func (b *Bot) DescribeTable(ctx context.Context, m Message, name string) (warehouse.Table, error) {
	var out warehouse.Table
	err := b.call(ctx, m, CallDescribeTable, name, func(ctx context.Context, _ *nodes.State) error {
		cat, err := b.backend.Catalog(ctx)
		if err != nil {
			return err
		}
		schema, table, ok := strings.Cut(strings.TrimSpace(name), ".")
		if !ok {
			schema, table = "", schema
		}
		t, found := cat.Table(schema, table)
		if !found {
			// A cube's name has no schema but may hold no dot either;
			// a table named with its dot is found whole.
			if t, found = cat.Table("", strings.TrimSpace(name)); !found {
				return fmt.Errorf("%w: %q", ErrNoTable, name)
			}
		}
		out = t
		return nil
	})
	return out, err
}

// SearchValues looks text's phrases up in the value index, as a question's
// words are (grounding.ValueIndex.Lookup): only values of columns m's user
// may read and see. ErrValuesOff without a value index.
func (b *Bot) SearchValues(ctx context.Context, m Message, text string) ([]store.ValueMatch, error) {
	var out []store.ValueMatch
	err := b.call(ctx, m, CallSearchValues, text, func(ctx context.Context, _ *nodes.State) error {
		if b.values == nil {
			return ErrValuesOff
		}
		var err error
		out, err = b.values.Lookup(ctx, text)
		return err
	})
	return out, err
}

// VerifiedQueries are up to limit verified examples, most used first, whose
// query m's user may run here (the guard alone decides, as for
// SuggestedQuestions, with or without an access file: a query that
// writes, or reads a table this data lacks, is not offered to copy). When
// the data source cannot say, the call fails with its error.
func (b *Bot) VerifiedQueries(ctx context.Context, m Message, limit int) ([]store.Example, error) {
	var out []store.Example
	err := b.call(ctx, m, CallVerified, "", func(ctx context.Context, s *nodes.State) error {
		list, err := b.db.ListExamples(ctx, store.ExampleFilter{Backend: b.backend.Name(), Status: store.StatusVerified, MostUsed: true})
		if err != nil {
			return err
		}
		for _, e := range list {
			if len(out) == limit {
				break
			}
			switch err := warehouse.PermitsShown(ctx, b.backend, e.Query); {
			case err == nil:
			case slices.Contains([]warehouse.ErrorKind{warehouse.Invalid, warehouse.Unsafe, warehouse.Forbidden}, warehouse.KindOf(err)):
				continue
			default:
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// ContextFor is Context recorded as a call: what the generator would be
// given for m's question, under m's user's policy, without the model.
func (b *Bot) ContextFor(ctx context.Context, m Message) (GeneratorContext, error) {
	var out GeneratorContext
	err := b.call(ctx, m, CallContext, m.Text, func(ctx context.Context, _ *nodes.State) error {
		var err error
		out, err = b.Context(ctx, Message{UserID: m.UserID, ChannelID: m.ChannelID, Email: m.Email, Text: m.Text})
		return err
	})
	return out, err
}

// QueryReply is the Reply to a query the client wrote, with Reason: for
// a query the guard or the backend refused, the rule it broke, in the
// words the generator is given to fix its own.
type QueryReply struct {
	Reply
	Reason string
}

// queryRefusals are the error kinds whose detail is a query's refusal.
var queryRefusals = map[nodes.ErrorKind]bool{
	nodes.ErrInvalidQuery: true, nodes.ErrUnsafeQuery: true, nodes.ErrAccessDenied: true, nodes.ErrForbidden: true,
}

// RunQuery runs a query the client wrote (query, in the backend's
// language) for m's user, as a turn of a new thread of theirs: the guard,
// their policy and role, the row cap and the result cache apply as to a
// generated query (the graph's run_query path), but a refused query is not
// rewritten: the reply's Outcome and Reason say why. Its answer has a
// query id, so Press exports it. The error is for failures of the workflow
// itself.
func (b *Bot) RunQuery(ctx context.Context, m Message, query string, opts ...AskOption) (QueryReply, error) {
	ctx, ro := runOptions(ctx, opts)
	s, res, err := b.runQuery(ctx, m, query, ro...)
	out := QueryReply{Reply: replyOf(s, res)}
	if s != nil && queryRefusals[s.ErrorKind] {
		out.Reason = s.ErrorDetail
	}
	return out, err
}

func (b *Bot) runQuery(ctx context.Context, m Message, query string, opts ...workflow.RunOption) (*nodes.State, workflow.Result, error) {
	m.ThreadID = ""
	m, err := b.askThread(ctx, m)
	if err != nil {
		return nil, workflow.Result{}, err
	}
	s := &nodes.State{UserQuery: "[run_query] " + query, UserID: m.UserID, UserEmail: m.Email, ChannelID: m.ChannelID,
		ThreadTS: m.ThreadID, Started: time.Now(), Intent: nodes.IntentRunQuery, IntentSource: "mcp",
		Query: warehouse.Query{Text: query, Backend: b.backend.Name()}}
	return b.run(ctx, s, opts...)
}
