package web

import (
	"context"
	"sync"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/bot"
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

// chatRun turns one run's progress into events: it is the answer's
// bot.Progress, and its Text the answer's text stream (bot.WithText). Its
// methods are called from the workflow's goroutine, Text possibly from
// parallel model calls.
type chatRun struct {
	out *eventWriter

	mu     sync.Mutex
	text   answer.Preview
	deltas int
	chars  int
}

var _ bot.Progress = (*chatRun)(nil)

// Started sends the step's status; the step that writes the answer's
// prose starts its text afresh.
func (c *chatRun) Started(_ context.Context, s bot.Step) {
	if s.StartsText {
		c.mu.Lock()
		c.text = answer.Preview{}
		c.mu.Unlock()
	}
	c.out.send(statusEvent{Type: "status", Node: s.Node, Label: s.Label})
}

// Finished sends the step's outcome and time, and for the step that ran
// the query the number of rows.
func (c *chatRun) Finished(_ context.Context, s bot.Step) {
	c.out.send(nodeResultEvent{Type: "node_result", Node: s.Node, Outcome: s.Outcome, MS: ms(s.Duration), Rows: s.Rows})
}

// Text sends the answer's prose as text_delta events.
func (c *chatRun) Text(chunk string) {
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
func (c *chatRun) end(r bot.Reply) messageEndEvent {
	c.mu.Lock()
	deltas, chars := c.deltas, c.chars
	c.mu.Unlock()
	return messageEndEvent{
		Type: "message_end", ThreadID: r.ThreadID, QueryID: r.QueryID, Text: r.Text, Reply: viewOf(r),
		Timing: timingJSON{LLMMS: ms(r.ModelTime), DBMS: ms(r.DBTime), TotalMS: ms(r.Elapsed)},
		Debug: debugJSON{
			LLMCalls: r.ModelCalls, PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
			TextDeltaCount: deltas, TotalChars: chars, Intent: r.Intent, ErrorKind: r.Outcome.Kind,
			Nodes: r.Path(),
		},
	}
}
