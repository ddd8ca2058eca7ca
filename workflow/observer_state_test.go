package workflow

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type counterState struct{ n int }

// stateRecorder is an Observer that also reads the state after each node.
type stateRecorder struct{ seen []string }

func (r *stateRecorder) NodeStarted(context.Context, NodeInfo, int) {}
func (r *stateRecorder) NodeFinished(context.Context, Step)         {}
func (r *stateRecorder) NodeState(_ context.Context, st Step, s *counterState) {
	r.seen = append(r.seen, st.Node+"="+string(rune('0'+s.n)))
}

func TestStateObserverSeesTheStateAfterEachNode(t *testing.T) {
	t.Parallel()
	inc := func(_ context.Context, s *counterState) error { s.n++; return nil }
	g, err := New[counterState]("count").
		AddNode("a", inc).AddNode("b", inc).
		AddEdge(Start, "a").AddEdge("a", "b").AddEdge("b", End).
		Compile()
	require.NoError(t, err)
	rec := &stateRecorder{}
	_, err = g.Run(context.Background(), &counterState{}, WithObserver(rec))
	require.NoError(t, err)
	assert.Equal(t, []string{"a=1", "b=2"}, rec.seen)
}
