package nodes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/workflow"
)

// errorKinds are the values of the ErrorKind constants of state.go.
func errorKinds(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "state.go", nil, 0)
	require.NoError(t, err)
	var kinds []string
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ErrorKind" {
				continue
			}
			for _, v := range vs.Values {
				s, err := strconv.Unquote(v.(*ast.BasicLit).Value)
				require.NoError(t, err)
				kinds = append(kinds, s)
			}
		}
	}
	return kinds
}

// docs/observability.md's node outcomes table lists every error kind once,
// as a rejection or a failure, as ErrorKind.Outcome classes it.
func TestNodeOutcomesTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../docs/observability.md")
	require.NoError(t, err)
	backticked := regexp.MustCompile("`([a-z_]+)`")
	documented := map[string]string{}
	for _, status := range []string{workflow.OutcomeRejected, workflow.OutcomeFailed} {
		row := regexp.MustCompile("(?m)^\\| `" + status + "` \\|[^|]*`handle_error`: ([^|]*)\\|").FindStringSubmatch(string(b))
		require.NotNil(t, row, "the table's %s row", status)
		for _, m := range backticked.FindAllStringSubmatch(row[1], -1) {
			_, twice := documented[m[1]]
			assert.False(t, twice, "%s is listed twice", m[1])
			documented[m[1]] = status
		}
	}
	kinds := errorKinds(t)
	require.Contains(t, kinds, string(ErrQueryTimeout), "state.go's kinds were read")
	for _, k := range kinds {
		want := ErrorKind(k).Outcome().Status()
		assert.Equal(t, want, documented[k], "error kind %s: docs/observability.md's node outcomes table", k)
	}
	for k := range documented {
		assert.True(t, slices.Contains(kinds, k), "docs/observability.md lists %s, which is no error kind", k)
	}
}
