package nodes

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/cubewarehouse"
	"github.com/analyticsbot/analyticsbot/warehouse/pgwarehouse"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestGraphCompilesAndDraws(t *testing.T) {
	t.Parallel()
	g, err := Graph((&Nodes{}).Defaults()).Compile()
	require.NoError(t, err, "compile the analytics graph")

	var names, labels []string
	for _, info := range g.Nodes() {
		names = append(names, info.Name)
		labels = append(labels, info.Label)
	}
	// The drawing below holds the whole list; here, what it must start
	// and end with.
	require.NotEmpty(t, names)
	assert.Equal(t, NodeRouteIntent, names[0], "first node")
	assert.Equal(t, NodeSaveTurn, names[len(names)-1], "last node")
	for i, l := range labels {
		assert.NotEmpty(t, l, "got no progress label for node %s, want one", names[i])
	}

	got := g.Mermaid()
	path := filepath.Join("testdata", "graph.mermaid.golden")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "read golden file (run go test ./nodes -run TestGraphCompilesAndDraws -update to create it)")
	assert.Equal(t, string(want), got, "Mermaid drawing differs from %s (rerun with -update if the change is intended)", path)
}

func TestAfterRouting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		state State
		want  string
	}{
		{"analytics question", State{Intent: IntentAnalytics}, NodeResolveContext},
		{"follow-up", State{Intent: IntentFollowUp}, NodeResolveContext},
		{"export", State{Intent: IntentExportCSV}, NodeExportCSV},
		{"show sql", State{Intent: IntentShowSQL}, NodeShowSQL},
		{"off topic", State{Intent: IntentOffTopic}, NodeDecline},
		{"rating", State{Intent: IntentFeedback, Rating: 1}, NodeRate},
		{"note", State{Intent: IntentFeedback, Note: "wrong year"}, NodeRate},
		{"verify", State{Intent: IntentVerify}, NodeVerify},
		{"schedules", State{Intent: IntentListSchedules}, NodeListSchedules},
		{"pause a schedule", State{Intent: IntentManageSchedule, ScheduleAction: ActionSchedulePause}, NodeManageSchedule},
		{"empty message", State{ErrorKind: ErrEmptyMessage}, NodeHandleError},
		{"too long", State{ErrorKind: ErrMessageTooLong}, NodeHandleError},
		{"model down beats a preset intent", State{Intent: IntentExportCSV, ErrorKind: ErrModelUnavailable}, NodeHandleError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := afterRouting(&tt.state); got != tt.want {
				t.Errorf("afterRouting(intent %q, error %q) = %s, want %s", tt.state.Intent, tt.state.ErrorKind, got, tt.want)
			}
		})
	}
}

func TestOnErrorOr(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		kind ErrorKind
		want string
	}{
		{"no error continues", "", NodeValidateQuery},
		{"invalid sql", ErrInvalidQuery, NodeHandleError},
		{"model timeout", ErrModelTimeout, NodeHandleError},
		{"no previous query", ErrNoPreviousQuery, NodeHandleError},
	}
	route := onErrorOr(NodeValidateQuery)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := route(&State{ErrorKind: tt.kind}); got != tt.want {
				t.Errorf("onErrorOr(validate_sql) with error %q = %s, want %s", tt.kind, got, tt.want)
			}
		})
	}
}

func TestAfterGeneration(t *testing.T) {
	t.Parallel()
	ask := &Clarification{Question: "Which Bethesda?", Options: []string{"Bethesda Softworks", "Bethesda-Soft"}}
	tests := []struct {
		name  string
		state State
		want  string
	}{
		{"a query is checked", State{Query: pgQuery("SELECT 1")}, NodeValidateQuery},
		{"a reply without a query is checked too (and retried)", State{}, NodeValidateQuery},
		{"a question back is asked", State{Clarification: ask}, NodeAskBack},
		{"an error wins", State{Clarification: ask, ErrorKind: ErrModelTimeout}, NodeHandleError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, afterGeneration(&tt.state))
		})
	}
}

func TestAfterValidationAndExecution(t *testing.T) {
	t.Parallel()
	const maxRetries = 2
	tests := []struct {
		name          string
		state         State
		afterValidate string
		afterExecute  string
	}{
		{"valid and ran", State{Valid: true}, NodeExecuteQuery, NodeInterpret},
		{"invalid, no retry yet", State{ErrorKind: ErrInvalidQuery}, NodeGenerateQuery, NodeGenerateQuery},
		{"invalid, one retry left", State{ErrorKind: ErrInvalidQuery, RetryCount: 1}, NodeGenerateQuery, NodeGenerateQuery},
		{"invalid, retries spent", State{ErrorKind: ErrInvalidQuery, RetryCount: 2}, NodeHandleError, NodeHandleError},
		{"unsafe is never retried", State{ErrorKind: ErrUnsafeQuery}, NodeHandleError, NodeHandleError},
		{"query timeout", State{ErrorKind: ErrQueryTimeout}, NodeHandleError, NodeHandleError},
		{"database down", State{ErrorKind: ErrDatabaseDown}, NodeHandleError, NodeHandleError},
		{"internal", State{ErrorKind: ErrInternal}, NodeHandleError, NodeHandleError},
	}
	validate, execute := afterValidation(maxRetries), afterExecution(maxRetries)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := validate(&tt.state); got != tt.afterValidate {
				t.Errorf("afterValidation(valid %v, error %q, retries %d) = %s, want %s",
					tt.state.Valid, tt.state.ErrorKind, tt.state.RetryCount, got, tt.afterValidate)
			}
			if got := execute(&tt.state); got != tt.afterExecute {
				t.Errorf("afterExecution(error %q, retries %d) = %s, want %s",
					tt.state.ErrorKind, tt.state.RetryCount, got, tt.afterExecute)
			}
		})
	}
	if got := afterValidation(0)(&State{ErrorKind: ErrInvalidQuery}); got != NodeHandleError {
		t.Errorf("afterValidation with 0 retries allowed = %s, want %s", got, NodeHandleError)
	}
}

// The generator's and the validator's progress labels are the backend's
// words for its query language.
func TestGraphLabelsComeFromTheBackend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                   string
		backend                warehouse.Backend
		wantWriting, wantCheck string
	}{
		{"no backend (the drawing)", nil, "Writing the query…", "Checking the query…"},
		{"postgres", pgwarehouse.New(pgwarehouse.Config{}), "Writing SQL…", "Checking the SQL…"},
		{"cube", cubewarehouse.New(nil, cubewarehouse.Config{}), "Writing the Cube query…", "Checking the Cube query…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := Graph((&Nodes{Warehouse: tt.backend}).Defaults()).Compile()
			require.NoError(t, err)
			labels := map[string]string{}
			for _, info := range g.Nodes() {
				labels[info.Name] = info.Label
			}
			assert.Equal(t, tt.wantWriting, labels[NodeGenerateQuery])
			assert.Equal(t, tt.wantCheck, labels[NodeValidateQuery])
		})
	}
}
