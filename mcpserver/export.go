package mcpserver

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// csvResource is an export's CSV as an embedded text/csv resource. The
// file already stops at MCP_MAX_BYTES, but it travels as a JSON string,
// its quotes and line ends escaped, so the result can be larger: then it
// is cut again at the last whole row that fits as sent, and its text says
// so. Only a result whose header alone does not fit is an error.
func (s *Server) csvResource(t turn, queryID string) (*mcp.CallToolResult, error) {
	r, size, err := t.csv()
	if err != nil {
		return nil, fmt.Errorf("read the export: %w", err)
	}
	defer r.Close()
	if size > int64(s.cfg.MaxBytes) {
		return nil, tell("the export has %d bytes, more than this server returns in one call (MCP_MAX_BYTES=%d): "+
			"ask for fewer rows or columns", size, s.cfg.MaxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(s.cfg.MaxBytes)+1))
	if err != nil {
		return nil, fmt.Errorf("read the export: %w", err)
	}
	text := "The result as CSV."
	if t.reply != nil {
		text = t.reply.Plain()
	}
	uri := fmt.Sprintf("analyticsbot://export/%s/%s.csv", t.thread, queryID)
	result := func(text string, data []byte) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: text},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: "text/csv", Text: string(data)}},
		}}
	}
	res := result(text, data)
	sent, err := sentSize[any](res, nil, true)
	if err != nil {
		return nil, fmt.Errorf("measure the export: %w", err)
	}
	if sent <= s.cfg.MaxBytes {
		return res, nil
	}
	// Everything but the CSV takes the same room whatever the CSV holds,
	// a note of the cut aside, which is measured with it.
	rows, kept := wholeRows(data)
	note := fmt.Sprintf(" To fit in one reply (MCP_MAX_BYTES=%d), this file holds only its first %%d of those rows.", s.cfg.MaxBytes)
	room := s.cfg.MaxBytes - (sent - jsonStringSize(data)) - len(fmt.Sprintf(note, rows))
	// The header is the first of the records kept; the result is
	// measured as sent before it goes.
	for n := fitting(data, kept, room); n > 0; n-- {
		res := result(text+fmt.Sprintf(note, n-1), data[:kept[n-1]])
		got, err := sentSize[any](res, nil, true)
		if err != nil {
			return nil, fmt.Errorf("measure the export: %w", err)
		}
		if got <= s.cfg.MaxBytes {
			return res, nil
		}
	}
	return nil, tell("the export comes to %d bytes as sent (a CSV of %d bytes), more than this server returns in one call "+
		"(MCP_MAX_BYTES=%d), even with its header alone: ask for fewer columns", sent, size, s.cfg.MaxBytes)
}

// wholeRows returns how many data rows a CSV holds and the byte offset
// after each of its records (the header first), as encoding/csv reads
// them: a value may hold line ends inside its quotes.
func wholeRows(data []byte) (int, []int) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	var ends []int
	for {
		if _, err := r.Read(); err != nil {
			if !errors.Is(err, io.EOF) {
				ends = ends[:max(len(ends)-1, 0)] // a record cut inside: not whole
			}
			break
		}
		ends = append(ends, int(r.InputOffset()))
	}
	return max(len(ends)-1, 0), ends
}

// fitting returns how many of the records ending at ends fit in room bytes
// as a JSON string, at least the header: 0 when not even it does.
func fitting(data []byte, ends []int, room int) int {
	lo, hi := 0, len(ends) // ends[:lo] fit; ends[hi:] do not
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if jsonStringSize(data[:ends[mid-1]]) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// jsonStringSize is the size of b as a JSON string, as the result is sent.
func jsonStringSize(b []byte) int {
	var w strings.Builder
	_ = json.NewEncoder(&w).Encode(string(b)) // a string always encodes
	return w.Len() - 1                        // Encode's line end
}
