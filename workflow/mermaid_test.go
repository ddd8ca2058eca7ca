package workflow

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// sampleGraph is shaped like the analytics bot: a router, a retry loop and
// early exits. declareEdgesBackwards flips the order of the AddEdge calls.
func sampleGraph(declareEdgesBackwards bool) *Graph[testState] {
	g := New[testState]("sample")
	for _, n := range []string{"classify", "resolve", "generate_sql", "validate_sql", "execute", "interpret", "help"} {
		g.AddNode(n, record(n))
	}
	route := func(*testState) string { return End }
	wiring := []func(){
		func() { g.AddEdge(Start, "classify") },
		func() { g.AddBranch("classify", route, "resolve", "help", End) },
		func() { g.AddEdge("resolve", "generate_sql") },
		func() { g.AddEdge("generate_sql", "validate_sql") },
		func() { g.AddBranch("validate_sql", route, "generate_sql", "execute", End) },
		func() { g.AddEdge("execute", "interpret") },
		func() { g.AddEdge("interpret", End) },
		func() { g.AddEdge("help", End) },
	}
	for i := range wiring {
		if declareEdgesBackwards {
			i = len(wiring) - 1 - i
		}
		wiring[i]()
	}
	return g
}

func TestMermaidGolden(t *testing.T) {
	t.Parallel()
	got := compile(t, sampleGraph(false)).Mermaid()
	path := filepath.Join("testdata", "sample.mermaid.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./workflow -run Mermaid -update to create it")
	assert.Equal(t, string(want), got)

	backwards := compile(t, sampleGraph(true)).Mermaid()
	assert.Equal(t, got, backwards, "drawing depends on the order of AddEdge calls")
}

func TestMermaidUnsafeNames(t *testing.T) {
	t.Parallel()
	g := New[testState]("g").AddNode("end", record("end")).AddNode(`load "data"`, record("x")).
		AddEdge(Start, "end").AddEdge("end", `load "data"`).AddEdge(`load "data"`, End)
	want := `flowchart TD
    __start__([start])
    __node0["end"]
    __node1["load #quot;data#quot;"]
    __end__([end])
    __start__ --> __node0
    __node0 --> __node1
    __node1 --> __end__
`
	assert.Equal(t, want, compile(t, g).Mermaid())
}
