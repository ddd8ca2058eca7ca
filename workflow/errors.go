package workflow

import (
	"errors"
	"fmt"
	"strings"
)

// ErrMaxSteps reports that a run executed as many nodes as WithMaxSteps allows
// without reaching End, which almost always means a retry loop that never exits.
var ErrMaxSteps = errors.New("workflow: max steps reached")

// NodeError reports that a node's function returned an error. The run stops at
// the first one.
type NodeError struct {
	// Node is the name of the failing node.
	Node string
	// Attempt counts the executions of Node in the run, starting at 1.
	Attempt int
	// Err is what the node returned.
	Err error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("node %q (attempt %d): %v", e.Node, e.Attempt, e.Err)
}

// Unwrap returns the node's own error, so errors.Is sees through NodeError.
func (e *NodeError) Unwrap() error { return e.Err }

// BranchError reports that a route returned a target its branch did not declare.
type BranchError struct {
	// From is the node (or Start) whose branch was evaluated.
	From string
	// Target is what the route returned.
	Target string
	// Allowed lists the declared targets in declaration order.
	Allowed []string
}

func (e *BranchError) Error() string {
	return fmt.Sprintf("branch after %q chose undeclared target %q (allowed: %s)",
		e.From, e.Target, strings.Join(e.Allowed, ", "))
}

// IssueKind classifies a wiring mistake found by Compile.
type IssueKind string

// The wiring mistakes Compile detects.
const (
	// IssueDuplicateNode: AddNode called twice with one name.
	IssueDuplicateNode IssueKind = "duplicate-node"
	// IssueReservedName: Start or End declared as a node.
	IssueReservedName IssueKind = "reserved-name"
	// IssueInvalid: an empty name, a nil function or route, or a bad option.
	IssueInvalid IssueKind = "invalid"
	// IssueUnknownNode: an edge or branch names a node that was never added,
	// leaves End or enters Start.
	IssueUnknownNode IssueKind = "unknown-node"
	// IssueExitConflict: a node with more than one edge or branch; a node
	// takes exactly one exit.
	IssueExitConflict IssueKind = "exit-conflict"
	// IssueBadBranch: a branch with no targets or the same target twice.
	IssueBadBranch IssueKind = "bad-branch"
	// IssueNoEntry: nothing leaves Start.
	IssueNoEntry IssueKind = "no-entry"
	// IssueUnreachable: a node no path from Start leads to.
	IssueUnreachable IssueKind = "unreachable"
	// IssueNoExit: a node with neither an edge nor a branch.
	IssueNoExit IssueKind = "no-exit"
	// IssueNoPathToEnd: a node from which End can never be reached.
	IssueNoPathToEnd IssueKind = "no-path-to-end"
)

// Issue is one wiring mistake.
type Issue struct {
	// Kind classifies the mistake.
	Kind IssueKind
	// Node is the node (or Start/End) the mistake is about.
	Node string
	// Detail says what is wrong in words.
	Detail string
}

// CompileError lists every wiring mistake of a graph, so one Compile shows
// them all instead of one per edit.
type CompileError struct {
	// Graph is the name given to New.
	Graph string
	// Issues are in a stable order: declarations first, then graph checks in
	// node declaration order.
	Issues []Issue
}

func (e *CompileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "workflow %q: %d wiring mistake(s): ", e.Graph, len(e.Issues))
	for i, is := range e.Issues {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(is.Detail)
	}
	return b.String()
}

// Kinds returns the kind of every issue, in order; handy in tests and logs.
func (e *CompileError) Kinds() []IssueKind {
	kinds := make([]IssueKind, len(e.Issues))
	for i, is := range e.Issues {
		kinds[i] = is.Kind
	}
	return kinds
}

func newIssue(kind IssueKind, node, format string, args ...any) Issue {
	return Issue{Kind: kind, Node: node, Detail: fmt.Sprintf(format, args...)}
}
