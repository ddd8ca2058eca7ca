// Package workflow is a small typed graph engine: nodes are functions that
// mutate one state struct, edges and branches say which node runs next, and
// Compile checks the whole wiring before anything runs. A compiled graph runs
// with a step limit, one OpenTelemetry span per node execution, per-node
// timings and progress callbacks, and draws itself as a Mermaid flowchart.
package workflow

import "context"

// Start and End are the virtual entry and exit of every graph. They cannot be
// declared as nodes; edges and branches refer to them by these names.
const (
	Start = "__start__"
	End   = "__end__"
)

// NodeFunc does the work of one node. It mutates the shared state in place and
// never chooses the next node: routing belongs to edges and branches.
type NodeFunc[S any] func(ctx context.Context, s *S) error

// RouteFunc picks the next node of a branch from the state. It must be pure
// and return one of the targets declared with the branch.
type RouteFunc[S any] func(s *S) string

// NodeInfo describes a node to observers and tools.
type NodeInfo struct {
	// Name identifies the node in edges, spans and results.
	Name string
	// Label is a short human text for progress displays ("Writing SQL…");
	// empty unless set with WithLabel.
	Label string
}

// NodeOption configures a node at AddNode.
type NodeOption func(*NodeInfo)

// WithLabel sets the human label observers show while the node runs.
func WithLabel(label string) NodeOption {
	return func(n *NodeInfo) { n.Label = label }
}

// Graph collects the declaration of a workflow. Its methods never fail or
// panic: every mistake is recorded and reported together by Compile, so the
// whole graph can be declared as one chain of calls.
type Graph[S any] struct {
	name     string
	nodes    []node[S]
	index    map[string]int
	edges    []edge
	branches []branch[S]
	issues   []Issue
}

type node[S any] struct {
	info NodeInfo
	fn   NodeFunc[S]
}

type edge struct{ from, to string }

type branch[S any] struct {
	from    string
	route   RouteFunc[S]
	targets []string
}

// New starts the declaration of a graph. The name labels spans and errors.
func New[S any](name string) *Graph[S] {
	return &Graph[S]{name: name, index: make(map[string]int)}
}

// AddNode declares a node. Declaration order is the order of Nodes and of the
// Mermaid drawing.
func (g *Graph[S]) AddNode(name string, fn NodeFunc[S], opts ...NodeOption) *Graph[S] {
	switch {
	case name == Start || name == End:
		g.issue(IssueReservedName, name, "node name %q is reserved", name)
		return g
	case name == "":
		g.issue(IssueInvalid, name, "node with an empty name")
		return g
	case fn == nil:
		g.issue(IssueInvalid, name, "node %q has a nil function", name)
	}
	if _, dup := g.index[name]; dup {
		g.issue(IssueDuplicateNode, name, "node %q declared twice", name)
		return g
	}
	info := NodeInfo{Name: name}
	for _, opt := range opts {
		opt(&info)
	}
	g.index[name] = len(g.nodes)
	g.nodes = append(g.nodes, node[S]{info: info, fn: fn})
	return g
}

func (g *Graph[S]) issue(kind IssueKind, node, format string, args ...any) {
	g.issues = append(g.issues, newIssue(kind, node, format, args...))
}

// AddEdge declares that to always runs after from. Use Start as from to name
// the entry node and End as to to finish the run.
func (g *Graph[S]) AddEdge(from, to string) *Graph[S] {
	g.edges = append(g.edges, edge{from: from, to: to})
	return g
}

// AddBranch declares that after from, route picks the next node among
// targets. Any other answer stops the run with a *BranchError.
func (g *Graph[S]) AddBranch(from string, route RouteFunc[S], targets ...string) *Graph[S] {
	g.branches = append(g.branches, branch[S]{
		from:    from,
		route:   route,
		targets: append([]string(nil), targets...),
	})
	return g
}
