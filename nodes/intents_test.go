package nodes_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/prompts"
)

// TestIntentTableListsEveryIntent: every Intent constant of the package has
// a row, and every row is a constant.
func TestIntentTableListsEveryIntent(t *testing.T) {
	declared := map[string]string{} // value → constant
	for _, f := range sources(t, token.NewFileSet(), ".") {
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok || vs.Type == nil || len(vs.Values) != len(vs.Names) {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Intent" {
				return true
			}
			for i, v := range vs.Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					declared[s] = vs.Names[i].Name
				}
			}
			return true
		})
	}
	if len(declared) == 0 {
		t.Fatal("found no Intent constants")
	}
	listed := map[string]bool{}
	for _, s := range nodes.Intents {
		if listed[string(s.Intent)] {
			t.Errorf("the table lists %q twice", s.Intent)
		}
		listed[string(s.Intent)] = true
		if _, ok := declared[string(s.Intent)]; !ok {
			t.Errorf("the table lists %q, which no Intent constant declares", s.Intent)
		}
	}
	for v, name := range declared {
		if !listed[v] {
			t.Errorf("%s (%q) is not in the intent table (nodes.Intents)", name, v)
		}
	}
}

// choiceLine is an intent the classifier prompt offers.
var choiceLine = regexp.MustCompile(`(?m)^- ([a-z_]+): `)

// TestClassifierIsOfferedWhatTheTableSays: the rendered prompt lists
// exactly the table's choices, and Valid accepts exactly those.
func TestClassifierIsOfferedWhatTheTableSays(t *testing.T) {
	for _, schedulable := range []bool{false, true} {
		prompt, err := prompts.Render(prompts.Classify{Domain: "games", Question: "q", Intents: nodes.Choices(schedulable)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range choiceLine.FindAllStringSubmatch(prompt, -1) {
			got = append(got, m[1])
		}
		var want []string
		for _, s := range nodes.Intents {
			if s.Meaning != "" && (s.Offer == nodes.OfferAlways || schedulable) {
				want = append(want, string(s.Intent))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("schedulable=%v: the prompt offers %v, the table %v", schedulable, got, want)
		}
	}
	for _, s := range nodes.Intents {
		if got, want := s.Intent.Valid(), s.Meaning != ""; got != want {
			t.Errorf("%s.Valid() = %v, want %v (offered to the classifier: %v)", s.Intent, got, want, want)
		}
	}
	if nodes.IntentRefresh.Valid() {
		t.Error("refresh is Valid, but the classifier is never offered it")
	}
}

// TestButtonsComeFromTheTable: every button and press of the table reaches
// its intent, action ids are unique, and nothing else is a button.
func TestButtonsComeFromTheTable(t *testing.T) {
	seen := map[string]nodes.Intent{}
	for _, s := range nodes.Intents {
		ids := s.Actions
		if s.Label != "" {
			ids = append([]string{string(s.Intent)}, ids...)
		}
		for _, id := range ids {
			if other, dup := seen[id]; dup {
				t.Errorf("action %q reaches both %s and %s", id, other, s.Intent)
			}
			seen[id] = s.Intent
			if got, ok := nodes.ButtonIntent(id); !ok || got != s.Intent {
				t.Errorf("ButtonIntent(%q) = %q, %v; want %q", id, got, ok, s.Intent)
			}
		}
		if s.Under != nodes.UnderNever && s.Label == "" {
			t.Errorf("%s shows under answers without a label", s.Intent)
		}
	}
	for _, id := range []string{"", "drop_table", string(nodes.IntentAnalytics), string(nodes.IntentScheduledRun)} {
		if i, ok := nodes.ButtonIntent(id); ok {
			t.Errorf("ButtonIntent(%q) = %q, want no intent", id, i)
		}
	}
	if got := nodes.Buttons(); len(got) != 2 || got[0].Label != "Export CSV" || got[1].Label != "Show SQL" {
		t.Errorf("Buttons() = %v, want Export CSV and Show SQL", got)
	}
	// Slack's feedback element carries the table's rating actions.
	if blockkit.FeedbackUp != nodes.ActionFeedbackUp || blockkit.FeedbackDown != nodes.ActionFeedbackDown {
		t.Errorf("blockkit's feedback values %q/%q differ from the table's %q/%q",
			blockkit.FeedbackUp, blockkit.FeedbackDown, nodes.ActionFeedbackUp, nodes.ActionFeedbackDown)
	}
}

// TestSurfacesNameIntentsOnlyThroughTheTable: no front end, nor bot, spells
// an intent or an action id of its own: a surface that did would list an
// intent the table may not (or miss one it adds).
func TestSurfacesNameIntentsOnlyThroughTheTable(t *testing.T) {
	names := map[string]bool{}
	for _, s := range nodes.Intents {
		names[string(s.Intent)] = true
		for _, a := range s.Actions {
			names[a] = true
		}
	}
	// Words that are an intent's name by chance.
	allowed := map[string]bool{
		"slackapp/schedules.go schedule": true, // "/ask schedule", the slash command's word
	}
	fset := token.NewFileSet()
	for _, dir := range []string{"../bot", "../web", "../slackapp", "../cmd/analyticsbot", "../terminal"} {
		for _, f := range sources(t, fset, dir) {
			name := fset.Position(f.Pos()).Filename
			for _, lit := range listedLiterals(f) {
				s, err := strconv.Unquote(lit.Value)
				if err != nil || !names[s] || allowed[filepath.Base(dir)+"/"+filepath.Base(name)+" "+s] {
					continue
				}
				t.Errorf("%s spells the intent or action %q: read it from the intent table (nodes.Intents)", fset.Position(lit.Pos()), s)
			}
		}
	}
}

// listedLiterals are the string literals of f that list or compare names:
// those compared (==, !=), in a case, or in a composite literal, and any
// with an underscore (an action id, never a word of a log line).
func listedLiterals(f *ast.File) []*ast.BasicLit {
	var out []*ast.BasicLit
	var add func(e ast.Expr)
	add = func(e ast.Expr) {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			add(kv.Key)
			add(kv.Value)
			return
		}
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			out = append(out, lit)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				add(n.X)
				add(n.Y)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				add(e)
			}
		case *ast.CompositeLit:
			for _, e := range n.Elts {
				add(e)
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING && strings.Contains(n.Value, "_") && !slices.ContainsFunc(out, func(l *ast.BasicLit) bool { return l == n }) {
				out = append(out, n)
			}
		}
		return true
	})
	return out
}

// sources parses the Go files of dir, tests aside.
func sources(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}
