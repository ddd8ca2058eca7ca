package bot_test

import (
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const modulePath = "github.com/analyticsbot/analyticsbot"

// TestArchitectureMapMatchesImports holds docs/architecture.md's package map
// to the code, by the rule the doc states under it: it names every package
// and no other, every arrow it draws is an import, and every import is an
// arrow or follows a path of arrows. So the map answers "does A depend on
// B" truly without drawing all of a hundred imports.
func TestArchitectureMapMatchesImports(t *testing.T) {
	t.Parallel()
	imports := moduleImports(t)
	pkgMap := readPackageMap(t, "../docs/architecture.md")

	for _, pkg := range slices.Sorted(maps.Keys(imports)) {
		if !pkgMap.names[pkg] {
			t.Errorf("docs/architecture.md's map does not name package %s: add a node for it", pkg)
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(pkgMap.names)) {
		if _, ok := imports[pkg]; !ok {
			t.Errorf("docs/architecture.md's map names %s, which go list does not list as a package", pkg)
		}
	}
	for _, e := range pkgMap.edges {
		if _, ok := imports[e.from]; ok && !slices.Contains(imports[e.from], e.to) {
			t.Errorf("docs/architecture.md's map draws %s --> %s, but %s does not import %s", e.from, e.to, e.from, e.to)
		}
	}
	for _, from := range slices.Sorted(maps.Keys(imports)) {
		reached := pkgMap.reachable(from)
		for _, to := range imports[from] {
			if !reached[to] {
				t.Errorf("%s imports %s, but docs/architecture.md's map has no path from %s to %s: draw the arrow, or a path to it",
					from, to, from, to)
			}
		}
	}
}

// TestReadmeLayoutNamesEveryPackage holds README's Layout (under
// Development) to the code: every package directory is named in it.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	_, layout, ok := strings.Cut(string(readme), "\n- Layout ")
	require.True(t, ok, "README.md must have a \"- Layout\" item under Development")
	layout, _, _ = strings.Cut(layout, "\n- ")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(layout, -1) {
		named[strings.TrimSuffix(m[1], "/")] = true
	}
	for _, pkg := range slices.Sorted(maps.Keys(moduleImports(t))) {
		assert.True(t, named[pkg], "README.md's Layout does not name package %s (as `%s` or `%s/`)", pkg, pkg, pkg)
	}
}

// moduleImports lists the module's packages by their path inside it, each
// with the module's packages its code (tests aside) imports.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, modulePath+"/...").Output()
	require.NoError(t, err, "go list")
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], modulePath+"/")
		imports[pkg] = []string{}
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				imports[pkg] = append(imports[pkg], rel)
			}
		}
	}
	return imports
}

type edge struct{ from, to string }

// packageMap is the Mermaid flowchart under "## Packages", read as
// package paths: a node's path is its label up to the first <br/>.
type packageMap struct {
	names map[string]bool
	edges []edge
}

// reachable is every package a path of arrows leads to from pkg.
func (m packageMap) reachable(pkg string) map[string]bool {
	seen := map[string]bool{}
	next := []string{pkg}
	for len(next) > 0 {
		at := next[len(next)-1]
		next = next[:len(next)-1]
		for _, e := range m.edges {
			if e.from == at && !seen[e.to] {
				seen[e.to] = true
				next = append(next, e.to)
			}
		}
	}
	return seen
}

var mermaidNode = regexp.MustCompile(`^(\w+)\["([^"<]+)(<br/>[^"]*)?"\]$`)

// readPackageMap reads the first Mermaid block under "## Packages" of doc.
// It takes node lines (id["path<br/>what it holds"]) and arrow lines
// (a & b --> c --> d), skips subgraph, end and %% comments, and fails on
// anything else, so the map cannot hold an arrow the test does not see.
func readPackageMap(t *testing.T, doc string) packageMap {
	t.Helper()
	text, err := os.ReadFile(doc)
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(text), "\n## Packages\n")
	require.True(t, ok, "%s must have a ## Packages section", doc)
	_, block, ok := strings.Cut(section, "```mermaid\n")
	require.True(t, ok, "%s must draw its packages in a Mermaid block under ## Packages", doc)
	block, _, _ = strings.Cut(block, "```")

	ids := map[string]string{}
	var arrows []string
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", line == "end", strings.HasPrefix(line, "flowchart "), strings.HasPrefix(line, "subgraph "),
			strings.HasPrefix(line, "direction "), strings.HasPrefix(line, "%%"):
		case strings.Contains(line, "-->"):
			arrows = append(arrows, line)
		default:
			m := mermaidNode.FindStringSubmatch(line)
			require.NotNil(t, m, "%s's package map: cannot read %q (want id[\"path<br/>…\"] or a --> b)", doc, line)
			ids[m[1]] = m[2]
		}
	}
	pm := packageMap{names: map[string]bool{}}
	for _, path := range ids {
		pm.names[path] = true
	}
	for _, line := range arrows {
		var from []string
		for i, part := range strings.Split(line, "-->") {
			var to []string
			for _, id := range strings.Split(part, "&") {
				path, ok := ids[strings.TrimSpace(id)]
				require.True(t, ok, "%s's package map: %q in %q is no node", doc, strings.TrimSpace(id), line)
				to = append(to, path)
			}
			if i > 0 {
				for _, f := range from {
					for _, tt := range to {
						pm.edges = append(pm.edges, edge{f, tt})
					}
				}
			}
			from = to
		}
	}
	return pm
}
