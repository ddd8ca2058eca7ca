package llm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// ask calls the scripted model the way Client does.
func ask(ctx context.Context, s *Scripted, step Step, prompt string) (string, error) {
	return s.Call(ctx, prompt, llms.WithMetadata(map[string]any{MetadataStep: string(step)}))
}

func mustScripted(t *testing.T, rules ...Rule) *Scripted {
	t.Helper()
	s, err := NewScripted(rules)
	require.NoError(t, err)
	return s
}

func TestScriptedMatching(t *testing.T) {
	t.Parallel()
	rules := []Rule{
		{Step: "classify", Match: `(?i)export`, Reply: `{"intent":"export_csv","confidence":0.9}`},
		{Step: "classify", Match: `revenue`, Reply: `{"intent":"analytics_query","confidence":0.8}`},
		{Step: "classify", Reply: `{"intent":"off_topic","confidence":0.5}`},
		{Step: "generate_sql", Match: `revenue`, Reply: `{"sql":"SELECT 1"}`},
	}
	tests := []struct {
		name     string
		step     Step
		prompt   string
		want     string
		wantRule int
	}{
		{name: "first matching rule wins over later ones", step: StepClassify, prompt: "Question: Export revenue", want: `{"intent":"export_csv","confidence":0.9}`, wantRule: 0},
		{name: "regexp selects the second rule", step: StepClassify, prompt: "Question: revenue by month", want: `{"intent":"analytics_query","confidence":0.8}`, wantRule: 1},
		{name: "empty match catches the rest", step: StepClassify, prompt: "Question: hello there", want: `{"intent":"off_topic","confidence":0.5}`, wantRule: 2},
		{name: "rules of other steps are ignored", step: StepGenerateSQL, prompt: "Question: export revenue", want: `{"sql":"SELECT 1"}`, wantRule: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustScripted(t, rules...)
			got, err := ask(context.Background(), s, tt.step, tt.prompt)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got, "got reply %q, want %q", got, tt.want)
			calls := s.Calls()
			require.Len(t, calls, 1)
			assert.Equal(t, tt.wantRule, calls[0].Rule, "got rule %d, want %d", calls[0].Rule, tt.wantRule)
		})
	}
}

func TestScriptedTimesAndReset(t *testing.T) {
	t.Parallel()
	s := mustScripted(t,
		Rule{Step: "generate_sql", Reply: "bad", Times: 2},
		Rule{Step: "generate_sql", Reply: "good"},
	)
	var got []string
	for range 3 {
		r, err := ask(context.Background(), s, StepGenerateSQL, "q")
		require.NoError(t, err)
		got = append(got, r)
	}
	assert.Equal(t, []string{"bad", "bad", "good"}, got)

	s.Reset()
	assert.Empty(t, s.Calls(), "got calls after Reset, want none")
	r, err := ask(context.Background(), s, StepGenerateSQL, "q")
	require.NoError(t, err)
	assert.Equal(t, "bad", r, "got %q after Reset, want the limited rule to answer again", r)
}

func TestScriptedNoMatch(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300)
	tests := []struct {
		name   string
		rules  []Rule
		prompt string
		want   string
	}{
		{
			name:   "question line is quoted",
			rules:  []Rule{{Step: "generate_sql", Match: "revenue", Reply: "r"}, {Step: "generate_sql", Match: "churn", Reply: "c"}, {Step: "classify", Reply: "x"}},
			prompt: "You write SQL.\nQuestion: how many orders last week?\nSchema: ...",
			want:   `scripted model: no rule for step "generate_sql" matches the prompt (2 rules for this step); question: "how many orders last week?"`,
		},
		{
			name:   "the last question line is the current question",
			rules:  nil,
			prompt: "Examples:\nQuestion: total revenue\nA: {}\n\nQuestion: churn by month\n",
			want:   `scripted model: no rule for step "generate_sql" matches the prompt (0 rules for this step); question: "churn by month"`,
		},
		{
			name:   "question on the next line, used-up rules counted",
			rules:  []Rule{{Step: "generate_sql", Reply: "r", Times: 1}},
			prompt: "User question:\n\n  top customers\n",
			want:   `scripted model: no rule for step "generate_sql" matches the prompt (1 rule for this step, 1 used up); question: "top customers"`,
		},
		{
			name:   "a long question, clipped",
			rules:  nil,
			prompt: "Question: " + strings.Repeat("y", 300) + "\n",
			want:   `scripted model: no rule for step "generate_sql" matches the prompt (0 rules for this step); question: "` + strings.Repeat("y", 200) + `…"`,
		},
		{
			name:   "no question line: prompt head, clipped",
			rules:  nil,
			prompt: long,
			want:   `scripted model: no rule for step "generate_sql" matches the prompt (0 rules for this step); prompt starts: "` + strings.Repeat("x", 200) + `…"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustScripted(t, tt.rules...)
			if len(tt.rules) == 1 && tt.rules[0].Times == 1 {
				_, err := ask(context.Background(), s, StepGenerateSQL, tt.prompt)
				require.NoError(t, err)
			}
			_, err := ask(context.Background(), s, StepGenerateSQL, tt.prompt)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			calls := s.Calls()
			last := calls[len(calls)-1]
			assert.Equal(t, -1, last.Rule, "got rule %d for a failed match, want -1", last.Rule)
			assert.Equal(t, err, last.Err, "got recorded err %v, want %v", last.Err, err)
		})
	}
}

func TestScriptedDelayHonoursCancel(t *testing.T) {
	t.Parallel()
	s := mustScripted(t, Rule{Step: "interpret", Reply: "late", Delay: Duration(time.Hour)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ask(ctx, s, StepInterpret, "q")
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "scripted model: rules[0]: context canceled", err.Error())
	calls := s.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, 0, calls[0].Rule, "got rule %d, want 0 (the delayed rule was chosen)", calls[0].Rule)
	assert.Empty(t, calls[0].Reply)
}

func TestScriptedErrorsAndMissingStep(t *testing.T) {
	t.Parallel()
	s := mustScripted(t,
		Rule{Step: "classify", Match: "flaky", Error: "transient: upstream busy"},
		Rule{Step: "classify", Error: "bad request"},
	)
	tests := []struct {
		name          string
		step          Step
		prompt        string
		want          string
		wantTransient bool
	}{
		{name: "transient prefix", step: StepClassify, prompt: "flaky", want: "scripted model: rules[0]: upstream busy (transient)", wantTransient: true},
		{name: "plain error", step: StepClassify, prompt: "q", want: "scripted model: rules[1]: bad request"},
		{name: "no step in metadata", step: "", prompt: "q", want: `scripted model: call has no step (pass llms.WithMetadata(map[string]any{"step": ...}))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ask(context.Background(), s, tt.step, tt.prompt)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, tt.wantTransient, isTransient(err), "got transient %v, want %v", isTransient(err), tt.wantTransient)
		})
	}
}

func TestScriptedRecordsCallsAndUsage(t *testing.T) {
	t.Parallel()
	s := mustScripted(t, Rule{Step: "resolve", Reply: `{"question":"q","referenced_query_id":null}`})
	c := NewClient(s)
	before := time.Now()
	prompt := "Question: and by region?" // 24 characters → 6 tokens
	got, usage, err := c.Complete(context.Background(), StepResolve, prompt)
	require.NoError(t, err)

	want := Usage{PromptTokens: 6, CompletionTokens: 11} // 42 characters → 11 tokens
	assert.Equal(t, want, usage, "got usage %+v, want %+v", usage, want)
	calls := s.Calls()
	require.Len(t, calls, 1)
	call := calls[0]
	assert.Equal(t, StepResolve, call.Step)
	assert.Equal(t, prompt, call.Prompt)
	assert.Equal(t, got, call.Reply)
	assert.Equal(t, 0, call.Rule)
	assert.Equal(t, want, call.Usage)
	assert.NoError(t, call.Err)
	assert.False(t, call.At.Before(before), "got At %v before the call started at %v", call.At, before)
	assert.Equal(t, 1, s.CallCount(StepResolve))
	assert.Equal(t, 0, s.CallCount(StepClassify))
}

func TestScriptedConcurrent(t *testing.T) {
	t.Parallel()
	s := mustScripted(t,
		Rule{Step: "classify", Reply: "limited", Times: 10},
		Rule{Step: "classify", Reply: "rest"},
	)
	c := NewClient(s)
	const n = 50
	replies := make(chan string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, _, err := c.Complete(context.Background(), StepClassify, fmt.Sprintf("Question: %d", i))
			if err != nil {
				replies <- err.Error()
				return
			}
			replies <- r
		}()
	}
	wg.Wait()
	close(replies)
	counts := map[string]int{}
	for r := range replies {
		counts[r]++
	}
	assert.Equal(t, map[string]int{"limited": 10, "rest": 40}, counts)
	assert.Len(t, s.Calls(), n)
	assert.Equal(t, n, s.CallCount(StepClassify))
}

func TestLoadScript(t *testing.T) {
	t.Parallel()
	yamlScript := `rules:
  - step: classify
    match: '(?i)revenue'
    reply: '{"intent":"analytics_query","confidence":0.9}'
    delay: 500ms
    times: 2
  - step: generate_sql
    reply: |
      {"sql":"SELECT 1","assumptions":[],"explanation":"one"}
`
	jsonScript := `{"rules":[
  {"step":"classify","match":"(?i)revenue","reply":"{\"intent\":\"analytics_query\",\"confidence\":0.9}","delay":"500ms","times":2},
  {"step":"generate_sql","reply":"{\"sql\":\"SELECT 1\",\"assumptions\":[],\"explanation\":\"one\"}\n"}
]}`
	tests := []struct {
		name, file, body string
	}{
		{name: "yaml", file: "s.yaml", body: yamlScript},
		{name: "yml", file: "s.yml", body: yamlScript},
		{name: "json", file: "s.json", body: jsonScript},
		{name: "json in a yaml file", file: "j.yaml", body: jsonScript},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tt.file)
			require.NoError(t, os.WriteFile(path, []byte(tt.body), 0o600))
			s, err := LoadScript(path)
			require.NoError(t, err)
			want := []Rule{
				{Step: "classify", Match: "(?i)revenue", Reply: `{"intent":"analytics_query","confidence":0.9}`, Delay: Duration(500 * time.Millisecond), Times: 2},
				{Step: "generate_sql", Reply: "{\"sql\":\"SELECT 1\",\"assumptions\":[],\"explanation\":\"one\"}\n"},
			}
			assert.Equal(t, want, s.rules)
		})
	}
	t.Run("ParseScript reads JSON through YAML", func(t *testing.T) {
		t.Parallel()
		s, err := ParseScript([]byte(jsonScript))
		require.NoError(t, err)
		assert.Len(t, s.rules, 2)
	})
}

func TestBadScripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, body, want string
	}{
		{name: "unknown step", file: "s.yaml", body: "rules:\n- {step: classify, reply: x}\n- {step: clasify, reply: x}\n",
			want: `rules[1]: unknown step "clasify" (valid: classify, schedule, resolve, generate_sql, generate_cube, generate_query, interpret)`},
		{name: "bad regexp", file: "s.yaml", body: "rules:\n- {step: classify, match: '(unclosed', reply: x}\n",
			want: `rules[0]: step "classify": bad match regexp: error parsing regexp: missing closing ): ` + "`(unclosed`"},
		{name: "missing reply", file: "s.json", body: `{"rules":[{"step":"interpret"}]}`,
			want: `rules[0]: step "interpret": missing reply (or error)`},
		{name: "reply and error", file: "s.yaml", body: "rules:\n- {step: resolve, reply: x, error: y}\n",
			want: `rules[0]: step "resolve": set reply or error, not both`},
		{name: "negative times", file: "s.yaml", body: "rules:\n- {step: resolve, reply: x, times: -1}\n",
			want: `rules[0]: step "resolve": times -1 is negative`},
		{name: "misspelt field", file: "s.yaml", body: "rules:\n- {step: resolve, mach: x, reply: x}\n",
			want: "field mach not found"},
		{name: "misspelt field json", file: "s.json", body: `{"rules":[{"step":"resolve","mach":"x","reply":"x"}]}`,
			want: `unknown field "mach"`},
		{name: "bad delay", file: "s.yaml", body: "rules:\n- {step: resolve, reply: x, delay: soon}\n",
			want: `line 2: want a duration like "500ms" or "2s"`},
		{name: "bad delay json", file: "s.json", body: `{"rules":[{"step":"resolve","reply":"x","delay":5}]}`,
			want: `want a duration string like "500ms" or "2s", got 5`},
		{name: "negative delay", file: "s.yaml", body: "rules:\n- {step: resolve, reply: x}\n- {step: resolve, reply: x, delay: -1s}\n",
			want: `line 3: duration "-1s" is negative`},
		{name: "no rules", file: "s.yaml", body: "# nothing yet\n",
			want: `no rules (want a top-level "rules:" list)`},
		{name: "unknown extension", file: "s.txt", body: "rules: []",
			want: `unknown extension ".txt" (want .yaml, .yml or .json)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tt.file)
			require.NoError(t, os.WriteFile(path, []byte(tt.body), 0o600))
			_, err := LoadScript(path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "load script "+path+": ", "got %q, want the file named", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("missing file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "nope.yaml")
		_, err := LoadScript(path)
		require.Error(t, err)
		assert.True(t, errors.Is(err, os.ErrNotExist), "got %v, want os.ErrNotExist", err)
		assert.Contains(t, err.Error(), path)
	})
}

// TestDocScriptsLoad keeps the complete scripts in docs/scripted-model.md
// loadable, so the documentation cannot drift from the format.
func TestDocScriptsLoad(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "scripted-model.md"))
	require.NoError(t, err)
	blocks := 0
	for _, chunk := range strings.Split(string(doc), "```yaml\n")[1:] {
		block, _, _ := strings.Cut(chunk, "```")
		if !strings.Contains(block, "rules:") {
			continue // a fragment of a rules list
		}
		blocks++
		_, err := ParseScript([]byte(block))
		assert.NoError(t, err, "doc script %d:\n%s", blocks, block)
	}
	assert.GreaterOrEqual(t, blocks, 2, "got %d complete scripts in the doc, want at least 2", blocks)
}

func TestScriptedExpandsCaptureGroups(t *testing.T) {
	t.Parallel()
	s, err := NewScripted([]Rule{
		{Step: "generate_sql", Match: `(?m)^Question: games in (?P<year>\d{4})$`, Reply: `{"sql": "SELECT count(*) FROM apps WHERE release_year = ${year}"}`},
		{Step: "interpret", Match: `value (\d+)`, Reply: `*$1* games; costs $$5`},
		{Step: "classify", Reply: `{"intent": "analytics_query", "price": "$5"}`},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		step   Step
		prompt string
		want   string
	}{
		{"named group", StepGenerateSQL, "Schema…\nQuestion: games in 2017", `{"sql": "SELECT count(*) FROM apps WHERE release_year = 2017"}`},
		{"numbered group and literal dollar", StepInterpret, "the value 8160 here", `*8160* games; costs $5`},
		{"no groups: reply as written", StepClassify, "anything", `{"intent": "analytics_query", "price": "$5"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := NewClient(s).Complete(context.Background(), tt.step, tt.prompt)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
