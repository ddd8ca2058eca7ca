package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/analyticsbot/analyticsbot/answer"
)

// The SDK checks a call's arguments against its tool's input schema before
// the tool runs, and its refusal quotes the whole value that broke it ("…
// maxLength: \"<10 KB>\" …") in words written for the SDK's developers.
// The schemas keep their bounds, which tell clients the limits, but every
// call is checked here first, against the same schema, so that an argument
// the schema does not allow is refused in this server's words, quoting at
// most answer.MaxQuoted characters of it; the SDK's check then never refuses.

// addTool registers a tool as mcp.AddTool does, its result bounded by
// MCP_MAX_BYTES (bounded), and keeps its input schema (inferred from In
// when the tool gives none) for checkArguments.
func addTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if t.InputSchema == nil {
		t.InputSchema = schema[In](nil, nil)
	}
	s.inputs[t.Name] = t.InputSchema.(*jsonschema.Schema)
	mcp.AddTool(s.mcp, t, bounded(s, h))
}

// checkArguments is receiving middleware that refuses, as a tool error, a
// call whose arguments its tool's input schema does not allow. The query
// log records the refusal, as the tool would have recorded the call.
func (s *Server) checkArguments(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		sc, ok := s.inputs[call.Params.Name]
		if !ok { // an unknown tool: the SDK's protocol error names it
			return next(ctx, method, req)
		}
		if err := argumentsProblem(sc, call.Params.Arguments); err != nil {
			// A call without an identity is refused by the tool as well,
			// and is no one's to record.
			if m, merr := s.message(call); merr == nil {
				s.bot.RefuseCall(ctx, m, call.Params.Name, argumentsText(call.Params.Arguments), err.Error())
			}
			res := &mcp.CallToolResult{}
			res.SetError(err)
			return res, nil
		}
		return next(ctx, method, req)
	}
}

// argumentsText is a call's arguments as the query log keeps them: their
// JSON as sent, at most maxLogged characters of it (the log keeps no more
// of a question), so an argument of megabytes costs no more than that.
func argumentsText(raw json.RawMessage) string {
	var b bytes.Buffer
	text := string(raw)
	if json.Compact(&b, raw) == nil {
		text = b.String()
	}
	cut := 0
	for range maxLogged {
		if cut == len(text) {
			return text
		}
		_, n := utf8.DecodeRuneInString(text[cut:])
		cut += n
	}
	return text[:cut]
}

// argumentsProblem says what of raw, a call's arguments, the tool's input
// schema sc (an object of strings and integers, as schema makes) does not
// allow; nil when it allows them all.
func argumentsProblem(sc *jsonschema.Schema, raw json.RawMessage) error {
	args := map[string]json.RawMessage{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return tell("the arguments must be a JSON object of named values")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if _, ok := sc.Properties[name]; !ok {
			return unknownArgument(sc, name)
		}
	}
	for _, name := range sc.Required {
		if _, ok := args[name]; !ok {
			return tell("%s is missing: %s", name, sc.Properties[name].Description)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if err := valueProblem(name, sc.Properties[name], args[name]); err != nil {
			return err
		}
	}
	return nil
}

// unknownArgument refuses an argument the tool does not take, naming those
// it does.
func unknownArgument(sc *jsonschema.Schema, name string) error {
	known := slices.Sorted(maps.Keys(sc.Properties))
	if len(known) == 0 {
		return tell("this tool takes no argument %s", answer.Quoted(name))
	}
	return tell("this tool takes no argument %s: its arguments are %s", answer.Quoted(name), strings.Join(known, ", "))
}

// valueProblem says what of the argument name's value raw its schema p
// does not allow.
func valueProblem(name string, p *jsonschema.Schema, raw json.RawMessage) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return tell("%s is not a JSON value", name)
	}
	switch p.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return tell("%s must be a string, not %s", name, kindOf(v))
		}
		return lengthProblem(name, p, s)
	case "integer":
		f, ok := v.(float64)
		switch {
		case !ok:
			return tell("%s must be a whole number, not %s", name, kindOf(v))
		case f != math.Trunc(f):
			return tell("%s must be a whole number, not %s", name, strconv.FormatFloat(f, 'g', -1, 64))
		case p.Minimum != nil && f < *p.Minimum, p.Maximum != nil && f > *p.Maximum:
			return tell("%s must be from %s to %s, not %s", name, number(p.Minimum, "any"), number(p.Maximum, "any"),
				strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return nil
}

// lengthProblem says whether s is shorter or longer than p allows, counted
// in characters as JSON schemas count them.
func lengthProblem(name string, p *jsonschema.Schema, s string) error {
	n := utf8.RuneCountInString(s)
	switch {
	case p.MinLength != nil && n < *p.MinLength && n == 0:
		return tell("%s is empty", name)
	case p.MinLength != nil && n < *p.MinLength:
		return tell("%s %s has %d characters; it must have at least %d", name, answer.Quoted(s), n, *p.MinLength)
	case p.MaxLength != nil && n > *p.MaxLength:
		return tell("%s %s has %d characters; it may have at most %d", name, answer.Quoted(s), n, *p.MaxLength)
	}
	return nil
}

// kindOf names a JSON value's type, for an error.
func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "null"
}

// number writes a schema's bound; none when there is none.
func number(f *float64, none string) string {
	if f == nil {
		return none
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}
