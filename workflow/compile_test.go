package workflow

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompileRejectsWiringMistakes(t *testing.T) {
	t.Parallel()
	nop := record("x")
	always := func(to string) RouteFunc[testState] { return func(*testState) string { return to } }

	tests := []struct {
		name      string
		build     func() *Graph[testState]
		opts      []CompileOption
		wantKinds []IssueKind
		wantText  []string
	}{
		{
			name: "duplicate node",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddNode("a", nop).
					AddEdge(Start, "a").AddEdge("a", End)
			},
			wantKinds: []IssueKind{IssueDuplicateNode},
			wantText:  []string{`node "a" declared twice`},
		},
		{
			name: "reserved names as nodes",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode(Start, nop).AddNode(End, nop).AddNode("a", nop).
					AddEdge(Start, "a").AddEdge("a", End)
			},
			wantKinds: []IssueKind{IssueReservedName, IssueReservedName},
			wantText:  []string{`node name "__start__" is reserved`, `node name "__end__" is reserved`},
		},
		{
			name: "empty name, nil function and nil route",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("", nop).AddNode("a", nil).
					AddEdge(Start, "a").AddBranch("a", nil, End)
			},
			wantKinds: []IssueKind{IssueInvalid, IssueInvalid, IssueInvalid},
			wantText:  []string{"empty name", `node "a" has a nil function`, "branch after a has a nil route"},
		},
		{
			name: "edge to unknown node",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").AddEdge("a", "ghost")
			},
			wantKinds: []IssueKind{IssueUnknownNode},
			wantText:  []string{`edge a -> ghost targets unknown node "ghost"`},
		},
		{
			name: "edge from unknown node",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").AddEdge("a", End).
					AddEdge("ghost", "a")
			},
			wantKinds: []IssueKind{IssueUnknownNode},
			wantText:  []string{`edge ghost -> a leaves unknown node "ghost"`},
		},
		{
			name: "edges leaving End and entering Start",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").AddEdge("a", End).
					AddEdge(End, "a").AddBranch("a", always("a"), Start)
			},
			wantKinds: []IssueKind{IssueUnknownNode, IssueUnknownNode, IssueExitConflict},
			wantText:  []string{"leaves End", "enters Start", `node "a" has 2 edges/branches`},
		},
		{
			name: "branch to unknown node",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").
					AddBranch("a", always(End), End, "ghost")
			},
			wantKinds: []IssueKind{IssueUnknownNode},
			wantText:  []string{`branch after a targets unknown node "ghost"`},
		},
		{
			name: "edge and branch on one node",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").AddEdge("a", End).
					AddBranch("a", always(End), End)
			},
			wantKinds: []IssueKind{IssueExitConflict},
			wantText:  []string{`node "a" has 2 edges/branches; a node takes exactly one`},
		},
		{
			name: "two edges out of one node",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddNode("b", nop).
					AddEdge(Start, "a").AddEdge("a", "b").AddEdge("a", End).AddEdge("b", End)
			},
			wantKinds: []IssueKind{IssueExitConflict},
		},
		{
			name: "two entries from Start",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").AddEdge(Start, "a").
					AddEdge("a", End)
			},
			wantKinds: []IssueKind{IssueExitConflict},
			wantText:  []string{"Start has 2 edges/branches"},
		},
		{
			name: "no entry from Start",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge("a", End)
			},
			wantKinds: []IssueKind{IssueNoEntry},
			wantText:  []string{"nothing leaves Start"},
		},
		{
			name:      "empty graph",
			build:     func() *Graph[testState] { return New[testState]("g") },
			wantKinds: []IssueKind{IssueNoEntry},
		},
		{
			name: "unreachable node",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddNode("orphan", nop).
					AddEdge(Start, "a").AddEdge("a", End).AddEdge("orphan", End)
			},
			wantKinds: []IssueKind{IssueUnreachable},
			wantText:  []string{`node "orphan" cannot be reached from Start`},
		},
		{
			name: "node without outgoing path",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a")
			},
			wantKinds: []IssueKind{IssueNoExit},
			wantText:  []string{`node "a" has no outgoing edge or branch`},
		},
		{
			name: "cycle that never reaches End",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddNode("b", nop).
					AddEdge(Start, "a").AddEdge("a", "b").AddBranch("b", always("a"), "a", "b")
			},
			wantKinds: []IssueKind{IssueNoPathToEnd, IssueNoPathToEnd},
			wantText:  []string{`node "a" has no path to End`, `node "b" has no path to End`},
		},
		{
			name: "branch without targets",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").AddBranch("a", always(End))
			},
			wantKinds: []IssueKind{IssueBadBranch},
			wantText:  []string{"branch after a has no targets"},
		},
		{
			name: "branch with duplicate targets",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").
					AddBranch("a", always(End), End, "a", End)
			},
			wantKinds: []IssueKind{IssueBadBranch},
			wantText:  []string{`branch after a lists target "__end__" twice`},
		},
		{
			name: "max steps below one",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", nop).AddEdge(Start, "a").AddEdge("a", End)
			},
			opts:      []CompileOption{WithMaxSteps(0)},
			wantKinds: []IssueKind{IssueInvalid},
			wantText:  []string{"max steps 0 is below 1"},
		},
		{
			name: "several mistakes reported together",
			build: func() *Graph[testState] {
				return New[testState]("sql").
					AddNode("gen", nop).AddNode("gen", nop).AddNode("check", nop).
					AddNode("orphan", nop).AddNode("stuck", nop).
					AddEdge(Start, "gen").AddEdge("gen", "check").
					AddBranch("check", always("gen"), "gen", "exec").
					AddEdge("orphan", End)
			},
			wantKinds: []IssueKind{
				IssueDuplicateNode, IssueUnknownNode, IssueNoExit,
				IssueNoPathToEnd, IssueUnreachable, IssueUnreachable,
			},
			wantText: []string{
				`workflow "sql": 6 wiring mistake(s)`,
				`node "gen" declared twice`,
				`branch after check targets unknown node "exec"`,
				`node "stuck" has no outgoing edge or branch`,
				`node "orphan" cannot be reached from Start`,
				`node "stuck" cannot be reached from Start`,
				`node "gen" has no path to End`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := tt.build().Compile(tt.opts...)
			require.Error(t, err, "got a runnable, want a compile error")
			assert.Nil(t, r)
			var ce *CompileError
			require.True(t, errors.As(err, &ce), "got %T, want *CompileError", err)
			assert.Equal(t, tt.wantKinds, ce.Kinds(), "got issues %v", ce.Issues)
			for _, want := range tt.wantText {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
}

func TestCompileAcceptsValidGraphs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		build func() *Graph[testState]
		want  []NodeInfo
	}{
		{
			name: "linear with labels",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", record("a"), WithLabel("Thinking…")).
					AddNode("b", record("b")).AddEdge(Start, "a").AddEdge("a", "b").AddEdge("b", End)
			},
			want: []NodeInfo{{Name: "a", Label: "Thinking…"}, {Name: "b"}},
		},
		{
			name: "branch from Start",
			build: func() *Graph[testState] {
				return New[testState]("g").AddNode("a", record("a")).AddNode("b", record("b")).
					AddBranch(Start, func(*testState) string { return "b" }, "a", "b").
					AddEdge("a", End).AddEdge("b", End)
			},
			want: []NodeInfo{{Name: "a"}, {Name: "b"}},
		},
		{
			name: "no nodes at all",
			build: func() *Graph[testState] {
				return New[testState]("g").AddEdge(Start, End)
			},
			want: []NodeInfo{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := tt.build().Compile()
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Nodes())
		})
	}
}

func TestCompiledGraphIgnoresLaterDeclarations(t *testing.T) {
	t.Parallel()
	g := New[testState]("g").AddNode("a", record("a")).AddEdge(Start, "a").AddEdge("a", End)
	r, err := g.Compile()
	require.NoError(t, err)
	g.AddNode("b", record("b")).AddEdge("b", End)

	var s testState
	_, err = r.Run(t.Context(), &s)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, s.Trail)
	assert.Len(t, r.Nodes(), 1)
}
