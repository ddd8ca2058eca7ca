package bot_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Front ends see bot.Reply and bot's facade only: none of them imports the
// workflow's state, the engine or the store, so none can read an
// internal the facade does not give it. The test reads what their code
// (tests aside) imports. cmd/analyticsbot is not one of them: it wires the
// bot and reports whole runs (docs/architecture.md, "Packages").
func TestFrontEndsImportNoInternals(t *testing.T) {
	t.Parallel()
	const module = "github.com/analyticsbot/analyticsbot/"
	frontEnds := []string{"slackapp", "web", "terminal", "mcpserver"}
	internals := []string{"nodes", "workflow", "store"}
	args := []string{"list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`}
	for _, f := range frontEnds {
		args = append(args, module+f)
	}
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(frontEnds) {
		t.Fatalf("go list listed %d packages, want %d: %s", len(lines), len(frontEnds), out)
	}
	for _, line := range lines {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			for _, in := range internals {
				if imp == module+in || strings.HasPrefix(imp, module+in+"/") {
					t.Errorf("%s imports %s: front ends get bot.Reply and bot's facade, never %s", fields[0], imp, in)
				}
			}
		}
	}
}
