package llm

import (
	"encoding/json"
	"errors"
	"strings"
)

// ErrNoJSON means a model reply held no JSON object.
var ErrNoJSON = errors.New("no JSON object in the reply")

// DecodeJSON reads the first JSON object in a model reply into v. Models
// wrap JSON in prose or code fences, so the outermost braces are taken.
func DecodeJSON(reply string, v any) error {
	start := strings.Index(reply, "{")
	end := strings.LastIndex(reply, "}")
	if start < 0 || end < start {
		return ErrNoJSON
	}
	return json.Unmarshal([]byte(reply[start:end+1]), v)
}
