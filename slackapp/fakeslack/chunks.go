package fakeslack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
)

// Task is a task card of a streamed message, as its task_update chunks
// left it: the last chunk with its id sets its title and status.
type Task struct {
	ID, Title string
	// Status is pending, in_progress, complete or error.
	Status          string
	Details, Output string
}

// Slack's task statuses (task_update's status).
var taskStatuses = map[string]bool{"pending": true, "in_progress": true, "complete": true, "error": true}

// maxTaskText is Slack's limit on a task's details and output.
const maxTaskText = 256

// maxChunkBlocks is Slack's limit on the blocks of one blocks chunk.
const maxChunkBlocks = 50

// chunk is one element of the chunks argument of the streaming methods, in
// the shape Slack documents: markdown_text (text), task_update (id, title,
// status, details, output, sources), plan_update (title), blocks (blocks).
type chunk struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	ID      string          `json:"id"`
	Title   string          `json:"title"`
	Status  string          `json:"status"`
	Details string          `json:"details"`
	Output  string          `json:"output"`
	Sources []source        `json:"sources"`
	Blocks  json.RawMessage `json:"blocks"`
}

type source struct {
	Type string `json:"type"`
	URL  string `json:"url"`
	Text string `json:"text"`
}

// streamed is what one streaming call adds to its message.
type streamed struct {
	text   string
	tasks  []Task
	plan   string
	blocks []json.RawMessage
}

// readChunks reads and checks the chunks argument ("" when absent). A
// chunk Slack would refuse makes the whole call invalid_chunks, with the
// reason and where it is.
func readChunks(args url.Values) (streamed, reply, bool) {
	var out streamed
	raw, present := args["chunks"]
	if !present || len(raw) == 0 {
		return out, reply{}, false
	}
	var chunks []json.RawMessage
	if err := json.Unmarshal([]byte(raw[0]), &chunks); err != nil {
		return out, badChunk("chunks must be a JSON array of chunk objects", ""), true
	}
	for i, one := range chunks {
		var c chunk
		dec := json.NewDecoder(bytes.NewReader(one))
		if err := dec.Decode(&c); err != nil {
			return out, badChunk("a chunk must be an object", fmt.Sprintf("/chunks/%d", i)), true
		}
		if why, field := checkChunk(c); why != "" {
			return out, badChunk(why, fmt.Sprintf("/chunks/%d%s", i, field)), true
		}
		switch c.Type {
		case "markdown_text":
			out.text += c.Text
		case "task_update":
			out.tasks = append(out.tasks, Task{ID: c.ID, Title: c.Title, Status: c.Status, Details: c.Details, Output: c.Output})
		case "plan_update":
			out.plan = c.Title
		case "blocks":
			out.blocks = append(out.blocks, c.Blocks)
		}
	}
	return out, reply{}, false
}

// checkChunk returns why Slack refuses c and the field at fault, or "".
func checkChunk(c chunk) (why, field string) {
	switch c.Type {
	case "markdown_text":
		if c.Text == "" {
			return "markdown_text needs its text", "/text"
		}
		if n := runeLen(c.Text); n > maxMarkdownChunk {
			return fmt.Sprintf("text is %d characters, more than %d", n, maxMarkdownChunk), "/text"
		}
	case "task_update":
		switch {
		case c.ID == "":
			return "task_update needs an id", "/id"
		case c.Title == "":
			return "task_update needs a title", "/title"
		case !taskStatuses[c.Status]:
			return fmt.Sprintf("status %q is not one of pending, in_progress, complete, error", c.Status), "/status"
		case runeLen(c.Details) > maxTaskText:
			return fmt.Sprintf("details is more than %d characters", maxTaskText), "/details"
		case runeLen(c.Output) > maxTaskText:
			return fmt.Sprintf("output is more than %d characters", maxTaskText), "/output"
		}
		for j, s := range c.Sources {
			if s.Type != "url" || s.URL == "" || s.Text == "" {
				return "a source needs type url, a url and a text", fmt.Sprintf("/sources/%d", j)
			}
		}
	case "plan_update":
		if c.Title == "" {
			return "plan_update needs a title", "/title"
		}
	case "blocks":
		var blocks []json.RawMessage
		if json.Unmarshal(c.Blocks, &blocks) != nil || len(blocks) == 0 || len(blocks) > maxChunkBlocks {
			return fmt.Sprintf("blocks must be an array of 1 to %d blocks", maxChunkBlocks), "/blocks"
		}
		if problems := validateBlocks(c.Blocks); len(problems) > 0 {
			return problems[0], "/blocks"
		}
	case "":
		return "a chunk needs a type", "/type"
	default:
		return fmt.Sprintf("unknown chunk type %q", c.Type), "/type"
	}
	return "", ""
}

func badChunk(why, pointer string) reply {
	if pointer != "" {
		why += " [json-pointer:" + pointer + "]"
	}
	return invalid("invalid_chunks", []string{why})
}

// apply adds what a streaming call sent to m: text at the end, each task
// updated in place or added after the others, the plan's new title.
func (st streamed) apply(m *Message) {
	m.Text += st.text
	if st.plan != "" {
		m.Plan = st.plan
	}
	if len(st.tasks) == 0 {
		return
	}
	// A new slice: copies of m handed out earlier keep theirs.
	tasks := append([]Task(nil), m.Tasks...)
	for _, t := range st.tasks {
		found := false
		for i := range tasks {
			if tasks[i].ID == t.ID {
				tasks[i], found = t, true
				break
			}
		}
		if !found {
			tasks = append(tasks, t)
		}
	}
	m.Tasks = tasks
}

// empty reports a call that sent nothing.
func (st streamed) empty() bool {
	return st.text == "" && len(st.tasks) == 0 && st.plan == "" && len(st.blocks) == 0
}
