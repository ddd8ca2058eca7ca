// Package pgwarehouse answers questions from PostgreSQL: it describes the
// analytics schemas as the reader role sees them, checks generated SQL with
// the static guard (package sqlguard) and an EXPLAIN, runs it logged in as
// the read-only reader role under row, byte and time caps, streams exports,
// and turns Postgres errors into warehouse error kinds.
package pgwarehouse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Name is the backend's name in stored queries, logs and metrics.
const Name = "postgres"

// DefaultCatalogTTL is how long the described catalog is reused.
const DefaultCatalogTTL = 5 * time.Minute

// Config configures a Backend: the executor's settings, and how long the
// catalog is reused.
type Config struct {
	ExecConfig
	// CatalogTTL is how long the described catalog is reused (default 5
	// minutes); a query naming a table it lacks is checked against a fresh
	// one.
	CatalogTTL time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// PolicyRoles are the login roles of the access policies, by policy
	// name (ApplyPolicies): a caller under one of them is answered as its
	// role, so the database enforces the policy too. A policy without a
	// role is answered as the reader.
	PolicyRoles map[string]string
}

// Backend is PostgreSQL as a warehouse.Backend.
type Backend struct {
	cfg     ExecConfig
	exec    *Executor
	catalog warehouse.Memo[*warehouse.Catalog]

	roles   map[string]string
	mu      sync.Mutex
	byRole  map[string]*Executor
	roleErr map[string]error
	views   map[string]*policyView // by policy name
	all     *policyView            // the catalog's guard policy for a caller without access rules
}

// policyView is a catalog as one policy sees it, the policy as decided
// over the whole catalog, and the guard's rules for it, kept while the
// catalog it was made from is current.
type policyView struct {
	from    *warehouse.Catalog
	catalog *warehouse.Catalog
	access  warehouse.Access // warehouse.Decide's
	guard   sqlguard.Policy  // without RowLimit
}

// view returns cat as access sees it, made once per catalog and policy.
func (b *Backend) view(cat *warehouse.Catalog, access warehouse.Access) *policyView {
	b.mu.Lock()
	defer b.mu.Unlock()
	if v := b.views[access.Policy()]; v != nil && v.from == cat {
		return v
	}
	// One decision over cat (views, partitions, inheritance) for both.
	access = warehouse.Decide(cat, access)
	filtered := warehouse.Filter(cat, access)
	p := GuardPolicy(b.cfg.Schemas, tableNames(filtered), 0)
	p.Forbidden, p.DeniedColumns, p.MaskedColumns = warehouse.Outside(cat, access)
	p.Columns = columnsOf(cat)
	v := &policyView{from: cat, catalog: filtered, access: access, guard: p}
	b.views[access.Policy()] = v
	return v
}

// columnsOf are the columns of cat's relations (tables and partitions),
// keyed "schema.table", as the guard reads them (sqlguard.Policy.Columns):
// with them it tells c.email, a column, from c.to_json or (c).hash_record,
// a function called on c's whole row, and (c).name, a column, from a
// function on a value.
func columnsOf(cat *warehouse.Catalog) map[string][]string {
	out := make(map[string][]string, len(cat.Tables)+len(cat.Partitions))
	for _, t := range append(cat.Tables[:len(cat.Tables):len(cat.Tables)], cat.Partitions...) {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = c.Name
		}
		out[t.Schema+"."+t.Name] = cols
	}
	return out
}

// whole returns the guard's policy over all of cat, made once per catalog:
// every question's check asked for the same list of its table names.
func (b *Backend) whole(cat *warehouse.Catalog) *policyView {
	b.mu.Lock()
	defer b.mu.Unlock()
	if v := b.all; v != nil && v.from == cat {
		return v
	}
	p := GuardPolicy(b.cfg.Schemas, tableNames(cat), 0)
	p.Columns = columnsOf(cat)
	b.all = &policyView{from: cat, catalog: cat, guard: p}
	return b.all
}

// New returns a Backend reading cfg.Schemas of the database; it connects
// on first use. Close it when done.
func New(cfg Config) *Backend {
	exec := NewExecutor(cfg.ExecConfig)
	b := &Backend{cfg: exec.Config(), exec: exec, roles: cfg.PolicyRoles, byRole: map[string]*Executor{}, roleErr: map[string]error{},
		views: map[string]*policyView{}}
	ttl := cfg.CatalogTTL
	if ttl <= 0 {
		ttl = DefaultCatalogTTL
	}
	b.catalog = warehouse.Memo[*warehouse.Catalog]{TTL: ttl, Now: cfg.Now, Load: b.describe}
	return b
}

// Close closes the backend's connections.
func (b *Backend) Close() {
	b.exec.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.byRole {
		e.Close()
	}
}

// Permits implements warehouse.Permitter: the guard with the caller's
// policy, no EXPLAIN.
func (b *Backend) Permits(ctx context.Context, text string) error {
	_, err := b.guard(ctx, text, b.cfg.MaxRows)
	return err
}

// RoleFor implements warehouse.RoleTeller: the role ctx's caller's queries
// run as.
func (b *Backend) RoleFor(ctx context.Context) string {
	if a := warehouse.CallerOf(ctx).Access; a != nil {
		if role, ok := b.roles[a.Policy()]; ok {
			return role
		}
	}
	return b.cfg.Role
}

// execFor is the executor a query of ctx's caller runs on: their policy's
// role when it has one, else the reader.
func (b *Backend) execFor(ctx context.Context) (*Executor, error) {
	a := warehouse.CallerOf(ctx).Access
	if a == nil {
		return b.exec, nil
	}
	role, ok := b.roles[a.Policy()]
	if !ok {
		return b.exec, nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if e, ok := b.byRole[role]; ok {
		return e, nil
	}
	if err := b.roleErr[role]; err != nil {
		return nil, err
	}
	cfg, err := asRole(b.cfg, role)
	if err != nil {
		b.roleErr[role] = err
		return nil, err
	}
	cfg.Policy = a.Policy()
	e := NewExecutor(cfg)
	b.byRole[role] = e
	return e, nil
}

// Ping checks that the reader role can log in.
func (b *Backend) Ping(ctx context.Context) error { return b.exec.Ping(ctx) }

// Problems lists what stands between the reader and the analytics schemas:
// schemas that do not exist or that the reader may not use.
func (b *Backend) Problems(ctx context.Context) ([]string, error) {
	return b.exec.missingSchemas(ctx, b.cfg.Schemas)
}

// Executor returns the backend's executor, which runs SQL without the guard.
func (b *Backend) Executor() *Executor { return b.exec }

// Name implements warehouse.Backend.
func (b *Backend) Name() string { return Name }

// Dialect implements warehouse.Backend.
func (b *Backend) Dialect() warehouse.Dialect { return b.dialect() }

// Catalog implements warehouse.Backend: the tables and columns the caller
// may read (warehouse.Caller's Access).
func (b *Backend) Catalog(ctx context.Context) (*warehouse.Catalog, error) {
	cat, err := b.catalog.Get(ctx, false)
	if err != nil {
		return nil, err
	}
	if a := warehouse.CallerOf(ctx).Access; a != nil {
		return b.view(cat, a).catalog, nil
	}
	return cat, nil
}

func (b *Backend) describe(ctx context.Context) (*warehouse.Catalog, error) {
	cat, err := b.exec.Describe(ctx, b.cfg.Schemas)
	if err != nil {
		return nil, err
	}
	if len(cat.Tables) == 0 {
		return nil, &warehouse.Error{Kind: warehouse.NoData, Reason: fmt.Sprintf(
			"no tables in %s: check ANALYTICS_SCHEMA, load data into it (make run loads the demo) and grant the reader role access",
			schemaScope(b.cfg.Schemas))}
	}
	return cat, nil
}

// Check implements warehouse.Backend: the static guard on the parse tree
// (one SELECT over the catalog's tables and allowlisted functions, a LIMIT
// of limit+1), then an EXPLAIN as the reader, so an unknown column or a
// type error comes back in Postgres' words for the generator to fix.
func (b *Backend) Check(ctx context.Context, text string, limit int) (warehouse.Runnable, error) {
	if strings.TrimSpace(text) == "" {
		return warehouse.Runnable{}, warehouse.Reject(string(sqlguard.ClassEmpty),
			"the reply held no SQL statement; reply with JSON holding the sql field", false)
	}
	if limit <= 0 {
		limit = b.cfg.MaxRows
	}
	g, err := b.guard(ctx, text, limit)
	if err != nil {
		return warehouse.Runnable{}, err
	}
	exec, err := b.execFor(ctx)
	if err != nil {
		return warehouse.Runnable{}, err
	}
	if err := exec.Explain(b.named(ctx), g.Run); err != nil {
		return warehouse.Runnable{}, b.qualify(ctx, err)
	}
	r := warehouse.Runnable{Query: warehouse.Query{Backend: Name, Text: text}, Statement: g.Run, Limit: limit}
	fp, err := fingerprintEncoded(g.Encoded)
	if err != nil {
		// The guard read it, so this is not expected; the id of the
		// text as written (DatasetOf's fallback) still names it.
		return r, nil
	}
	return r.Identified(fp), nil
}

// guard checks text against the catalog, refreshed once when the query
// names a table the cached catalog lacks (it may have been created since).
func (b *Backend) guard(ctx context.Context, text string, limit int) (sqlguard.Guarded, error) {
	cat, err := b.catalog.Get(ctx, false)
	if err != nil {
		return sqlguard.Guarded{}, err
	}
	access := warehouse.CallerOf(ctx).Access
	g, err := sqlguard.GuardTree(text, b.guardPolicy(cat, access, limit))
	var rej *sqlguard.Rejection
	if errors.As(err, &rej) && rej.Class == sqlguard.ClassRelation {
		if fresh, ferr := b.catalog.Get(ctx, true); ferr == nil {
			g, err = sqlguard.GuardTree(text, b.guardPolicy(fresh, access, limit))
		}
	}
	switch {
	case errors.As(err, &rej) && rej.Class == sqlguard.ClassAccess:
		return sqlguard.Guarded{}, &warehouse.Error{Kind: warehouse.Forbidden, Class: string(rej.Class), Reason: rej.Reason}
	case errors.As(err, &rej):
		return sqlguard.Guarded{}, warehouse.Reject(string(rej.Class), rej.Reason, rej.Class.Unsafe())
	}
	return g, err
}

// guardPolicy is the guard's policy over cat for a caller with access: the
// tables they may read, and what exists but is not theirs.
func (b *Backend) guardPolicy(cat *warehouse.Catalog, access warehouse.Access, limit int) sqlguard.Policy {
	var p sqlguard.Policy
	if access == nil {
		p = b.whole(cat).guard
	} else {
		p = b.view(cat, access).guard
	}
	p.RowLimit = GuardPolicy(nil, nil, limit).RowLimit
	return p
}

// Run implements warehouse.Backend.
func (b *Backend) Run(ctx context.Context, q warehouse.Runnable) (warehouse.Result, error) {
	exec, err := b.execFor(ctx)
	if err != nil {
		return warehouse.Result{}, err
	}
	res, err := exec.QueryRows(b.named(ctx), q.Statement, q.Limit)
	return res, b.qualify(ctx, err)
}

// qualify names the schema of the table a policy's refusal names: with
// several schemas on the search path, PostgreSQL's "permission denied
// for table developers" does not, and the asker should read
// "analytics.developers" when the catalog has one table of that name.
func (b *Backend) qualify(ctx context.Context, err error) error {
	var we *warehouse.Error
	if !errors.As(err, &we) || we.Kind != warehouse.Forbidden || len(b.cfg.Schemas) < 2 {
		return err
	}
	name, ok := strings.CutPrefix(we.Reason, "you may not read ")
	if !ok || strings.ContainsAny(name, ". ") {
		return err
	}
	cat, cerr := b.catalog.Get(ctx, false)
	if cerr != nil {
		return err
	}
	found := ""
	for _, t := range append(cat.Tables[:len(cat.Tables):len(cat.Tables)], cat.Partitions...) {
		if t.Name == name {
			if found != "" {
				return err // in several schemas: the operator knows which
			}
			found = t.Schema + "." + t.Name
		}
	}
	if found == "" {
		return err
	}
	q := *we
	q.Reason = "you may not read " + found
	return &q
}

// Export implements warehouse.Backend: the query through the guard with a
// LIMIT of limit+1, streamed.
func (b *Backend) Export(ctx context.Context, q warehouse.Query, w io.Writer, limit warehouse.ExportLimit) (warehouse.ExportStats, error) {
	if limit.Rows <= 0 {
		limit.Rows = b.cfg.MaxRows
	}
	g, err := b.guard(ctx, q.Text, limit.Rows)
	if err != nil {
		return warehouse.ExportStats{}, err
	}
	exec, err := b.execFor(ctx)
	if err != nil {
		return warehouse.ExportStats{}, err
	}
	st, err := exec.ExportCSV(b.named(ctx), g.Run, w, limit)
	return st, b.qualify(ctx, err)
}

// Show implements warehouse.Backend: the SQL as written.
func (b *Backend) Show(_ context.Context, q warehouse.Query) warehouse.Shown {
	return warehouse.Shown{Language: "SQL", Text: prettySQL(q.Text)}
}
