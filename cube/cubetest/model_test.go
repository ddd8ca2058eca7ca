package cubetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// modelFile is the part of a Cube YAML model file the checks below read.
type modelFile struct {
	Cubes []struct {
		Name        string        `yaml:"name"`
		Title       string        `yaml:"title"`
		Description string        `yaml:"description"`
		Public      *bool         `yaml:"public"`
		Measures    []modelMember `yaml:"measures"`
		Dimensions  []modelMember `yaml:"dimensions"`
		Segments    []modelMember `yaml:"segments"`
	} `yaml:"cubes"`
}

type modelMember struct {
	Name        string `yaml:"name"`
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
}

// TestModelDocumented checks demo/cube without a server: titles and descriptions go into the
// model's prompt, so every public cube and every member needs both, and Cube compiles them as
// Python f-strings, where a curly brace would start a template expression.
func TestModelDocumented(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "demo", "cube", "*.yml"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no demo/cube/*.yml")

	checkText := func(t *testing.T, what, title, desc string) {
		t.Helper()
		assert.NotEmpty(t, strings.TrimSpace(title), "%s: no title", what)
		assert.NotEmpty(t, strings.TrimSpace(desc), "%s: no description", what)
		assert.NotContains(t, title+desc, "{", "%s: curly brace in title or description", what)
		assert.NotContains(t, title+desc, "}", "%s: curly brace in title or description", what)
	}
	cubes := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var m modelFile
		require.NoError(t, yaml.Unmarshal(raw, &m), "parse %s", f)
		for _, c := range m.Cubes {
			cubes++
			if c.Public == nil || *c.Public {
				checkText(t, c.Name, c.Title, c.Description)
			}
			for _, group := range [][]modelMember{c.Measures, c.Dimensions, c.Segments} {
				for _, mem := range group {
					checkText(t, c.Name+"."+mem.Name, mem.Title, mem.Description)
				}
			}
		}
	}
	assert.Equal(t, 13, cubes, "cubes in demo/cube: Apps, six cubes joined to it and their six link cubes")
}
