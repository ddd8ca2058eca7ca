package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/analyticsbot/analyticsbot/bot"
)

// The report `context --json` prints is the bot's (bot.ContextReport),
// which the MCP server's get_context returns too.
type (
	contextJSON         = bot.ContextReport
	contextGlossaryJSON = bot.ContextGlossary
	contextAskBackJSON  = bot.ContextAskBack
	contextExampleJSON  = bot.ContextExample
	contextValueJSON    = bot.ContextValue
	contextTableJSON    = bot.ContextTable
	contextColumnJSON   = bot.ContextColumn
	contextListedJSON   = bot.ContextListed
)

// contextCommand shows what the generator would be given for a question,
// without calling the model.
func contextCommand(ctx context.Context, args []string, out io.Writer) error {
	const form = "context [--thread ID] [--user ID] [--terms T1,T2] [--json] [--prompt] QUESTION"
	fs := newFlagSet("context")
	thread := fs.String("thread", "", "the thread the question follows up on")
	user := fs.String("user", "cli", "whose access policy (ACCESS_FILE) applies: a Slack user ID, or cli for the default")
	asJSON := fs.Bool("json", false, "print one JSON object")
	withPrompt := fs.Bool("prompt", false, "also print the rendered prompt")
	termList := fs.String("terms", "", "comma-separated search terms, as the classifier would name them for the question")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %s: %v", errUsage, form, err)
	}
	question := strings.Join(fs.Args(), " ")
	if strings.TrimSpace(question) == "" {
		return fmt.Errorf("%w: %s: the question is missing", errUsage, form)
	}
	b, err := openBot(ctx)
	if err != nil {
		return err
	}
	defer b.Close()
	stop, err := readSlackGroups(ctx, b, *user)
	if err != nil {
		return err
	}
	defer stop()
	var terms []string
	for _, t := range strings.Split(*termList, ",") {
		if t = strings.TrimSpace(t); t != "" {
			terms = append(terms, t)
		}
	}
	gc, err := b.Context(ctx, bot.Message{ThreadID: *thread, UserID: *user, ChannelID: "cli", Text: question}, terms...)
	if err != nil {
		return err
	}
	g := gc.State.Grounding
	c := gc.Report(*thread, b.Backend().Name())
	if *withPrompt {
		c.Prompt = gc.Prompt
	}
	if *asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(c)
	}
	fmt.Fprintf(out, "question: %s\n", question)
	fmt.Fprintf(out, "prompt: %d tokens (%d with the whole catalog); %s", c.PromptTokens, c.WholePromptTokens, g)
	if len(c.Values) > 0 {
		fmt.Fprintf(out, "values:\n")
		for _, v := range c.Values {
			fmt.Fprintf(out, "  %-40s %-30q %.2f  %s (%q)\n", v.Column, v.Value, v.Similarity, v.Why, v.Phrase)
		}
	}
	if len(c.SearchTerms) > 0 {
		fmt.Fprintf(out, "model terms: %s\n", strings.Join(c.SearchTerms, ", "))
	}
	if len(c.Glossary) > 0 {
		fmt.Fprintf(out, "glossary:\n")
		for _, g := range c.Glossary {
			said := ""
			if !strings.EqualFold(g.Said, g.Term) {
				said = fmt.Sprintf(" (said %q)", g.Said)
			}
			means := ""
			if g.Means != "" {
				means = ": " + g.Means
			}
			fmt.Fprintf(out, "  %s%s%s\n", g.Term, said, means)
		}
	}
	if len(gc.Ambiguous) > 0 {
		fmt.Fprintf(out, "may ask back (several values match about equally well):\n")
		for _, a := range gc.Ambiguous {
			fmt.Fprintf(out, "  %q: %s %s\n", a.Phrase, a.Column, a.Quoted())
		}
	}
	switch {
	case len(c.Retrieved) > 0:
		fmt.Fprintf(out, "examples (retrieved):\n")
		for _, e := range c.Retrieved {
			fmt.Fprintf(out, "  #%-5d %-9s %.2f  %s\n", e.ID, e.Status, e.Score, e.Question)
		}
	case len(c.Examples) > 0:
		fmt.Fprintf(out, "examples:\n")
		for _, e := range c.Examples {
			fmt.Fprintf(out, "  %s\n", e)
		}
	}
	if *withPrompt {
		fmt.Fprintf(out, "\n%s", gc.Prompt)
	}
	return nil
}
