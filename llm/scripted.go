package llm

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// TransientPrefix starts a rule's Error to make the scripted failure
// retryable by [Client], like a 503 or a dropped connection would be.
const TransientPrefix = "transient:"

// Rule is one scripted answer. The first rule whose Step equals the call's
// step, whose Match is found in the prompt and that is not used up answers.
// The format is documented in docs/scripted-model.md.
type Rule struct {
	// Step is the workflow step the rule answers ("classify", ...).
	Step string `yaml:"step" json:"step"`
	// Match is an RE2 regexp searched in the full prompt; empty matches all.
	Match string `yaml:"match,omitempty" json:"match,omitempty"`
	// Reply is the model's answer.
	Reply string `yaml:"reply,omitempty" json:"reply,omitempty"`
	// Error, when set, is returned instead of a reply. With the
	// [TransientPrefix] the client treats it as retryable.
	Error string `yaml:"error,omitempty" json:"error,omitempty"`
	// Delay is waited before answering; a canceled context ends the wait.
	Delay Duration `yaml:"delay,omitempty" json:"delay,omitempty"`
	// Times caps how often the rule answers; 0 means no limit.
	Times int `yaml:"times,omitempty" json:"times,omitempty"`
}

// Call is one call the scripted model received, recorded even when it failed.
type Call struct {
	Step   Step
	Prompt string
	Reply  string
	// Rule is the index of the rule that answered, -1 when none did.
	Rule  int
	Usage Usage
	Err   error
	At    time.Time
}

// Scripted is an llms.Model that answers from rules instead of a network
// call, for tests and the offline demo. It records every call and is safe
// for concurrent use. Its usage is [EstimateTokens] of the prompt and reply.
type Scripted struct {
	rules   []Rule
	matches []*regexp.Regexp
	// filters rule out, before matches, the prompts a rule cannot match.
	filters []prefilter
	// scopes are the lines a one-line match is searched in; scopeIDs
	// number each rule's by its literal, so that rules sharing one
	// ("Question: ") share the lines a call finds for it (-1: none).
	scopes   []lineScope
	scopeIDs []int
	// numScopes counts the distinct literals of scopes.
	numScopes int

	mu    sync.Mutex
	used  []int
	calls []Call
}

var _ llms.Model = (*Scripted)(nil)

// NewScripted checks the rules and returns a model that plays them.
func NewScripted(rules []Rule) (*Scripted, error) {
	s := &Scripted{
		rules:    append([]Rule(nil), rules...),
		matches:  make([]*regexp.Regexp, len(rules)),
		filters:  make([]prefilter, len(rules)),
		scopes:   make([]lineScope, len(rules)),
		scopeIDs: make([]int, len(rules)),
		used:     make([]int, len(rules)),
	}
	var errs []error
	ids := map[string]int{} // by a scope's literal and (?i)
	for i, r := range s.rules {
		s.scopeIDs[i] = -1
		re, err := checkRule(r)
		if err != nil {
			errs = append(errs, fmt.Errorf("rules[%d]: %w", i, err))
			continue
		}
		s.matches[i] = re
		s.filters[i] = newPrefilter(r.Match)
		s.scopes[i] = newLineScope(r.Match)
		if sc := s.scopes[i]; sc.ok {
			key := fmt.Sprintf("%t %s", sc.fold, string(sc.lit))
			id, ok := ids[key]
			if !ok {
				id = len(ids)
				ids[key] = id
			}
			s.scopeIDs[i] = id
		}
	}
	s.numScopes = len(ids)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("scripted model: %w", err)
	}
	return s, nil
}

// checkRule validates one rule and compiles its regexp.
func checkRule(r Rule) (*regexp.Regexp, error) {
	if !Step(r.Step).Valid() {
		return nil, fmt.Errorf("unknown step %q (valid: %s)", r.Step, stepList())
	}
	if r.Reply == "" && r.Error == "" {
		return nil, fmt.Errorf("step %q: missing reply (or error)", r.Step)
	}
	if r.Reply != "" && r.Error != "" {
		return nil, fmt.Errorf("step %q: set reply or error, not both", r.Step)
	}
	if r.Times < 0 {
		return nil, fmt.Errorf("step %q: times %d is negative", r.Step, r.Times)
	}
	re, err := regexp.Compile(r.Match)
	if err != nil {
		return nil, fmt.Errorf("step %q: bad match regexp: %w", r.Step, err)
	}
	return re, nil
}

// GenerateContent answers from the first matching rule. The step comes from
// llms.WithMetadata(map[string]any{"step": ...}), as [Client] sends it; the
// prompt is the text of all messages joined by newlines. With
// llms.WithStreamingFunc the reply is also streamed, without delay, in
// word-sized chunks (a word and the whitespace after it); a failing rule
// streams nothing.
func (s *Scripted) GenerateContent(ctx context.Context, messages []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	opts := llms.CallOptions{}
	for _, opt := range options {
		opt(&opts)
	}
	call := Call{Step: stepOf(opts.Metadata), Prompt: promptOf(messages), Rule: -1, At: time.Now()}
	call.Usage.PromptTokens = EstimateTokens(call.Prompt)
	reply, err := s.answer(ctx, &call)
	if err == nil && opts.StreamingFunc != nil {
		err = streamReply(ctx, call.Rule, reply, opts.StreamingFunc)
		if err != nil {
			reply = ""
		}
	}
	call.Reply, call.Err = reply, err
	if err == nil {
		call.Usage.CompletionTokens = EstimateTokens(reply)
	}
	s.record(call)
	if err != nil {
		return nil, err
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:    reply,
		StopReason: "stop",
		GenerationInfo: map[string]any{
			"PromptTokens":     call.Usage.PromptTokens,
			"CompletionTokens": call.Usage.CompletionTokens,
			"TotalTokens":      call.Usage.PromptTokens + call.Usage.CompletionTokens,
		},
	}}}, nil
}

// Call answers a single text prompt; pass the step with llms.WithMetadata.
func (s *Scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, options...)
}

// answer picks the rule for call, waits its delay and returns its outcome.
func (s *Scripted) answer(ctx context.Context, call *Call) (string, error) {
	if call.Step == "" {
		return "", errors.New(`scripted model: call has no step (pass llms.WithMetadata(map[string]any{"step": ...}))`)
	}
	idx, groups, err := s.pick(call.Step, call.Prompt)
	if err != nil {
		return "", err
	}
	call.Rule = idx
	r := s.rules[idx]
	if err := wait(ctx, time.Duration(r.Delay)); err != nil {
		return "", fmt.Errorf("scripted model: rules[%d]: %w", idx, err)
	}
	if r.Error != "" {
		return "", newScriptError(idx, r.Error)
	}
	return expand(s.matches[idx], r.Reply, call.Prompt, groups), nil
}

// streamReply sends reply to f in word-sized chunks. Like a real provider it
// stops when f fails or ctx ends.
func streamReply(ctx context.Context, rule int, reply string, f func(context.Context, []byte) error) error {
	for _, chunk := range wordChunks(reply) {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scripted model: rules[%d]: stream: %w", rule, err)
		}
		if err := f(ctx, []byte(chunk)); err != nil {
			return fmt.Errorf("scripted model: rules[%d]: stream: %w", rule, err)
		}
	}
	return nil
}

// expand fills a reply's $1 or ${name} from the match's capture groups
// (m, re's submatch indexes in prompt), so a rule can quote the prompt (a
// year in the question, a value in the result). A rule whose match has no
// groups is returned as written.
func expand(re *regexp.Regexp, reply, prompt string, m []int) string {
	if re.NumSubexp() == 0 || m == nil {
		return reply
	}
	return string(re.ExpandString(nil, reply, prompt, m))
}

// pick claims the first usable rule for step and prompt. For a rule whose
// match has capture groups it also returns their indexes in prompt, found
// by the same search that picks the rule.
func (s *Scripted) pick(step Step, prompt string) (int, []int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	forStep, usedUp := 0, 0
	scan := newPromptScan(prompt, s.numScopes)
	for i, r := range s.rules {
		if Step(r.Step) != step {
			continue
		}
		forStep++
		if r.Times > 0 && s.used[i] >= r.Times {
			usedUp++
			continue
		}
		if m := s.find(i, scan); m != nil {
			s.used[i]++
			return i, m, nil
		}
	}
	return -1, nil, noRuleError(step, prompt, forStep, usedUp)
}

func noRuleError(step Step, prompt string, forStep, usedUp int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "scripted model: no rule for step %q matches the prompt (%s for this step", step, plural(forStep, "rule"))
	if usedUp > 0 {
		fmt.Fprintf(&b, ", %d used up", usedUp)
	}
	b.WriteString(")")
	if q, ok := questionOf(prompt); ok {
		fmt.Fprintf(&b, "; question: %q", q)
	} else {
		fmt.Fprintf(&b, "; prompt starts: %q", clip(strings.TrimSpace(prompt), 200))
	}
	return errors.New(b.String())
}

// questionLine finds the user's question in a rendered prompt: the
// templates end with a line "Question: ..." (also "User question:").
var questionLine = regexp.MustCompile(`(?im)^[ \t]*(?:user(?:'s)?[ \t]+)?question[ \t]*:[ \t]*(.*)$`)

// questionOf returns the first ~200 characters of the question in prompt.
// It takes the last question line, as the templates put the current
// question after any examples and history.
func questionOf(prompt string) (string, bool) {
	all := questionLine.FindAllStringSubmatchIndex(prompt, -1)
	if all == nil {
		return "", false
	}
	loc := all[len(all)-1]
	q := strings.TrimSpace(prompt[loc[2]:loc[3]])
	if q == "" { // "Question:" alone on its line: the question follows
		for _, line := range strings.Split(prompt[loc[1]:], "\n") {
			if q = strings.TrimSpace(line); q != "" {
				break
			}
		}
	}
	return clip(q, 200), q != ""
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// wait sleeps for d unless ctx ends first; with no delay it only reports an
// ended ctx, as a real model call would.
func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Scripted) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

// Calls returns a copy of the recorded calls in the order they finished.
func (s *Scripted) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// CallCount returns how many recorded calls were for step.
func (s *Scripted) CallCount(step Step) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if c.Step == step {
			n++
		}
	}
	return n
}

// Reset forgets the recorded calls and how often each rule was used, so the
// script plays again from the start.
func (s *Scripted) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
	clear(s.used)
}

// stepOf reads the step from call metadata.
func stepOf(md map[string]any) Step {
	switch v := md[MetadataStep].(type) {
	case string:
		return Step(v)
	case Step:
		return v
	}
	return ""
}

// promptOf joins the text parts of all messages.
func promptOf(messages []llms.MessageContent) string {
	var parts []string
	for _, m := range messages {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				parts = append(parts, t.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// scriptError is a rule's scripted failure.
type scriptError struct {
	rule      int
	msg       string
	transient bool
}

func newScriptError(rule int, text string) *scriptError {
	msg, transient := strings.CutPrefix(text, TransientPrefix)
	return &scriptError{rule: rule, msg: strings.TrimSpace(msg), transient: transient}
}

func (e *scriptError) Error() string {
	kind := ""
	if e.transient {
		kind = " (transient)"
	}
	return fmt.Sprintf("scripted model: rules[%d]: %s%s", e.rule, e.msg, kind)
}

// Transient tells [Client] whether to retry.
func (e *scriptError) Transient() bool { return e.transient }
