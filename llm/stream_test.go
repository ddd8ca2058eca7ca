package llm

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms"
)

// chunk is one call of a StreamFunc.
type chunk struct {
	step Step
	text string
}

// sink records what a StreamFunc receives.
type sink struct {
	mu     sync.Mutex
	chunks []chunk
}

func (s *sink) stream(step Step, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chunks = append(s.chunks, chunk{step: step, text: text})
}

func (s *sink) got() []chunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]chunk(nil), s.chunks...)
}

// texts returns the chunk texts of step.
func (s *sink) texts(step Step) []string {
	var out []string
	for _, c := range s.got() {
		if c.step == step {
			out = append(out, c.text)
		}
	}
	return out
}

// fakeModel plays what the scripted model cannot: a stream cut by a
// failure, a provider that streams after returning. Each call gets its
// number (from 1) and the call options.
type fakeModel struct {
	mu       sync.Mutex
	n        int
	generate func(ctx context.Context, n int, opts llms.CallOptions) (*llms.ContentResponse, error)
}

func (m *fakeModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	m.mu.Lock()
	m.n++
	n := m.n
	m.mu.Unlock()
	return m.generate(ctx, n, opts)
}

func (m *fakeModel) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

func reply(text string) *llms.ContentResponse {
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text}}}
}

func TestWordChunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{name: "empty", in: "", want: nil},
		{name: "one word", in: "ok", want: []string{"ok"}},
		{name: "words keep the space after them", in: "Revenue grew 12%.", want: []string{"Revenue ", "grew ", "12%."}},
		{name: "leading space joins the first word", in: "  hi there", want: []string{"  hi ", "there"}},
		{name: "trailing space stays on the last word", in: "bye \n", want: []string{"bye \n"}},
		{name: "newlines and tabs", in: "a\n\nb\tc", want: []string{"a\n\n", "b\t", "c"}},
		{name: "only space", in: " \n ", want: []string{" \n "}},
		{name: "unicode", in: "Überblick: 5 € pro Tag", want: []string{"Überblick: ", "5 ", "€ ", "pro ", "Tag"}},
		{name: "json", in: `{"answer":"12 orders"}`, want: []string{`{"answer":"12 `, `orders"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := wordChunks(tt.in)
			assert.Equal(t, tt.want, got, "wordChunks(%q): got %q, want %q", tt.in, got, tt.want)
			assert.Equal(t, tt.in, strings.Join(got, ""), "the chunks must concatenate to the input")
		})
	}
}

func TestCompleteStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		reply      string
		wantChunks []string
	}{
		{name: "multi-word reply", reply: "EMEA led with *$1.2M*, 41% of revenue.",
			wantChunks: []string{"EMEA ", "led ", "with ", "*$1.2M*, ", "41% ", "of ", "revenue."}},
		{name: "single word", reply: "Done.", wantChunks: []string{"Done."}},
		{name: "lines", reply: "Top regions:\n• EMEA\n• APAC\n",
			wantChunks: []string{"Top ", "regions:\n", "• ", "EMEA\n", "• ", "APAC\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := mustScripted(t, Rule{Step: "interpret", Reply: tt.reply})
			var sk sink
			got, _, err := NewClient(s).Complete(WithStream(context.Background(), sk.stream), StepInterpret, "Question: revenue?")
			require.NoError(t, err)
			assert.Equal(t, tt.reply, got, "Complete must still return the whole reply")
			chunks := sk.texts(StepInterpret)
			assert.Equal(t, tt.wantChunks, chunks, "got chunks %q, want %q", chunks, tt.wantChunks)
			assert.Equal(t, tt.reply, strings.Join(chunks, ""), "the chunks must concatenate to the reply")
			assert.Len(t, sk.got(), len(tt.wantChunks), "got chunks of other steps: %v", sk.got())
		})
	}
}

func TestCompleteStreamsEveryStep(t *testing.T) {
	t.Parallel()
	s := mustScripted(t,
		Rule{Step: "classify", Reply: `{"intent": "analytics_query"}`},
		Rule{Step: "interpret", Reply: "Twelve orders."},
	)
	c := NewClient(s)
	var sk sink
	ctx := WithStream(context.Background(), sk.stream)
	_, _, err := c.Complete(ctx, StepClassify, "q")
	require.NoError(t, err)
	_, _, err = c.Complete(ctx, StepInterpret, "q")
	require.NoError(t, err)

	want := []chunk{
		{StepClassify, `{"intent": `}, {StepClassify, `"analytics_query"}`},
		{StepInterpret, "Twelve "}, {StepInterpret, "orders."},
	}
	assert.Equal(t, want, sk.got(), "got %v, want %v", sk.got(), want)
}

func TestCompleteWithoutStream(t *testing.T) {
	t.Parallel()
	var sk sink
	tests := []struct {
		name       string
		ctx        context.Context
		wantStream bool
	}{
		{name: "plain context", ctx: context.Background(), wantStream: false},
		{name: "nil StreamFunc", ctx: WithStream(context.Background(), nil), wantStream: false},
		{name: "with stream", ctx: WithStream(context.Background(), sk.stream), wantStream: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var gotStream bool
			m := &fakeModel{generate: func(_ context.Context, _ int, opts llms.CallOptions) (*llms.ContentResponse, error) {
				gotStream = opts.StreamingFunc != nil
				return reply("a few words"), nil
			}}
			got, _, err := NewClient(m).Complete(tt.ctx, StepResolve, "q")
			require.NoError(t, err)
			assert.Equal(t, "a few words", got)
			assert.Equal(t, tt.wantStream, gotStream, "got a streaming func %v, want %v", gotStream, tt.wantStream)
		})
	}
}

// TestCompleteStreamRetry shows what the sink sees when an attempt fails and
// is retried: a scripted failure streams nothing, so only the retry's text
// arrives; a provider that failed mid-reply has sent its first chunks, and
// the retry sends the reply again from the start.
func TestCompleteStreamRetry(t *testing.T) {
	t.Parallel()
	t.Run("scripted transient error", func(t *testing.T) {
		t.Parallel()
		s := mustScripted(t,
			Rule{Step: "interpret", Error: "transient: upstream busy", Times: 1},
			Rule{Step: "interpret", Reply: "Weekly revenue is up."},
		)
		var sk sink
		got, _, err := NewClient(s, fastRetries).Complete(WithStream(context.Background(), sk.stream), StepInterpret, "q")
		require.NoError(t, err)
		assert.Equal(t, "Weekly revenue is up.", got)
		assert.Equal(t, 2, s.CallCount(StepInterpret), "got %d calls, want 2 (one retry)", s.CallCount(StepInterpret))
		want := []string{"Weekly ", "revenue ", "is ", "up."}
		assert.Equal(t, want, sk.texts(StepInterpret), "the failed attempt streams nothing; got %q, want %q", sk.texts(StepInterpret), want)
	})
	t.Run("failure mid-stream", func(t *testing.T) {
		t.Parallel()
		m := &fakeModel{generate: func(ctx context.Context, n int, opts llms.CallOptions) (*llms.ContentResponse, error) {
			if err := opts.StreamingFunc(ctx, []byte("Weekly ")); err != nil {
				return nil, err
			}
			if n == 1 {
				return nil, errors.New("API returned unexpected status code: 503: dropped")
			}
			if err := opts.StreamingFunc(ctx, []byte("revenue.")); err != nil {
				return nil, err
			}
			return reply("Weekly revenue."), nil
		}}
		var sk sink
		got, _, err := NewClient(m, fastRetries).Complete(WithStream(context.Background(), sk.stream), StepInterpret, "q")
		require.NoError(t, err)
		assert.Equal(t, "Weekly revenue.", got)
		want := []string{"Weekly ", "Weekly ", "revenue."}
		assert.Equal(t, want, sk.texts(StepInterpret), "the retry restarts the text; got %q, want %q", sk.texts(StepInterpret), want)
	})
}

func TestCompleteStreamClosedAfterReturn(t *testing.T) {
	t.Parallel()
	var late func(context.Context, []byte) error
	m := &fakeModel{generate: func(ctx context.Context, _ int, opts llms.CallOptions) (*llms.ContentResponse, error) {
		late = opts.StreamingFunc
		if err := opts.StreamingFunc(ctx, []byte("on time")); err != nil {
			return nil, err
		}
		return reply("on time"), nil
	}}
	var sk sink
	_, _, err := NewClient(m).Complete(WithStream(context.Background(), sk.stream), StepInterpret, "q")
	require.NoError(t, err)
	require.NotNil(t, late)

	err = late(context.Background(), []byte("too late"))
	require.ErrorIs(t, err, errStreamClosed, "a chunk after the attempt returned must be refused")
	assert.Equal(t, []string{"on time"}, sk.texts(StepInterpret))
}

func TestCompleteStreamSkipsEmptyChunks(t *testing.T) {
	t.Parallel()
	m := &fakeModel{generate: func(ctx context.Context, _ int, opts llms.CallOptions) (*llms.ContentResponse, error) {
		for _, c := range []string{"", "Hi", "", " there", ""} {
			if err := opts.StreamingFunc(ctx, []byte(c)); err != nil {
				return nil, err
			}
		}
		return reply("Hi there"), nil
	}}
	var sk sink
	_, _, err := NewClient(m).Complete(WithStream(context.Background(), sk.stream), StepInterpret, "q")
	require.NoError(t, err)
	assert.Equal(t, []string{"Hi", " there"}, sk.texts(StepInterpret), "empty chunks must not reach the StreamFunc")
}

func TestCompleteStreamCanceledMidReply(t *testing.T) {
	t.Parallel()
	s := mustScripted(t, Rule{Step: "interpret", Reply: "one two three"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sk sink
	ctx = WithStream(ctx, func(step Step, text string) {
		sk.stream(step, text)
		cancel() // the person left after the first word
	})
	_, _, err := NewClient(s, fastRetries).Complete(ctx, StepInterpret, "q")
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "interpret: model call: context canceled", err.Error())
	assert.Equal(t, []string{"one "}, sk.texts(StepInterpret))
	calls := s.Calls()
	require.Len(t, calls, 1, "cancellation is never retried")
	assert.ErrorIs(t, calls[0].Err, context.Canceled)
	assert.Empty(t, calls[0].Reply, "a cut stream records no reply")
}

func TestScriptedStreamStopsOnError(t *testing.T) {
	t.Parallel()
	s := mustScripted(t, Rule{Step: "interpret", Reply: "one two three"})
	stop := errors.New("client gone")
	var got []string
	_, err := s.GenerateContent(context.Background(),
		[]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "q")},
		llms.WithMetadata(map[string]any{MetadataStep: "interpret"}),
		llms.WithStreamingFunc(func(_ context.Context, c []byte) error {
			got = append(got, string(c))
			if len(got) == 2 {
				return stop
			}
			return nil
		}),
	)
	require.ErrorIs(t, err, stop)
	assert.Equal(t, "scripted model: rules[0]: stream: client gone", err.Error())
	assert.Equal(t, []string{"one ", "two "}, got, "streaming must stop at the failing chunk")
	calls := s.Calls()
	require.Len(t, calls, 1)
	assert.ErrorIs(t, calls[0].Err, stop)
}
