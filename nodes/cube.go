package nodes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
)

// CubeAPI is what the nodes need from a Cube semantic layer; *cube.Client
// implements it. With Nodes.Cube set, the generator writes a Cube query
// instead of SQL, and the validator, executor, cache and buttons work on
// it; everything else in the workflow is the same.
type CubeAPI interface {
	Meta(ctx context.Context) (*cube.Meta, error)
	Load(ctx context.Context, q cube.Query) (*cube.Result, error)
	SQL(ctx context.Context, q cube.Query) (string, error)
}

// isCubeQuery reports a stored query that is a Cube query (JSON) rather
// than SQL, which never starts with a brace.
func isCubeQuery(q string) bool { return strings.HasPrefix(strings.TrimSpace(q), "{") }

// metaCache keeps Cube's meta for SchemaTTL; a query naming a member the
// cached meta lacks refreshes it early, as the model may have changed.
type metaCache struct {
	mu   sync.Mutex
	meta *cube.Meta
	at   time.Time
}

func (n *Nodes) cubeMeta(ctx context.Context, refresh bool) (*cube.Meta, error) {
	c := &n.meta
	c.mu.Lock()
	defer c.mu.Unlock()
	if !refresh && c.meta != nil && n.Now().Sub(c.at) < n.SchemaTTL {
		return c.meta, nil
	}
	m, err := n.Cube.Meta(ctx)
	if err != nil {
		return nil, fmt.Errorf("cube meta: %w", err)
	}
	c.meta, c.at = m, n.Now()
	return m, nil
}

// cubeReply is the generator's reply in Cube mode.
type cubeReply struct {
	Query       json.RawMessage `json:"query"`
	Assumptions []string        `json:"assumptions"`
	Reasoning   string          `json:"reasoning"`
}

// generateCube asks the model for one Cube query; on a retry the prompt
// carries the previous query and the exact problems.
func (n *Nodes) generateCube(ctx context.Context, s *State) error {
	meta, err := n.cubeMeta(ctx, false)
	if err != nil {
		dbFailure(s, err)
		return nil
	}
	data := prompts.GenerateCube{
		Domain: n.Domain, Question: s.Question(), Today: n.Now().Format("2006-01-02"),
		Meta: meta.Describe(), MaxRows: cube.MaxLimit,
	}
	if s.Intent == IntentFollowUp {
		data.EarlierQuery = earlierSQL(s)
	}
	if s.ErrorKind == ErrInvalidSQL {
		s.RetryCount++
		data.PreviousQuery, data.PreviousError = s.SQL, s.ErrorDetail
		s.ErrorKind, s.ErrorDetail = "", ""
	}
	reply, err := n.complete(ctx, s, llm.StepGenerateCube, data)
	if err != nil {
		modelFailure(s, err)
		return nil
	}
	var r cubeReply
	s.SQL = ""
	if err := decodeJSON(reply, &r); err != nil || len(r.Query) == 0 || string(r.Query) == "null" {
		s.note("generator reply held no Cube query: " + truncate(reply, 200))
	} else {
		s.SQL = string(r.Query)
	}
	s.setGenerated(r.Reasoning, r.Assumptions)
	return nil
}

// validateCube checks the query against Cube's meta without a model and
// normalises it (operators, values, limit); problems go back to the
// generator.
func (n *Nodes) validateCube(ctx context.Context, s *State) error {
	if s.SQL == "" {
		s.ValidationError = `the reply held no Cube query; reply with JSON holding the "query" field`
		s.fail(ErrInvalidSQL, s.ValidationError)
		return nil
	}
	q, err := n.normalizeCube(ctx, s.SQL)
	var invalid *cube.ValidationError
	switch {
	case errors.As(err, &invalid), errors.Is(err, errNotCubeJSON):
		s.ValidationError = err.Error()
		s.fail(ErrInvalidSQL, s.ValidationError)
		return nil
	case err != nil:
		dbFailure(s, err)
		return nil
	}
	// A limit the validator imposed (the model gave none, or too large a
	// one) is a cap, not part of the question: the query that runs asks
	// for one row more, so that a result the cap cut can be told from one
	// that has exactly that many rows, as RunSQL does for SQL. A model's
	// own "top 5" is the answer and runs as it is.
	var asked struct {
		Limit int `json:"limit"`
	}
	_ = json.Unmarshal([]byte(s.SQL), &asked) // normalizeCube parsed it already
	run := q
	if asked.Limit <= 0 || asked.Limit > cube.MaxLimit {
		run.Limit++
	}
	shown, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("encode cube query: %w", err)
	}
	runs, err := json.Marshal(run)
	if err != nil {
		return fmt.Errorf("encode cube query: %w", err)
	}
	s.SQL, s.RunSQL, s.Valid = string(shown), string(runs), true
	return nil
}

var errNotCubeJSON = errors.New("the query is not a JSON object of a Cube query")

// normalizeCube parses and normalises a Cube query, refreshing the meta
// once when the query names members the cached meta does not know.
func (n *Nodes) normalizeCube(ctx context.Context, text string) (cube.Query, error) {
	var q cube.Query
	if err := json.Unmarshal([]byte(text), &q); err != nil {
		return q, fmt.Errorf("%w: %v", errNotCubeJSON, err)
	}
	meta, err := n.cubeMeta(ctx, false)
	if err != nil {
		return q, err
	}
	norm, err := cube.Normalize(meta, q)
	var invalid *cube.ValidationError
	if errors.As(err, &invalid) {
		if fresh, ferr := n.cubeMeta(ctx, true); ferr == nil && fresh != meta {
			norm, err = cube.Normalize(fresh, q)
		}
	}
	return norm, err
}

// loadCube runs the normalised Cube query runText and converts its result;
// rows beyond the limit of shownText, the query as users see it, mark the
// result as cut (validateCube asks for one more when the limit is a cap).
func (n *Nodes) loadCube(ctx context.Context, shownText, runText string) (store.Result, error) {
	var shown, run cube.Query
	if err := json.Unmarshal([]byte(shownText), &shown); err != nil {
		return store.Result{}, fmt.Errorf("%w: %v", errNotCubeJSON, err)
	}
	if err := json.Unmarshal([]byte(runText), &run); err != nil {
		return store.Result{}, fmt.Errorf("%w: %v", errNotCubeJSON, err)
	}
	res, err := n.Cube.Load(ctx, run)
	if err != nil {
		return store.Result{}, err
	}
	return cubeResult(res, shown.Limit), nil
}

// cubeResult converts Cube's rows; column types are named like Postgres's
// so the cache and the Block Kit table treat them alike.
func cubeResult(r *cube.Result, limit int) store.Result {
	out := store.Result{Columns: make([]store.Column, len(r.Columns)), Rows: r.Rows}
	if out.Rows == nil {
		out.Rows = [][]any{}
	}
	for i, c := range r.Columns {
		out.Columns[i] = store.Column{Name: c.Name, Type: columnType(r.Rows, i, c.Type)}
	}
	if limit > 0 && len(out.Rows) > limit {
		out.Rows = out.Rows[:limit]
		out.Truncated, out.LimitedBy = true, "rows"
	}
	out.RowCount = len(out.Rows)
	return out
}

func columnType(rows [][]any, col int, cubeType string) string {
	switch cubeType {
	case "time":
		return "timestamp"
	case "boolean":
		return "bool"
	case "string":
		return "text"
	}
	integral := true
	for _, row := range rows {
		switch row[col].(type) {
		case int64, nil:
		case float64:
			integral = false
		default:
			return "text"
		}
	}
	if integral {
		return "int8"
	}
	return "float8"
}

// cubeSQL is what Show SQL shows for a Cube query: the query, pretty, and
// the SQL Cube generates for it (empty when Cube cannot say).
func (n *Nodes) cubeSQL(ctx context.Context, text string) (query, sql string) {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(text), "", "  "); err != nil {
		return text, ""
	}
	query = pretty.String()
	if n.Cube == nil {
		return query, ""
	}
	var q cube.Query
	if err := json.Unmarshal([]byte(text), &q); err != nil {
		return query, ""
	}
	sql, err := n.Cube.SQL(ctx, q)
	if err != nil {
		n.Logger.WarnContext(ctx, "cube sql", "err", err)
		return query, ""
	}
	return query, sql
}
