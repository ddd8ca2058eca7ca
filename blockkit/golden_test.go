package blockkit

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// wireMessage is what we post to chat.postMessage, minus the channel.
type wireMessage struct {
	Text   string        `json:"text"`
	Blocks []slack.Block `json:"blocks"`
}

func messageJSON(t testing.TB, m Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(wireMessage{Text: m.Text, Blocks: m.Blocks}))
	return buf.Bytes()
}

func goldenCases() []struct {
	name string
	msg  Message
} {
	return []struct {
		name string
		msg  Message
	}{
		{name: "single_number", msg: Render(singleNumberAnswer())},
		{name: "regions_table", msg: Render(regionsAnswer())},
		{name: "rows_150_data_table", msg: Render(manyRowsAnswer())},
		{name: "columns_25_monospace", msg: Render(wideAnswer())},
		{name: "long_answer_split", msg: Render(longAnswer())},
		{name: "error", msg: errorMessage()},
		{name: "decline_notice", msg: noticeMessage()},
		{name: "show_sql", msg: sqlMessage()},
		{name: "ask_back", msg: Reply(clarifyAnswer())},
	}
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := messageJSON(t, tc.msg)
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "missing golden file; run go test ./blockkit -update")
			require.Equal(t, string(want), string(got), "got JSON differs from %s; run with -update if the change is intended", path)
		})
	}
}
