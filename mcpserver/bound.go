package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCP_MAX_BYTES bounds a tool's whole result as the client receives it:
// its content and its structured content together. A tool with structured
// output and no content of its own is sent its JSON twice, since the SDK
// (go-sdk v1.8.0, toolForErr) adds the JSON as a text block for clients
// that read only content, as the specification advises. bounded sets that
// block itself and measures the two together.

// cutter is a tool's structured result that can leave out part of what it
// lists to fit MCP_MAX_BYTES, saying so in itself.
type cutter interface {
	// cut leaves out about half of its largest list and records it;
	// false when it has nothing left to leave out.
	cut() bool
}

// resultTypeRoom is the resultType the SDK adds to a result for a client
// of a newer protocol (`,"resultType":"complete"`), with the server's
// Implementation in _meta (SEP-2575): sentSize counts both.
const resultTypeRoom = len(`,"resultType":"complete"`)

// bounded wraps a tool's handler so that its result, as sent, stays within
// MCP_MAX_BYTES: its structured result cuts its lists (cutter) until it
// fits, and a result that cannot fit is a tool error that says so.
func bounded[In, Out any](s *Server, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			return res, out, err
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		// Content the tool set is its own; otherwise the JSON goes as text.
		ownContent := res.Content != nil
		for {
			size, err := sentSize(res, out, ownContent)
			if err != nil {
				return nil, out, fmt.Errorf("measure the %s result: %w", req.Params.Name, err)
			}
			if size <= s.cfg.MaxBytes {
				return res, out, nil
			}
			c, ok := any(&out).(cutter)
			if !ok || !c.cut() {
				var zero Out
				return nil, zero, tell("the result has %d bytes, more than this server returns in one call (MCP_MAX_BYTES=%d), "+
					"even with what it lists left out", size, s.cfg.MaxBytes)
			}
		}
	}
}

// sentSize is the size of res as the client receives it with out as its
// structured content (none when out is a nil any), the SDK's annotations
// included, setting res's content to out's JSON unless the tool set
// content of its own.
func sentSize[Out any](res *mcp.CallToolResult, out Out, ownContent bool) (int, error) {
	wire := *res
	if _, ok := res.Meta[mcp.MetaKeyServerInfo]; !ok {
		wire.Meta = maps.Clone(res.Meta)
		if wire.Meta == nil {
			wire.Meta = mcp.Meta{}
		}
		wire.Meta[mcp.MetaKeyServerInfo] = implementation
	}
	if any(out) != nil {
		structured, err := json.Marshal(out)
		if err != nil {
			return 0, err
		}
		wire.StructuredContent = json.RawMessage(structured)
		if !ownContent {
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(structured)}}
			wire.Content = res.Content
		}
	}
	b, err := json.Marshal(&wire)
	if err != nil {
		return 0, err
	}
	return len(b) + resultTypeRoom, nil
}

// halve leaves out the second half of *list (at least one item), adding
// how many to leftOut[name] and setting *truncated; false when the list is
// empty.
func halve[T any](list *[]T, name string, leftOut *map[string]int, truncated *bool) bool {
	n := len(*list)
	if n == 0 {
		return false
	}
	if *leftOut == nil {
		*leftOut = map[string]int{}
	}
	(*leftOut)[name] += n - n/2
	*list = (*list)[:n/2]
	*truncated = true
	return true
}

// jsonSize is the size of v's JSON, 0 when it has none.
func jsonSize(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}
