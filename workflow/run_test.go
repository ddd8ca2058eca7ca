package workflow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testState is the state of every test graph.
type testState struct {
	Trail []string // every node appends its name
	Tries int      // written by generator
	Valid bool     // written by validator
}

func record(name string) NodeFunc[testState] {
	return func(_ context.Context, s *testState) error {
		s.Trail = append(s.Trail, name)
		return nil
	}
}

// retryGraph is the generate → validate → generate… loop: the validator
// accepts the third try.
func retryGraph() *Graph[testState] {
	return New[testState]("retry").
		AddNode("generator", func(_ context.Context, s *testState) error {
			s.Tries++
			s.Trail = append(s.Trail, "generator")
			return nil
		}, WithLabel("Writing SQL…")).
		AddNode("validator", func(_ context.Context, s *testState) error {
			s.Valid = s.Tries >= 3
			s.Trail = append(s.Trail, "validator")
			return nil
		}, WithLabel("Checking SQL…")).
		AddEdge(Start, "generator").
		AddEdge("generator", "validator").
		AddBranch("validator", func(s *testState) string {
			if s.Valid {
				return End
			}
			return "generator"
		}, "generator", End)
}

func linearGraph(names ...string) *Graph[testState] {
	g := New[testState]("linear")
	prev := Start
	for _, n := range names {
		g.AddNode(n, record(n)).AddEdge(prev, n)
		prev = n
	}
	return g.AddEdge(prev, End)
}

func compile(t testing.TB, g *Graph[testState], opts ...CompileOption) *Runnable[testState] {
	t.Helper()
	r, err := g.Compile(opts...)
	require.NoError(t, err)
	return r
}

func TestRunLinear(t *testing.T) {
	t.Parallel()
	r := compile(t, linearGraph("a", "b", "c"))
	var s testState
	res, err := r.Run(t.Context(), &s)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, s.Trail)
	assert.Equal(t, []string{"a", "b", "c"}, res.Path())
	var sum int64
	for _, st := range res.Steps {
		assert.Equal(t, 1, st.Attempt, "node %s", st.Node)
		assert.Equal(t, OutcomeOK, st.Outcome, "node %s", st.Node)
		assert.NoError(t, st.Err)
		assert.False(t, st.Start.IsZero(), "node %s has no start time", st.Node)
		assert.Equal(t, st.Duration, res.Duration(st.Node))
		sum += int64(st.Duration)
	}
	assert.GreaterOrEqual(t, int64(res.Total), sum, "total below the sum of its steps")
}

func TestRunRetryLoop(t *testing.T) {
	t.Parallel()
	r := compile(t, retryGraph())
	var s testState
	res, err := r.Run(t.Context(), &s)
	require.NoError(t, err)
	assert.Equal(t, []string{"generator", "validator", "generator", "validator", "generator", "validator"}, res.Path())
	var gotAttempts []int
	for _, st := range res.Steps {
		if st.Node == "generator" {
			gotAttempts = append(gotAttempts, st.Attempt)
		}
	}
	assert.Equal(t, []int{1, 2, 3}, gotAttempts)
	assert.Equal(t, 3, res.Attempts("validator"))
	assert.True(t, s.Valid)
}

func TestRunBranchFromStart(t *testing.T) {
	t.Parallel()
	r := compile(t, New[testState]("g").AddNode("a", record("a")).AddNode("b", record("b")).
		AddBranch(Start, func(*testState) string { return "b" }, "a", "b").
		AddEdge("a", End).AddEdge("b", End))
	res, err := r.Run(t.Context(), &testState{})
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, res.Path())
}

func TestRunBranchToUndeclaredTarget(t *testing.T) {
	t.Parallel()
	g := New[testState]("g").AddNode("a", record("a")).AddNode("b", record("b")).
		AddEdge(Start, "a").
		AddBranch("a", func(*testState) string { return "c" }, "b", End).
		AddEdge("b", End)
	res, err := compile(t, g).Run(t.Context(), &testState{})
	var be *BranchError
	require.True(t, errors.As(err, &be), "got %v, want *BranchError", err)
	assert.Equal(t, &BranchError{From: "a", Target: "c", Allowed: []string{"b", End}}, be)
	assert.EqualError(t, err, `workflow "g": branch after "a" chose undeclared target "c" (allowed: b, __end__)`)
	assert.Equal(t, []string{"a"}, res.Path())
}

func TestRunMaxSteps(t *testing.T) {
	t.Parallel()
	g := New[testState]("loop").AddNode("a", record("a")).AddNode("b", record("b")).
		AddEdge(Start, "a").AddEdge("a", "b").
		AddBranch("b", func(*testState) string { return "a" }, "a", End)
	res, err := compile(t, g, WithMaxSteps(5)).Run(t.Context(), &testState{})
	require.ErrorIs(t, err, ErrMaxSteps)
	assert.Contains(t, err.Error(), `stopped before node "b" after 5 steps`)
	assert.Equal(t, []string{"a", "b", "a", "b", "a"}, res.Path())

	_, err = compile(t, g).Run(t.Context(), &testState{})
	require.ErrorIs(t, err, ErrMaxSteps)
	assert.Contains(t, err.Error(), fmt.Sprintf("after %d steps", DefaultMaxSteps))
}

func TestRunNodeError(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	g := New[testState]("g").AddNode("a", record("a")).
		AddNode("b", func(context.Context, *testState) error { return errBoom }).
		AddNode("c", record("c")).
		AddEdge(Start, "a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", End)
	var s testState
	res, err := compile(t, g).Run(t.Context(), &s)
	require.ErrorIs(t, err, errBoom)
	var ne *NodeError
	require.True(t, errors.As(err, &ne), "got %T, want *NodeError", err)
	assert.Equal(t, "b", ne.Node)
	assert.Equal(t, 1, ne.Attempt)
	assert.Equal(t, errBoom, ne.Unwrap())
	assert.EqualError(t, err, `workflow "g": node "b" (attempt 1): boom`)
	assert.Equal(t, []string{"a"}, s.Trail, "node c ran after b failed")
	require.Len(t, res.Steps, 2)
	assert.Equal(t, OutcomeError, res.Steps[1].Outcome)
	assert.Equal(t, errBoom, res.Steps[1].Err)
}

func TestRunCancellation(t *testing.T) {
	t.Parallel()
	errShutdown := errors.New("shutting down")
	tests := []struct {
		name        string
		ctx         func(t *testing.T) (context.Context, context.CancelCauseFunc)
		b           func(cancel context.CancelCauseFunc) NodeFunc[testState]
		wantErr     []error
		wantPath    []string
		wantOutcome string // of the last step
	}{
		{
			name: "canceled before the run",
			ctx: func(t *testing.T) (context.Context, context.CancelCauseFunc) {
				ctx, cancel := context.WithCancelCause(t.Context())
				cancel(nil)
				return ctx, cancel
			},
			b:        func(context.CancelCauseFunc) NodeFunc[testState] { return record("b") },
			wantErr:  []error{context.Canceled},
			wantPath: []string{},
		},
		{
			name: "deadline passed before the run",
			ctx: func(t *testing.T) (context.Context, context.CancelCauseFunc) {
				ctx, cancel := context.WithTimeout(t.Context(), 0)
				return ctx, func(error) { cancel() }
			},
			b:        func(context.CancelCauseFunc) NodeFunc[testState] { return record("b") },
			wantErr:  []error{context.DeadlineExceeded},
			wantPath: []string{},
		},
		{
			name: "node cancels and finishes its work",
			ctx: func(t *testing.T) (context.Context, context.CancelCauseFunc) {
				return context.WithCancelCause(t.Context())
			},
			b: func(cancel context.CancelCauseFunc) NodeFunc[testState] {
				return func(_ context.Context, s *testState) error {
					cancel(errShutdown)
					s.Trail = append(s.Trail, "b")
					return nil
				}
			},
			wantErr:     []error{context.Canceled, errShutdown},
			wantPath:    []string{"a", "b"},
			wantOutcome: OutcomeOK,
		},
		{
			name: "node cancels and returns the context error",
			ctx: func(t *testing.T) (context.Context, context.CancelCauseFunc) {
				return context.WithCancelCause(t.Context())
			},
			b: func(cancel context.CancelCauseFunc) NodeFunc[testState] {
				return func(ctx context.Context, _ *testState) error {
					cancel(nil)
					return fmt.Errorf("query: %w", ctx.Err())
				}
			},
			wantErr:     []error{context.Canceled},
			wantPath:    []string{"a", "b"},
			wantOutcome: OutcomeCanceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := tt.ctx(t)
			defer cancel(nil)
			g := New[testState]("g").AddNode("a", record("a")).AddNode("b", tt.b(cancel)).AddNode("c", record("c")).
				AddEdge(Start, "a").AddEdge("a", "b").AddEdge("b", "c").AddEdge("c", End)
			var s testState
			res, err := compile(t, g).Run(ctx, &s)
			for _, want := range tt.wantErr {
				assert.ErrorIs(t, err, want)
			}
			assert.Equal(t, tt.wantPath, res.Path())
			assert.NotContains(t, s.Trail, "c", "a node ran after cancellation")
			if tt.wantOutcome != "" {
				assert.Equal(t, tt.wantOutcome, res.Steps[len(res.Steps)-1].Outcome)
			}
		})
	}
}

// eventLog is an Observer that writes one line per call.
type eventLog struct{ events []string }

func (l *eventLog) NodeStarted(_ context.Context, n NodeInfo, attempt int) {
	l.events = append(l.events, fmt.Sprintf("start %s #%d %q", n.Name, attempt, n.Label))
}

func (l *eventLog) NodeFinished(_ context.Context, s Step) {
	l.events = append(l.events, fmt.Sprintf("finish %s #%d %s", s.Node, s.Attempt, s.Outcome))
}

func TestRunObserver(t *testing.T) {
	t.Parallel()
	var first, second eventLog
	res, err := compile(t, retryGraph()).Run(t.Context(), &testState{Tries: 1},
		WithObserver(&first), WithObserver(nil), WithObserver(&second))
	require.NoError(t, err)
	want := []string{
		`start generator #1 "Writing SQL…"`, `finish generator #1 ok`,
		`start validator #1 "Checking SQL…"`, `finish validator #1 ok`,
		`start generator #2 "Writing SQL…"`, `finish generator #2 ok`,
		`start validator #2 "Checking SQL…"`, `finish validator #2 ok`,
	}
	assert.Equal(t, want, first.events)
	assert.Equal(t, want, second.events)
	assert.Len(t, res.Steps, 4)
}

func TestRunConcurrentRunsShareRunnable(t *testing.T) {
	t.Parallel()
	r := compile(t, retryGraph())
	states := make([]testState, 8)
	errs := make([]error, len(states))
	var wg sync.WaitGroup
	for i := range states {
		states[i].Tries = i % 3
		wg.Go(func() { _, errs[i] = r.Run(t.Context(), &states[i]) })
	}
	wg.Wait()
	for i, s := range states {
		require.NoError(t, errs[i])
		assert.Equal(t, 3, s.Tries, "state %d", i)
	}
}

func TestRunRecoversPanic(t *testing.T) {
	t.Parallel()
	type state struct{ n int }
	r, err := New[state]("panics").
		AddNode("boom", func(ctx context.Context, s *state) error { var m map[string]int; m["x"] = 1; return nil }).
		AddEdge(Start, "boom").
		AddEdge("boom", End).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), &state{})
	var pe *PanicError
	if !errors.As(err, &pe) {
		t.Fatalf("Run error = %v, want a *PanicError", err)
	}
	var ne *NodeError
	if !errors.As(err, &ne) || ne.Node != "boom" {
		t.Errorf("Run error = %v, want a NodeError naming boom", err)
	}
	if got := res.Path(); len(got) != 1 || res.Steps[0].Outcome != OutcomeError {
		t.Errorf("steps = %+v, want one failed step", res.Steps)
	}
}
