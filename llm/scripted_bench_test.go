package llm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/analyticsbot/analyticsbot/demo"
)

// BenchmarkScriptedDemo plays the offline demo's script over the prompts
// the bot renders for the demo questions, one op being all seven: what the
// scripted model costs a question (classify, generate_sql, interpret),
// which the tests, the demo and the web load benchmark pay for every
// question they ask. testdata/prompts holds the first question's classify
// and generate_sql prompts, whose question line the benchmark rewrites for
// the others, and each question's interpret prompt, which holds its rows.
// A call that falls through to a shape rule (its reply starting "The answer
// is" or "The table shows") fails the benchmark: the question's own rule
// must answer, as it does for the bot.
func BenchmarkScriptedDemo(b *testing.B) {
	s, err := ParseScript(demo.Script())
	if err != nil {
		b.Fatal(err)
	}
	read := func(name string) string {
		raw, err := os.ReadFile(filepath.Join("testdata", "prompts", name))
		if err != nil {
			b.Fatal(err)
		}
		return string(raw)
	}
	questionRe := regexp.MustCompile(`(?m)^Question: .*$`)
	type call struct {
		step   Step
		prompt string
	}
	var calls []call
	for i, q := range demo.Questions() {
		for _, step := range []Step{StepClassify, StepGenerateSQL} {
			prompt := questionRe.ReplaceAllLiteralString(read(string(step)+".txt"), "Question: "+q)
			calls = append(calls, call{step, prompt})
		}
		calls = append(calls, call{StepInterpret, read(fmt.Sprintf("interpret-%d.txt", i))})
	}
	generic := regexp.MustCompile(`^(The answer is|The table shows|The query returned)`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range calls {
			reply, err := ask(ctx, s, c.step, c.prompt)
			if err != nil {
				b.Fatalf("%s: %v", c.step, err)
			}
			if generic.MatchString(reply) {
				b.Fatalf("%s: answered by a shape rule: %s", c.step, reply)
			}
		}
		s.Reset() // the recorded calls would otherwise pile up
	}
}
