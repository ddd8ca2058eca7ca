package workflow

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// guardState is a state whose nodes report outcomes, as the bot's does:
// a node records a failure in Problem and the pending outcome, the engine
// takes the outcome, a branch routes on Problem.
type guardState struct {
	Query   string
	Problem string
	Handled bool
	pending Outcome
}

func (s *guardState) TakeOutcome() Outcome {
	o := s.pending
	s.pending = Outcome{}
	return o
}

// guardGraph checks the query, runs it, and sends any problem to handle.
func guardGraph() *Graph[guardState] {
	onProblem := func(next string) RouteFunc[guardState] {
		return func(s *guardState) string {
			if s.Problem != "" {
				return "handle"
			}
			return next
		}
	}
	return New[guardState]("guard").
		AddNode("check", func(_ context.Context, s *guardState) error {
			if s.Query == "DELETE" {
				s.Problem, s.pending = "unsafe_query", Rejected("unsafe_query")
			}
			return nil
		}).
		AddNode("run", func(_ context.Context, s *guardState) error {
			if s.Query == "SLOW" {
				s.Problem, s.pending = "query_timeout", Failed("query_timeout")
			}
			return nil
		}).
		AddNode("handle", func(_ context.Context, s *guardState) error {
			s.Handled = true // reads the problem, reports nothing
			return nil
		}).
		AddEdge(Start, "check").
		AddBranch("check", onProblem("run"), "run", "handle").
		AddBranch("run", onProblem(End), "handle", End).
		AddEdge("handle", End)
}

func TestReportedOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		query string
		want  []Step // Node, Attempt, Outcome and Kind
	}{
		{
			name: "ok", query: "SELECT",
			want: []Step{{Node: "check", Outcome: OutcomeOK}, {Node: "run", Outcome: OutcomeOK}},
		},
		{
			name: "rejected, then handled", query: "DELETE",
			want: []Step{
				{Node: "check", Outcome: OutcomeRejected, Kind: "unsafe_query"},
				{Node: "handle", Outcome: OutcomeOK},
			},
		},
		{
			name: "failed, then handled", query: "SLOW",
			want: []Step{
				{Node: "check", Outcome: OutcomeOK},
				{Node: "run", Outcome: OutcomeFailed, Kind: "query_timeout"},
				{Node: "handle", Outcome: OutcomeOK},
			},
		},
	}
	g, err := guardGraph().Compile()
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &guardState{Query: tt.query}
			res, err := g.Run(t.Context(), s)
			require.NoError(t, err, "a rejected or failed step does not stop the run")
			var got []Step
			for _, st := range res.Steps {
				got = append(got, Step{Node: st.Node, Outcome: st.Outcome, Kind: st.Kind})
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.query != "SELECT", s.Handled, "the problem reached the handler")
		})
	}
}

func TestReportedOutcomeSpans(t *testing.T) {
	t.Parallel()
	rec, tracer := recordingTracer(t)
	g, err := guardGraph().Compile(tracer)
	require.NoError(t, err)
	for _, q := range []string{"DELETE", "SLOW"} {
		_, err := g.Run(t.Context(), &guardState{Query: q})
		require.NoError(t, err)
	}

	span := func(node, outcome, kind string, code codes.Code) spanSummary {
		attrs := map[attribute.Key]string{AttrGraph: "guard", AttrNode: node, AttrAttempt: "1", AttrOutcome: outcome}
		if kind != "" {
			attrs[AttrOutcomeKind] = kind
		}
		return spanSummary{Name: "workflow.node " + node, Attrs: attrs, Code: code}
	}
	var want []spanSummary
	for _, steps := range [][]spanSummary{{
		// A refusal is recorded, not an error of the bot's: status unset.
		span("check", OutcomeRejected, "unsafe_query", codes.Unset),
		span("handle", OutcomeOK, "", codes.Unset),
	}, {
		span("check", OutcomeOK, "", codes.Unset),
		span("run", OutcomeFailed, "query_timeout", codes.Error),
		span("handle", OutcomeOK, "", codes.Unset),
	}} {
		// The run itself went fine: it answered the problem.
		run := spanSummary{Name: "workflow.run guard", Attrs: map[attribute.Key]string{
			AttrGraph: "guard", AttrOutcome: OutcomeOK, AttrSteps: strconv.Itoa(len(steps)),
		}}
		want = append(append(want, steps...), run)
	}
	spans := rec.Ended()
	assert.Equal(t, want, summarize(spans))
	for _, s := range spans {
		if s.Name() == "workflow.node run" {
			assert.Equal(t, "query_timeout", s.Status().Description, "a failed span's status names the kind")
		}
	}
}

func TestNodeErrorOutweighsReportedOutcome(t *testing.T) {
	t.Parallel()
	g, err := New[guardState]("guard").
		AddNode("check", func(_ context.Context, s *guardState) error {
			s.pending = Rejected("unsafe_query")
			return errors.New("broken")
		}).
		AddEdge(Start, "check").AddEdge("check", End).
		Compile()
	require.NoError(t, err)
	s := &guardState{}
	res, err := g.Run(t.Context(), s)
	require.Error(t, err)
	require.Len(t, res.Steps, 1)
	assert.Equal(t, OutcomeError, res.Steps[0].Outcome)
	assert.Empty(t, res.Steps[0].Kind)
	assert.Equal(t, Outcome{}, s.pending, "the engine took the outcome anyway")
}

func TestZeroOutcomeIsOK(t *testing.T) {
	t.Parallel()
	assert.Equal(t, OutcomeOK, Outcome{}.Status())
	assert.Empty(t, Outcome{}.Kind())
	assert.Equal(t, OutcomeRejected, Rejected("x").Status())
	assert.Equal(t, "x", Failed("x").Kind())
}
