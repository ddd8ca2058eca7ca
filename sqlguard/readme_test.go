package sqlguard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// README counts the guard's classes of rejection: the constants of type
// Class that class.go declares.
func TestReadmeCountsTheClasses(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "class.go", nil, 0)
	require.NoError(t, err)
	declared := 0
	ast.Inspect(f, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok {
			if id, ok := v.Type.(*ast.Ident); ok && id.Name == "Class" {
				declared += len(v.Names)
			}
		}
		return true
	})
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	m := regexp.MustCompile(`\((\d+) classes of rejection`).FindSubmatch(readme)
	require.NotNil(t, m, "README says how many classes of rejection there are")
	said, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	assert.Equal(t, declared, said, "README's count of the classes of rejection")
}
