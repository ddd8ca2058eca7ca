// Package cubewarehouse answers questions from a Cube semantic layer: its
// data model becomes the catalog (cubes as tables, members as columns), the
// generator writes Cube queries, which are checked and normalised against
// the model without calling Cube, run through Cube's REST API, and shown
// with the SQL Cube generates for them.
package cubewarehouse

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Name is the backend's name in stored queries, logs and metrics.
const Name = "cube"

// ExportLimit is the most rows an export asks Cube for: Cube's default
// limit of a query that names none (CUBEJS_DB_QUERY_DEFAULT_LIMIT). The
// export asks for a row more to tell a cut, which the most a query may ask
// (CUBEJS_DB_QUERY_LIMIT, 50,000 by default) allows; a Cube that sets it
// lower refuses, and is asked again within its own limit (see load).
const ExportLimit = 10_000

// Client is what the backend needs from Cube; *cube.Client implements it.
type Client interface {
	Meta(ctx context.Context) (*cube.Meta, error)
	Load(ctx context.Context, q cube.Query) (*cube.Result, error)
	SQL(ctx context.Context, q cube.Query) (string, error)
}

// Config configures a Backend.
type Config struct {
	// MetaTTL is how long Cube's data model is reused (default 5 minutes);
	// a query naming a member it lacks is checked against a fresh one.
	MetaTTL time.Duration
	// Now returns the current time; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Backend is a Cube semantic layer as a warehouse.Backend.
type Backend struct {
	client Client
	meta   warehouse.Memo[*cube.Meta]
	log    *slog.Logger
}

// New returns a Backend answering through client.
func New(client Client, cfg Config) *Backend {
	b := &Backend{client: client, log: cfg.Logger}
	if b.log == nil {
		b.log = slog.Default()
	}
	ttl := cfg.MetaTTL
	if ttl <= 0 {
		ttl = 5 * time.Minute
	}
	b.meta = warehouse.Memo[*cube.Meta]{TTL: ttl, Now: cfg.Now, Load: func(ctx context.Context) (*cube.Meta, error) {
		m, err := client.Meta(ctx)
		if err != nil {
			return nil, classify(err)
		}
		return m, nil
	}}
	return b
}

// Ping reports whether Cube answers now: it asks for the data model, as a
// question's first read does, afresh rather than from the copy kept for
// MetaTTL, so a Cube that stopped answering, or that no longer takes the
// bot's tokens, fails it. The bot's readiness probe calls it.
func (b *Backend) Ping(ctx context.Context) error {
	if _, err := b.client.Meta(ctx); err != nil {
		return classify(err)
	}
	return nil
}

// Name implements warehouse.Backend.
func (b *Backend) Name() string { return Name }

// Catalog implements warehouse.Backend: each public cube is a table, its
// measures, dimensions and segments are its columns.
func (b *Backend) Catalog(ctx context.Context) (*warehouse.Catalog, error) {
	m, err := b.meta.Get(ctx, false)
	if err != nil {
		return nil, err
	}
	cat := catalogOf(m)
	if len(cat.Tables) == 0 {
		return nil, &warehouse.Error{Kind: warehouse.NoData, Reason: "the Cube data model has no public cubes"}
	}
	// The cubes and members the caller may read.
	return warehouse.FilterNoted(cat, warehouse.CallerOf(ctx).Access, maskedNote), nil
}

// Permits implements warehouse.Permitter: the query normalised against the
// model and checked against the caller's policy, nothing sent to Cube but
// the (cached) model's read.
func (b *Backend) Permits(ctx context.Context, text string) error {
	q, _, err := b.normalize(ctx, text)
	if err != nil {
		return err
	}
	return b.permitted(ctx, q)
}

// permitted checks q against the caller's policy as it applies to the
// model's views (warehouse.Decide).
func (b *Backend) permitted(ctx context.Context, q cube.Query) error {
	a := warehouse.CallerOf(ctx).Access
	if a == nil {
		return nil
	}
	m, err := b.meta.Get(ctx, false)
	if err != nil {
		return err
	}
	return permitted(ctx, catalogOf(m), q)
}

// permitted refuses, as Forbidden, a query naming a cube or member outside
// the caller's access policy as it applies to cat.
func permitted(ctx context.Context, cat *warehouse.Catalog, q cube.Query) error {
	a := warehouse.CallerOf(ctx).Access
	if a == nil {
		return nil
	}
	a = warehouse.Decide(cat, a)
	for _, m := range members(q) {
		c, _, ok := strings.Cut(m, ".")
		if !ok {
			continue // Normalize has refused it already
		}
		if !a.AllowsTable("", c) {
			return &warehouse.Error{Kind: warehouse.Forbidden, Class: "access_denied", Reason: "you may not read the cube " + c}
		}
		if !a.AllowsColumn("", c, m) {
			return &warehouse.Error{Kind: warehouse.Forbidden, Class: "access_denied", Reason: "you may not read " + m}
		}
	}
	// A masked member may only filter: what a query groups by, and what
	// it orders by (which Cube wants selected), comes back as a column.
	returned := append(append([]string{}, q.Measures...), q.Dimensions...)
	for _, td := range q.TimeDimensions {
		if td.Granularity != "" {
			returned = append(returned, td.Dimension)
		}
	}
	for _, o := range q.Order {
		returned = append(returned, o.Member)
	}
	for _, m := range returned {
		if c, _, ok := strings.Cut(m, "."); ok && a.MasksColumn("", c, m) {
			return maskedRefusal(m)
		}
	}
	return nil
}

// maskedNote is what the catalog adds to a masked member's description:
// in Cube a member grouped by is returned, and one ordered by must be
// selected, so a masked member can only filter.
const maskedNote = "Masked: use it only in filters (a time dimension also in timeDimensions with a dateRange and no granularity); never in measures, dimensions or order."

// maskedRefusal refuses a query that returns, groups or orders by the
// masked member m, for the generator to rewrite.
func maskedRefusal(m string) error {
	return warehouse.Reject("columns_not_allowed", m+" is masked: it may only filter the query (in filters, or a time dimension's dateRange without a granularity), never be returned, grouped or ordered by; leave it out of measures, dimensions and order", false)
}

// members are every member a query names: selected, filtered, ordered by.
func members(q cube.Query) []string {
	out := append(append(append([]string{}, q.Measures...), q.Dimensions...), q.Segments...)
	for _, td := range q.TimeDimensions {
		out = append(out, td.Dimension)
	}
	for _, o := range q.Order {
		out = append(out, o.Member)
	}
	var filters func([]cube.Filter)
	filters = func(fs []cube.Filter) {
		for _, f := range fs {
			if f.Member != "" {
				out = append(out, f.Member)
			}
			filters(f.Or)
			filters(f.And)
		}
	}
	filters(q.Filters)
	return out
}

// Check implements warehouse.Backend: the query is normalised against the
// model (see cube.Normalize), with the model read again once when it names
// members the cached one lacks. A limit the model chose is part of the
// answer; one the validator imposes (none given, or more than cube.MaxLimit)
// is a cap: the stored query keeps what the model asked, and the query that
// runs asks for one row more, so a result the cap cut can be told from one
// with exactly that many rows, now and whenever the stored query runs again.
func (b *Backend) Check(ctx context.Context, text string, limit int) (warehouse.Runnable, error) {
	q, asked, err := b.normalize(ctx, text)
	if err != nil {
		return warehouse.Runnable{}, err
	}
	if err := b.permitted(ctx, q); err != nil {
		return warehouse.Runnable{}, err
	}
	capped := asked <= 0 || asked > cube.MaxLimit
	if limit > 0 && limit < q.Limit {
		q.Limit, capped = limit, true
	}
	shown, run := q, q
	if capped {
		shown.Limit = asked
		run.Limit++
	}
	r := warehouse.Runnable{Query: warehouse.Query{Backend: Name}}
	if r.Query.Text, err = encode(shown); err != nil {
		return warehouse.Runnable{}, err
	}
	if r.Statement, err = encode(run); err != nil {
		return warehouse.Runnable{}, err
	}
	if capped {
		r.Limit = q.Limit
	}
	// The fingerprint of the query as stored, from what was decoded
	// above: fingerprint(r.Query.Text) without reading the text again.
	return r.Identified(fingerprintOf(r.Query.Text)), nil
}

// normalize parses and normalises text against the part of the model the
// caller may read (normalizeFor); asked is the limit the query itself
// names (0 for none), which normalisation may have replaced.
func (b *Backend) normalize(ctx context.Context, text string) (q cube.Query, asked int, err error) {
	if strings.TrimSpace(text) == "" {
		return q, 0, warehouse.Reject("", `the reply held no Cube query; reply with JSON holding the "query" field`, false)
	}
	var in cube.Query
	if err := json.Unmarshal([]byte(text), &in); err != nil {
		return q, 0, warehouse.Reject("", "the query is not a JSON object of a Cube query: "+err.Error(), false)
	}
	meta, err := b.meta.Get(ctx, false)
	if err != nil {
		return q, 0, err
	}
	q, err = normalizeFor(ctx, meta, in)
	var invalid *cube.ValidationError
	if errors.As(err, &invalid) {
		if fresh, ferr := b.meta.Get(ctx, true); ferr == nil && fresh != meta {
			q, err = normalizeFor(ctx, fresh, in)
		}
	}
	if errors.As(err, &invalid) {
		return q, 0, warehouse.Reject("", err.Error(), false)
	}
	if err != nil {
		return q, 0, err
	}
	return q, max(in.Limit, 0), nil
}

// Run implements warehouse.Backend.
func (b *Backend) Run(ctx context.Context, r warehouse.Runnable) (warehouse.Result, error) {
	var q cube.Query
	if err := json.Unmarshal([]byte(r.Statement), &q); err != nil {
		return warehouse.Result{}, warehouse.Reject("", "the query is not a JSON object of a Cube query: "+err.Error(), false)
	}
	res, err := b.load(forCaller(ctx), q, true)
	if err != nil {
		if missingMember(err) {
			// The model kept named a member Cube no longer has: read it
			// again, so the retry's prompt and check see it as it is.
			_, _ = b.meta.Get(ctx, true)
		}
		return warehouse.Result{}, classify(b.redacted(ctx, err, q))
	}
	if !res.counted {
		return resultOf(res.Result, r.Limit), nil
	}
	// Asked again within Cube's own limit: the rows the query means are
	// up to its cap, else its own limit.
	want, capped := q.Limit, r.Limit > 0
	if capped {
		want = r.Limit
	}
	out, _ := res.within(want, capped)
	return out, nil
}

// identityClaim is the key of the security context that says who a
// query is for; CUBE_SECURITY_CONTEXT may not set it.
const identityClaim = "analyticsbot"

// forCaller makes the requests of ctx say who they are made for, in the
// token's security context under "analyticsbot" (user_id, user_email,
// channel_id), so the Cube deployment's queryRewrite can scope rows.
func forCaller(ctx context.Context) context.Context {
	c := warehouse.CallerOf(ctx)
	if c == (warehouse.Caller{}) {
		return ctx
	}
	return cube.WithClaims(ctx, map[string]any{identityClaim: map[string]any{
		"user_id": c.UserID, "user_email": strings.ToLower(c.Email), "channel_id": c.ChannelID,
	}})
}

// Export implements warehouse.Backend. Cube answers a query at once, so
// the rows are loaded, then written. The export asks for the rows the
// query itself names, else for up to limit (at most ExportLimit); a Cube
// whose own query limit is lower is asked again within it (load), and the
// stats then say how many rows the query has (Total), as Cube counted them.
func (b *Backend) Export(ctx context.Context, q warehouse.Query, w io.Writer, within warehouse.ExportLimit) (warehouse.ExportStats, error) {
	limit := within.Rows
	if limit <= 0 || limit > ExportLimit {
		limit = ExportLimit
	}
	norm, asked, err := b.normalize(ctx, q.Text)
	if err != nil {
		return warehouse.ExportStats{}, err
	}
	if err := b.permitted(ctx, norm); err != nil {
		return warehouse.ExportStats{}, err
	}
	// The rows the query means: its own limit, else up to the cap, asking
	// for one more to tell a cut.
	want, capped := asked, asked <= 0 || asked > limit
	norm.Limit = asked
	if capped {
		want, norm.Limit = limit, limit+1
	}
	res, err := b.load(forCaller(ctx), norm, true)
	if err != nil {
		return warehouse.ExportStats{}, classify(b.redacted(ctx, err, norm))
	}
	r, total := resultOf(res.Result, want), 0
	if res.counted {
		r, total = res.within(want, capped)
	}
	st, err := warehouse.ExportResult(w, r, within.Bytes)
	if err != nil {
		return warehouse.ExportStats{}, err
	}
	st.Total = total
	return st, nil
}

// Values implements warehouse.Backend: the dimension grouped by itself,
// which Cube answers with its distinct values; refused for a caller whose
// policy denies or masks it. Its rows are not counted (RowsUnknown): a
// cube need not have a measure that counts them. It reads at most
// ExportLimit values (0: that many), asking for one more to tell whether
// there are more: a dimension of more than ExportLimit values, asked for
// more, is an error, not its first ExportLimit values.
func (b *Backend) Values(ctx context.Context, col warehouse.ColumnRef, limit int) (warehouse.ColumnValues, error) {
	meta, err := b.meta.Get(ctx, false)
	if err != nil {
		return warehouse.ColumnValues{}, err
	}
	if _, kind, ok := meta.Lookup(col.Column); !ok || kind != cube.KindDimension {
		return warehouse.ColumnValues{}, warehouse.Errorf(warehouse.Invalid, "%s is not a dimension of the Cube model", col.Column)
	}
	if limit <= 0 {
		limit = ExportLimit
	}
	q := cube.Query{
		Dimensions: []string{col.Column},
		Filters:    []cube.Filter{{Member: col.Column, Operator: "set"}},
		Order:      cube.Order{{Member: col.Column, Direction: "asc"}},
		Limit:      min(limit, ExportLimit+1),
	}
	// A caller's values are what their policy lets them see returned.
	if err := permitted(ctx, catalogOf(meta), q); err != nil {
		return warehouse.ColumnValues{}, err
	}
	res, err := b.load(ctx, q, false)
	if err != nil {
		return warehouse.ColumnValues{}, fmt.Errorf("values of %s: %w", col.Column, classify(b.redacted(ctx, err, q)))
	}
	if len(res.Rows) > ExportLimit && limit > len(res.Rows) {
		return warehouse.ColumnValues{}, fmt.Errorf("values of %s: more than %d values, the most read of a Cube dimension (%d asked)", col.Column, ExportLimit, limit)
	}
	rows := res.Rows[:min(len(res.Rows), limit)]
	values := warehouse.ColumnValues{Distinct: make([]string, 0, len(rows)), Rows: warehouse.RowsUnknown}
	for _, row := range rows {
		values.Distinct = append(values.Distinct, warehouse.Text(row[0]))
	}
	return values, nil
}

// Show implements warehouse.Backend: the query, indented, and the SQL Cube
// generates for it as answers run it (empty when Cube cannot say).
func (b *Backend) Show(ctx context.Context, q warehouse.Query) warehouse.Shown {
	shown := warehouse.Shown{Language: "Cube query", Text: q.Text, SQLBy: "Cube"}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, []byte(q.Text), "", "  "); err != nil {
		return shown
	}
	shown.Text = pretty.String()
	norm, _, err := b.normalize(ctx, q.Text)
	if err != nil {
		b.log.WarnContext(ctx, "cube sql", "err", b.redacted(ctx, err, norm))
		return shown
	}
	// As the asker, as answers run it: the deployment's queryRewrite
	// scopes the SQL by who asks, and may refuse a request for no one.
	sql, err := b.client.SQL(forCaller(ctx), norm)
	if errors.Is(err, cube.ErrQueryLimit) {
		// Answers ask such a Cube again naming no limit (load): the SQL
		// Cube runs is that query's.
		norm.Limit = 0
		sql, err = b.client.SQL(forCaller(ctx), norm)
	}
	if err != nil {
		// Cube's words may quote the data, as a failed load's do.
		b.log.WarnContext(ctx, "cube sql", "err", b.redacted(ctx, err, norm))
		return shown
	}
	shown.SQL = sql
	return shown
}

func encode(q cube.Query) (string, error) {
	b, err := json.Marshal(q)
	if err != nil {
		return "", fmt.Errorf("encode cube query: %w", err)
	}
	return string(b), nil
}

// missingMember reports whether Cube refused a query for naming a member
// or cube its model does not have ("'players' not found for path
// 'Apps.players'", Cube's UserError).
func missingMember(err error) bool {
	var qe *cube.QueryError
	return errors.As(err, &qe) && strings.Contains(qe.Message, "not found for path")
}

// classify turns the Cube client's errors into warehouse error kinds: a query
// Cube refused goes back to the generator with Cube's message.
func classify(err error) error {
	var qe *cube.QueryError
	var re *cube.RefusedError
	switch {
	case errors.Is(err, cube.ErrUnavailable):
		return &warehouse.Error{Kind: warehouse.Unavailable, Reason: err.Error(), Err: err}
	case errors.Is(err, cube.ErrUnauthorized):
		return &warehouse.Error{Kind: warehouse.Unauthorized, Reason: err.Error(), Err: err}
	case errors.Is(err, cube.ErrQueryLimit):
		// Queries asked again within Cube's limit name none, which Cube
		// never refuses; should one still be, a smaller limit is the fix.
		return &warehouse.Error{Kind: warehouse.Invalid, Class: "query_limit",
			Reason: "Cube refuses queries asking for this many rows (its CUBEJS_DB_QUERY_LIMIT); ask for fewer with a lower limit", Err: err}
	case errors.As(err, &qe):
		return &warehouse.Error{Kind: warehouse.Invalid, Reason: qe.Message, Err: err}
	case errors.As(err, &re):
		// Its queryRewrite or data model threw: up, and refusing, as a
		// database refuses a grant; the deployment's words go to the log.
		return &warehouse.Error{Kind: warehouse.Denied, Reason: err.Error(), Err: err}
	}
	return err
}
