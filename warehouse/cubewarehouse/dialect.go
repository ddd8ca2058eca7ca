package cubewarehouse

import (
	_ "embed"
	"encoding/json"

	"github.com/analyticsbot/analyticsbot/cube"
	"github.com/analyticsbot/analyticsbot/llm"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// prompt is the Cube query generator's prompt, rendered by package prompts.
//
//go:embed prompt.tmpl
var prompt string

// Dialect implements warehouse.Backend.
func (b *Backend) Dialect() warehouse.Dialect {
	return warehouse.Dialect{
		Language:        "Cube query",
		Step:            string(llm.StepGenerateCube),
		Prompt:          prompt,
		Describe:        describe,
		Quoting:         warehouse.QuoteJSON,
		ColumnName:      memberName,
		Parse:           parseReply,
		MaxRows:         cube.MaxLimit,
		Writing:         "Writing the Cube query…",
		Checking:        "Checking the Cube query…",
		Source:          "the semantic layer (Cube)",
		Scope:           "the Cube data model",
		EmptyHint:       "Whoever runs this bot should check that the Cube model has public cubes for the bot's security context (CUBE_SECURITY_CONTEXT).",
		AuthHint:        "Whoever runs this bot should check that CUBE_API_SECRET matches the Cube server's.",
		DeniedHint:      "answered this question with an error of its own (its queryRewrite refused it, or its data model failed), so I have no answer. Whoever runs this bot can see why in the bot's log.",
		Fingerprint:     fingerprint,
		FingerprintForm: FingerprintForm,
		Tables:          tables,
	}
}

// memberName names a member as queries do: by its own name, which holds
// its cube's ("Publishers.name").
func memberName(c warehouse.ColumnRef) string { return c.Column }

// cubeReply is the generator's reply.
type cubeReply struct {
	Query       json.RawMessage `json:"query"`
	Assumptions []string        `json:"assumptions"`
	Reasoning   string          `json:"reasoning"`
}

// parseReply reads the generator's reply: JSON whose "query" is the Cube
// query. Assumptions and reasoning are kept even without a query.
func parseReply(reply string) (warehouse.Generated, bool) {
	var r cubeReply
	err := llm.DecodeJSON(reply, &r)
	g := warehouse.Generated{Assumptions: r.Assumptions, Explanation: r.Reasoning}
	if err != nil || len(r.Query) == 0 || string(r.Query) == "null" {
		return g, false
	}
	g.Text = string(r.Query)
	return g, true
}
