package workflow

import (
	"slices"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
)

// DefaultMaxSteps caps node executions per run unless WithMaxSteps says otherwise.
const DefaultMaxSteps = 25

// TracerName is the instrumentation name of the default tracer.
const TracerName = "analyticsbot/workflow"

// CompileOption configures Compile.
type CompileOption func(*compileConfig)

type compileConfig struct {
	maxSteps int
	tracer   trace.Tracer
}

// WithMaxSteps caps the node executions of one run; reaching the cap stops the
// run with ErrMaxSteps. n must be at least 1.
func WithMaxSteps(n int) CompileOption {
	return func(c *compileConfig) { c.maxSteps = n }
}

// WithTracer sets the tracer for run and node spans. The default is
// otel.Tracer(TracerName), resolved once at Compile.
func WithTracer(t trace.Tracer) CompileOption {
	return func(c *compileConfig) { c.tracer = t }
}

// endIndex stands for End wherever a node index is expected.
const endIndex = -1

// exit is where a run goes after a node (or Start): a fixed edge when route is
// nil, otherwise the branch's route checked against targets.
type exit[S any] struct {
	route     RouteFunc[S]
	targets   []string
	targetIdx []int
}

// wiring is the exit declarations of one source, gathered for the checks.
type wiring struct {
	exits  int      // edges plus branches leaving the source
	next   []string // every valid target, for reachability
	broken bool     // some target was invalid, so path checks would only repeat it
	first  int      // first declaration: edge index, or -1-branch index
}

// Compile checks the wiring and returns a runnable graph, or a *CompileError
// listing every mistake found. The Graph may be changed afterwards without
// affecting the Runnable.
func (g *Graph[S]) Compile(opts ...CompileOption) (*Runnable[S], error) {
	cfg := compileConfig{maxSteps: DefaultMaxSteps}
	for _, opt := range opts {
		opt(&cfg)
	}
	if cfg.tracer == nil {
		cfg.tracer = otel.Tracer(TracerName)
	}
	c := &checker[S]{g: g, issues: slices.Clone(g.issues), wires: make(map[string]*wiring)}
	if cfg.maxSteps < 1 {
		c.add(IssueInvalid, "", "max steps %d is below 1", cfg.maxSteps)
	}
	c.collect()
	c.checkExits()
	c.checkPaths()
	if len(c.issues) > 0 {
		return nil, &CompileError{Graph: g.name, Issues: c.issues}
	}
	return c.build(cfg), nil
}

type checker[S any] struct {
	g      *Graph[S]
	issues []Issue
	wires  map[string]*wiring
}

func (c *checker[S]) add(kind IssueKind, node, format string, args ...any) {
	c.issues = append(c.issues, newIssue(kind, node, format, args...))
}

func (c *checker[S]) known(name string) bool {
	_, ok := c.g.index[name]
	return ok
}

// source validates the node an edge or branch leaves and returns its wiring.
func (c *checker[S]) source(from, what string) *wiring {
	switch {
	case from == End:
		c.add(IssueUnknownNode, from, "%s leaves End", what)
		return nil
	case from != Start && !c.known(from):
		c.add(IssueUnknownNode, from, "%s leaves unknown node %q", what, from)
		return nil
	}
	w := c.wires[from]
	if w == nil {
		w = &wiring{}
		c.wires[from] = w
	}
	return w
}

// target validates one destination and records it on w.
func (c *checker[S]) target(w *wiring, to, what string) {
	switch {
	case to == Start:
		c.add(IssueUnknownNode, to, "%s enters Start", what)
	case to != End && !c.known(to):
		c.add(IssueUnknownNode, to, "%s targets unknown node %q", what, to)
	default:
		if w != nil {
			w.next = append(w.next, to)
		}
		return
	}
	if w != nil {
		w.broken = true
	}
}

func (c *checker[S]) collect() {
	for i, e := range c.g.edges {
		what := "edge " + e.from + " -> " + e.to
		w := c.source(e.from, what)
		c.target(w, e.to, what)
		if w != nil {
			if w.exits == 0 {
				w.first = i
			}
			w.exits++
		}
	}
	for i, b := range c.g.branches {
		what := "branch after " + b.from
		w := c.source(b.from, what)
		if b.route == nil {
			c.add(IssueInvalid, b.from, "%s has a nil route", what)
		}
		if len(b.targets) == 0 {
			c.add(IssueBadBranch, b.from, "%s has no targets", what)
			if w != nil {
				w.broken = true
			}
		}
		for j, to := range b.targets {
			if slices.Contains(b.targets[:j], to) {
				c.add(IssueBadBranch, b.from, "%s lists target %q twice", what, to)
				continue
			}
			c.target(w, to, what)
		}
		if w != nil {
			if w.exits == 0 {
				w.first = -1 - i
			}
			w.exits++
		}
	}
}

func (c *checker[S]) checkExits() {
	if w := c.wires[Start]; w == nil {
		c.add(IssueNoEntry, Start, "nothing leaves Start: add an edge or branch from Start")
	} else if w.exits > 1 {
		c.add(IssueExitConflict, Start, "Start has %d edges/branches; it takes exactly one", w.exits)
	}
	for _, n := range c.g.nodes {
		switch w := c.wires[n.info.Name]; {
		case w == nil:
			c.add(IssueNoExit, n.info.Name, "node %q has no outgoing edge or branch", n.info.Name)
		case w.exits > 1:
			c.add(IssueExitConflict, n.info.Name,
				"node %q has %d edges/branches; a node takes exactly one", n.info.Name, w.exits)
		}
	}
}

// checkPaths reports nodes Start cannot reach and nodes that cannot reach End.
func (c *checker[S]) checkPaths() {
	fromStart := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		if fromStart[n] {
			return
		}
		fromStart[n] = true
		if w := c.wires[n]; w != nil {
			for _, to := range w.next {
				walk(to)
			}
		}
	}
	walk(Start)

	toEnd := map[string]bool{End: true}
	for changed := true; changed; {
		changed = false
		for from, w := range c.wires {
			if !toEnd[from] && slices.ContainsFunc(w.next, func(to string) bool { return toEnd[to] }) {
				toEnd[from], changed = true, true
			}
		}
	}

	_, entry := c.wires[Start]
	for _, n := range c.g.nodes {
		name := n.info.Name
		if entry && !fromStart[name] {
			c.add(IssueUnreachable, name, "node %q cannot be reached from Start", name)
		}
		if w := c.wires[name]; w != nil && !w.broken && !toEnd[name] {
			c.add(IssueNoPathToEnd, name, "node %q has no path to End", name)
		}
	}
}

func (c *checker[S]) build(cfg compileConfig) *Runnable[S] {
	r := &Runnable[S]{
		name:        c.g.name,
		maxSteps:    cfg.maxSteps,
		tracer:      cfg.tracer,
		runSpanName: "workflow.run " + c.g.name,
		entry:       c.exitOf(Start),
		nodes:       make([]compiledNode[S], len(c.g.nodes)),
	}
	for i, n := range c.g.nodes {
		r.nodes[i] = compiledNode[S]{
			info:     n.info,
			fn:       n.fn,
			spanName: "workflow.node " + n.info.Name,
			exit:     c.exitOf(n.info.Name),
		}
	}
	return r
}

func (c *checker[S]) exitOf(from string) exit[S] {
	var x exit[S]
	if first := c.wires[from].first; first >= 0 {
		x.targets = []string{c.g.edges[first].to}
	} else {
		b := c.g.branches[-1-first]
		x.route, x.targets = b.route, slices.Clone(b.targets)
	}
	x.targetIdx = make([]int, len(x.targets))
	for i, t := range x.targets {
		x.targetIdx[i] = endIndex
		if t != End {
			x.targetIdx[i] = c.g.index[t]
		}
	}
	return x
}
