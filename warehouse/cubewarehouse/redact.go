package cubewarehouse

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// redacted returns err with the message of a query Cube refused (a
// *cube.QueryError or *cube.RefusedError) redacted as PostgreSQL's errors
// are: Cube passes its database's errors on as they are (`invalid input
// syntax for type integer: "ann@corp.test"`), a deployment's queryRewrite
// or data model may quote what it likes in its own (HTTP 500), and the
// message reaches the generator's retry, the user, the query log and an
// MCP client. What is quoted, and numbers, stay only when q wrote them or
// they name a cube or member of the model that the caller may read: never
// one their policy keeps from them.
func (b *Backend) redacted(ctx context.Context, err error, q cube.Query) error {
	var qe *cube.QueryError
	var re *cube.RefusedError
	switch {
	case errors.As(err, &qe):
		return &cube.QueryError{Message: b.redact(ctx, qe.Message, q)}
	case errors.As(err, &re):
		return &cube.RefusedError{Message: b.redact(ctx, re.Message, q)}
	}
	return err
}

// redact is msg, Cube's words about q, with what redacted takes out of
// them taken out.
func (b *Backend) redact(ctx context.Context, msg string, q cube.Query) string {
	words := queryWords(q)
	names := map[string]bool{}
	if m, merr := b.meta.Get(ctx, false); merr == nil {
		for _, t := range warehouse.Filter(catalogOf(m), warehouse.CallerOf(ctx).Access).Tables {
			names[strings.ToLower(t.Name)] = true
			for _, c := range t.Columns {
				names[strings.ToLower(c.Name)] = true
				names[strings.ToLower(memberPart(c.Name))] = true
			}
		}
	}
	known := func(s string) bool { return names[strings.ToLower(s)] }
	keep := func(s string) bool { return warehouse.Written(s, words, known) }
	return warehouse.RedactQuoted(msg, keep)
}

// memberPart is a member's own name, without its cube's.
func memberPart(member string) string {
	if _, m, ok := strings.Cut(member, "."); ok {
		return m
	}
	return member
}

// queryWords are the strings and numbers q writes (members, filter
// values, the limit), as written and in lower case.
func queryWords(q cube.Query) map[string]bool {
	words := map[string]bool{}
	raw, err := json.Marshal(q)
	if err != nil {
		return words
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return words
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				words[k] = true
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case string:
			words[x], words[strings.ToLower(x)] = true, true
		case json.Number:
			words[x.String()] = true
		}
	}
	walk(v)
	return words
}
