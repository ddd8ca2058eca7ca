package answer

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPreview(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply string
		want  string
	}{
		{name: "JSON", reply: `{"answer": "*8160* games were released in 2018."}`, want: "*8160* games were released in 2018."},
		{name: "JSON without spaces", reply: `{"answer":"Yes."}`, want: "Yes."},
		{name: "JSON after whitespace", reply: "\n  {\n  \"answer\" : \"Yes.\"\n}\n", want: "Yes."},
		{name: "escapes", reply: `{"answer": "a \"quoted\" word\nand a \\ back\tslash \/"}`, want: "a \"quoted\" word\nand a \\ back\tslash /"},
		{name: "unicode escapes", reply: `{"answer": "caf\u00e9 \u2014 \ud83c\udfae"}`, want: "café — 🎮"},
		{name: "a lone surrogate", reply: `{"answer": "x\ud83c y"}`, want: "x\uFFFD y"},
		{name: "malformed unicode escape dropped", reply: `{"answer": "a\uzzzzb"}`, want: "ab"},
		{name: "raw UTF-8", reply: `{"answer": "über 🎮 naïve"}`, want: "über 🎮 naïve"},
		{name: "other keys first", reply: `{"note": "n", "answer": "It is 5."}`, want: "It is 5."},
		{name: "text after the answer is dropped", reply: `{"answer": "One.", "extra": "two"}`, want: "One."},
		{name: "code fence", reply: "```json\n{\"answer\": \"Fenced.\"}\n```", want: "Fenced."},
		{name: "plain text", reply: "*8160* games were released in 2018.", want: "*8160* games were released in 2018."},
		{name: "plain text with code", reply: "`x` is 5", want: "`x` is 5"},
		{name: "plain text after whitespace", reply: "  \nHello there", want: "Hello there"},
		{name: "JSON without an answer", reply: `{"text": "nope"}`, want: ""},
		{name: "empty", reply: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var whole Preview
			assert.Equal(t, tt.want, whole.Feed(tt.reply), "the reply in one chunk")

			// Every cut: byte by byte, through escapes and multi-byte characters.
			var bytewise Preview
			var got strings.Builder
			for i := 0; i < len(tt.reply); i++ {
				got.WriteString(bytewise.Feed(tt.reply[i : i+1]))
			}
			assert.Equal(t, tt.want, got.String(), "the reply byte by byte")

			// Word-sized chunks, as the scripted model streams.
			var wordwise Preview
			got.Reset()
			for _, w := range strings.SplitAfter(tt.reply, " ") {
				got.WriteString(wordwise.Feed(w))
			}
			assert.Equal(t, tt.want, got.String(), "the reply word by word")
		})
	}
}

func TestPreviewNeverEmitsBrokenCharacters(t *testing.T) {
	t.Parallel()
	var a Preview
	reply := "🎮 plain"
	for i := 0; i < len(reply); i++ {
		out := a.Feed(reply[i : i+1])
		assert.True(t, out == "" || strings.ToValidUTF8(out, "") == out, "chunk %d gave %q", i, out)
	}
}
