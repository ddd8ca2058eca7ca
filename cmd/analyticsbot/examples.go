package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/analyticsbot/analyticsbot/prompts"
	"github.com/analyticsbot/analyticsbot/store"
)

const examplesForm = `examples list [--status candidate|verified|rejected] [--source file|feedback|admin] [--limit N] [--json]
       examples show ID [--json]
       examples add --question TEXT [--assumption TEXT]... [--explanation TEXT] [--candidate] [--by NAME] < QUERY
       examples verify|reject ID... [--by NAME]
       examples export [--status verified|candidate|rejected|all]`

// examplesCommand curates the stored examples: the data team lists the
// candidates users' 👍 proposed, verifies or rejects them, adds its own,
// and exports them in the examples file's format (SQL_EXAMPLES).
func examplesCommand(ctx context.Context, args []string, stdin io.Reader, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, examplesForm)
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "list", "show", "add", "verify", "reject", "export":
	default:
		return fmt.Errorf("%w: unknown examples command %q: %s", errUsage, sub, examplesForm)
	}
	fs := newFlagSet("examples " + sub)
	status := fs.String("status", "", "only examples of this status")
	source := fs.String("source", "", "only examples from this source")
	limit := fs.Int("limit", 50, "list at most this many (0: all)")
	asJSON := fs.Bool("json", false, "print JSON")
	question := fs.String("question", "", "the question the query answers")
	explanation := fs.String("explanation", "", "what the query does")
	candidate := fs.Bool("candidate", false, "add as a candidate rather than verified")
	by := fs.String("by", defaultCurator(), "who verifies, rejects or adds")
	var assumptions repeated
	fs.Var(&assumptions, "assumption", "an assumption the query makes (repeatable)")
	args, err := parseInterspersed(fs, rest)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, examplesForm, err)
	}
	ids, err := exampleIDs(sub, args)
	if err != nil {
		return err
	}
	if err := checkExampleFilters(sub, *status, *source); err != nil {
		return fmt.Errorf("%w: %v: %s", errUsage, err, examplesForm)
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	db, backend := b.DB(), b.Backend().Name()
	switch sub {
	case "list":
		list, err := db.ListExamples(ctx, store.ExampleFilter{Backend: backend, Status: *status, Source: *source, Limit: *limit})
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSONTo(out, exampleJSONs(list))
		}
		printExamples(out, list)
		return nil
	case "show":
		e, err := db.Example(ctx, ids[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSONTo(out, exampleJSONOf(e))
		}
		printExample(out, e)
		return nil
	case "add":
		if strings.TrimSpace(*question) == "" {
			return fmt.Errorf("%w: examples add needs --question, and the query on standard input", errUsage)
		}
		query, err := io.ReadAll(io.LimitReader(stdin, 1<<20))
		if err != nil {
			return fmt.Errorf("read the query: %w", err)
		}
		text := strings.TrimSpace(string(query))
		if text == "" {
			return fmt.Errorf("%w: examples add reads the query from standard input, and it was empty", errUsage)
		}
		// The query must be one the bot would run: checked as the
		// generator's queries are.
		if _, err := b.Backend().Check(ctx, text, b.Config().MaxRows); err != nil {
			return fmt.Errorf("the query was not accepted: %w", err)
		}
		d := b.Backend().Dialect()
		fp, err := d.Fingerprint(text)
		if err != nil {
			return fmt.Errorf("the query was not accepted: %w", err)
		}
		e := store.Example{Backend: backend, Question: *question, Query: text, Fingerprint: fp, FingerprintForm: d.FingerprintForm, Assumptions: assumptions,
			Explanation: *explanation, Source: store.SourceAdmin, Status: store.StatusVerified, ProposedBy: *by, VerifiedBy: *by}
		if *candidate {
			e.Status, e.VerifiedBy = store.StatusCandidate, ""
		}
		e, added, err := db.AddExample(ctx, e)
		if err != nil {
			return err
		}
		if !added {
			fmt.Fprintf(out, "example %d already has this question and query (%s)\n", e.ID, e.Status)
			return nil
		}
		fmt.Fprintf(out, "added example %d (%s)\n", e.ID, e.Status)
		return nil
	case "verify", "reject":
		to := store.StatusVerified
		if sub == "reject" {
			to = store.StatusRejected
		}
		for _, id := range ids {
			e, err := db.SetExampleStatus(ctx, id, to, *by)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "example %d is %s: %s\n", e.ID, e.Status, e.Question)
		}
		return nil
	default: // export
		st := *status
		switch st {
		case "":
			st = store.StatusVerified
		case "all":
			st = ""
		}
		list, err := db.ListExamples(ctx, store.ExampleFilter{Backend: backend, Status: st})
		if err != nil {
			return err
		}
		return exportExamples(out, list)
	}
}

// exampleIDs reads the example ids the subcommand takes from args, the
// command line's arguments that are no flags.
func exampleIDs(sub string, args []string) ([]int64, error) {
	switch sub {
	case "show", "verify", "reject":
	default:
		if len(args) > 0 {
			return nil, fmt.Errorf("%w: examples %s takes no arguments: %s", errUsage, sub, examplesForm)
		}
		return nil, nil
	}
	if len(args) == 0 || (sub == "show" && len(args) > 1) {
		return nil, fmt.Errorf("%w: %s", errUsage, examplesForm)
	}
	ids := make([]int64, len(args))
	for i, a := range args {
		id, err := strconv.ParseInt(a, 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("%w: %q is not an example id", errUsage, a)
		}
		ids[i] = id
	}
	return ids, nil
}

// checkExampleFilters refuses a --status or --source no example has: a
// misspelt `--source fedback` listed "No examples." as if there were none.
func checkExampleFilters(sub, status, source string) error {
	statuses := []string{store.StatusCandidate, store.StatusVerified, store.StatusRejected}
	if sub == "export" {
		statuses = append(statuses, "all")
	}
	sources := []string{store.SourceFile, store.SourceFeedback, store.SourceAdmin}
	switch {
	case status != "" && !slices.Contains(statuses, status):
		return fmt.Errorf("--status is %s, not %q", strings.Join(statuses, ", "), status)
	case source != "" && !slices.Contains(sources, source):
		return fmt.Errorf("--source is %s, not %q", strings.Join(sources, ", "), source)
	}
	return nil
}

// defaultCurator names whoever runs the command.
func defaultCurator() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "cli"
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, "; ") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

func printExamples(out io.Writer, list []store.Example) {
	if len(list) == 0 {
		fmt.Fprintln(out, "No examples.")
		return
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATUS\tSOURCE\tUSED\tBY\tQUESTION")
	for _, e := range list {
		by := e.ProposedBy
		if e.Status == store.StatusVerified && e.VerifiedBy != "" {
			by = e.VerifiedBy
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\t%s\n", e.ID, e.Status, e.Source, e.TimesUsed, by, clip(e.Question, 80))
	}
	_ = w.Flush()
}

func printExample(out io.Writer, e store.Example) {
	fmt.Fprintf(out, "Example %d (%s, from %s)\n", e.ID, e.Status, e.Source)
	fmt.Fprintf(out, "Question:    %s\n", e.Question)
	if e.ProposedBy != "" {
		fmt.Fprintf(out, "Proposed by: %s on %s\n", e.ProposedBy, e.CreatedAt.Format(time.DateTime))
	}
	if e.Status == store.StatusVerified {
		fmt.Fprintf(out, "Verified by: %s on %s\n", e.VerifiedBy, e.VerifiedAt.Format(time.DateTime))
	}
	fmt.Fprintf(out, "Used:        %d times", e.TimesUsed)
	if !e.LastUsedAt.IsZero() {
		fmt.Fprintf(out, ", last on %s", e.LastUsedAt.Format(time.DateTime))
	}
	fmt.Fprintln(out)
	for _, a := range e.Assumptions {
		fmt.Fprintf(out, "Assumption:  %s\n", a)
	}
	if e.Explanation != "" {
		fmt.Fprintf(out, "Explanation: %s\n", e.Explanation)
	}
	fmt.Fprintf(out, "Query (%s):\n%s\n", e.Backend, e.Query)
}

// exportExamples writes list in the examples file's format (SQL_EXAMPLES),
// oldest first, as the file would list them.
func exportExamples(out io.Writer, list []store.Example) error {
	file := make([]prompts.Example, 0, len(list))
	for i := len(list) - 1; i >= 0; i-- {
		e := list[i]
		file = append(file, prompts.Example{Question: e.Question, SQL: e.Query, Assumptions: e.Assumptions, Explanation: e.Explanation})
	}
	if len(file) == 0 {
		_, err := fmt.Fprintln(out, "[]")
		return err
	}
	enc := yaml.NewEncoder(out)
	enc.SetIndent(2)
	if err := enc.Encode(file); err != nil {
		return fmt.Errorf("export examples: %w", err)
	}
	return enc.Close()
}

type exampleJSON struct {
	ID          int64      `json:"id"`
	Backend     string     `json:"backend"`
	Question    string     `json:"question"`
	Query       string     `json:"query"`
	Assumptions []string   `json:"assumptions"`
	Explanation string     `json:"explanation"`
	Source      string     `json:"source"`
	Status      string     `json:"status"`
	ProposedBy  string     `json:"proposed_by"`
	VerifiedBy  string     `json:"verified_by"`
	VerifiedAt  *time.Time `json:"verified_at"`
	TimesUsed   int64      `json:"times_used"`
	LastUsedAt  *time.Time `json:"last_used_at"`
	CreatedAt   time.Time  `json:"created_at"`
}

func exampleJSONOf(e store.Example) exampleJSON {
	opt := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	return exampleJSON{ID: e.ID, Backend: e.Backend, Question: e.Question, Query: e.Query, Assumptions: e.Assumptions,
		Explanation: e.Explanation, Source: e.Source, Status: e.Status, ProposedBy: e.ProposedBy, VerifiedBy: e.VerifiedBy,
		VerifiedAt: opt(e.VerifiedAt), TimesUsed: e.TimesUsed, LastUsedAt: opt(e.LastUsedAt), CreatedAt: e.CreatedAt}
}

func exampleJSONs(list []store.Example) []exampleJSON {
	out := make([]exampleJSON, len(list))
	for i, e := range list {
		out[i] = exampleJSONOf(e)
	}
	return out
}

func writeJSONTo(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
