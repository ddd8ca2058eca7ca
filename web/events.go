package web

import (
	"context"
	"sync"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/nodes"
	"github.com/analyticsbot/analyticsbot/workflow"
)

// The events of the chat stream, sent as `data: {json}` lines.

type statusEvent struct {
	Type  string `json:"type"` // "status"
	Node  string `json:"node"`
	Label string `json:"label"`
}

type nodeResultEvent struct {
	Type    string  `json:"type"` // "node_result"
	Node    string  `json:"node"`
	Outcome string  `json:"outcome"`
	MS      float64 `json:"ms"`
	// Rows is the executor's row count.
	Rows *int `json:"rows,omitempty"`
}

type textDeltaEvent struct {
	Type string `json:"type"` // "text_delta"
	Text string `json:"text"`
}

type errorEvent struct {
	Type    string `json:"type"` // "error"
	Message string `json:"message"`
}

type messageEndEvent struct {
	Type     string     `json:"type"` // "message_end"
	ThreadID string     `json:"thread_id"`
	QueryID  string     `json:"query_id"`
	Text     string     `json:"text"`
	Reply    *replyView `json:"reply"`
	Timing   timingJSON `json:"timing"`
	Debug    debugJSON  `json:"debug"`
}

type timingJSON struct {
	LLMMS   float64 `json:"llmMs"`
	DBMS    float64 `json:"dbMs"`
	TotalMS float64 `json:"totalMs"`
}

type debugJSON struct {
	LLMCalls         int    `json:"llmCalls"`
	PromptTokens     int    `json:"promptTokens"`
	CompletionTokens int    `json:"completionTokens"`
	TextDeltaCount   int    `json:"textDeltaCount"`
	TotalChars       int    `json:"totalChars"`
	Intent           string `json:"intent,omitempty"`
	ErrorKind        string `json:"errorKind,omitempty"`
	// Nodes is the path the run took, retries included.
	Nodes []string `json:"nodes"`
}

// chatRun turns one run's progress into events: it is the workflow's
// observer and the model's stream sink. Both are called from the
// workflow's goroutine, the sink possibly from parallel model calls.
type chatRun struct {
	out *eventWriter

	mu     sync.Mutex
	text   answer.Preview
	deltas int
	chars  int
}

var _ workflow.Observer = (*chatRun)(nil)

// NodeStarted sends the node's status; the interpreter starts its text
// afresh.
func (c *chatRun) NodeStarted(_ context.Context, n workflow.NodeInfo, _ int) {
	if n.Name == nodes.NodeInterpret {
		c.mu.Lock()
		c.text = answer.Preview{}
		c.mu.Unlock()
	}
	c.out.send(statusEvent{Type: "status", Node: n.Name, Label: n.Label})
}

// NodeFinished is part of workflow.Observer; NodeState sends the event.
func (c *chatRun) NodeFinished(context.Context, workflow.Step) {}

// NodeState sends the node's outcome and time, and for the executor the
// number of rows.
func (c *chatRun) NodeState(_ context.Context, st workflow.Step, s *nodes.State) {
	ev := nodeResultEvent{Type: "node_result", Node: st.Node, Outcome: st.Outcome, MS: ms(st.Duration)}
	if st.Node == nodes.NodeExecuteQuery && s.ErrorKind == "" {
		rows := s.Result.RowCount
		ev.Rows = &rows
	}
	c.out.send(ev)
}

// chunk is the llm.StreamFunc: the interpreter's text goes out as
// text_delta events, the other steps' JSON does not.
func (c *chatRun) chunk(step llm.Step, chunk string) {
	if step != llm.StepInterpret {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	text := c.text.Feed(chunk)
	if text == "" {
		return
	}
	c.deltas++
	c.chars += utf8.RuneCountInString(text)
	c.out.send(textDeltaEvent{Type: "text_delta", Text: text})
}

// end builds the message_end event of a finished run.
func (c *chatRun) end(s *nodes.State, res workflow.Result) messageEndEvent {
	c.mu.Lock()
	deltas, chars := c.deltas, c.chars
	c.mu.Unlock()
	text := s.ResponseText
	path := res.Path()
	return messageEndEvent{
		Type: "message_end", ThreadID: s.ThreadTS, QueryID: s.QueryID, Text: text, Reply: viewOf(s),
		Timing: timingJSON{LLMMS: ms(s.LLMTime), DBMS: ms(s.DBTime), TotalMS: ms(res.Total)},
		Debug: debugJSON{
			LLMCalls: s.LLMCalls, PromptTokens: s.PromptTokens, CompletionTokens: s.CompletionTokens,
			TextDeltaCount: deltas, TotalChars: chars, Intent: string(s.Intent), ErrorKind: string(s.ErrorKind),
			Nodes: path,
		},
	}
}
