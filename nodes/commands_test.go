package nodes

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKeywordIntent holds the fast path to a button's own words: a message
// that is the command and nothing else takes the button, a question that
// merely uses its words goes to the classifier (no intent here).
func TestKeywordIntent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  string
		want Intent // "": the classifier decides
	}{
		// Export CSV's commands.
		{name: "export", msg: "export", want: IntentExportCSV},
		{name: "export with punctuation", msg: "Export!", want: IntentExportCSV},
		{name: "export csv", msg: "export csv", want: IntentExportCSV},
		{name: "export that", msg: "export that", want: IntentExportCSV},
		{name: "export as csv", msg: "export as csv", want: IntentExportCSV},
		{name: "export the results as csv", msg: "export the results as csv", want: IntentExportCSV},
		{name: "export the whole table to a spreadsheet", msg: "Export the whole table to a spreadsheet, please.", want: IntentExportCSV},
		{name: "csv", msg: "CSV", want: IntentExportCSV},
		{name: "csv please", msg: "csv please", want: IntentExportCSV},
		{name: "csv of that", msg: "csv of that?", want: IntentExportCSV},
		{name: "download", msg: "download", want: IntentExportCSV},
		{name: "download the csv", msg: "download the csv", want: IntentExportCSV},
		{name: "download the data", msg: "Download the data", want: IntentExportCSV},
		{name: "can I download that as a CSV", msg: "can I download that as a CSV?", want: IntentExportCSV},
		{name: "could you give me that as a csv", msg: "Could you give me that as a CSV file, thanks", want: IntentExportCSV},
		{name: "save as csv", msg: "save as csv", want: IntentExportCSV},
		{name: "get the file", msg: "get the file", want: IntentExportCSV},
		{name: "send me a csv of the results", msg: "send me a csv of the results", want: IntentExportCSV},
		{name: "export this", msg: "export this", want: IntentExportCSV},
		{name: "can I get it as CSV", msg: "Can I get it as CSV?", want: IntentExportCSV},
		{name: "download it please", msg: "Download it please", want: IntentExportCSV},
		{name: "can I download the results", msg: "can I download the results?", want: IntentExportCSV},
		{name: "save as a file please", msg: "save as a file please", want: IntentExportCSV},
		{name: "get file", msg: "get file", want: IntentExportCSV},

		// Show SQL's commands.
		{name: "show sql", msg: "show sql", want: IntentShowSQL},
		{name: "show me the sql", msg: "Show me the SQL", want: IntentShowSQL},
		{name: "show the SQL", msg: "show the SQL", want: IntentShowSQL},
		{name: "show me the query", msg: "show me the query", want: IntentShowSQL},
		{name: "sql", msg: "SQL?", want: IntentShowSQL},
		{name: "the sql", msg: "the sql", want: IntentShowSQL},
		{name: "SQL for the last answer", msg: "SQL for the last answer", want: IntentShowSQL},
		{name: "what sql did you use", msg: "What SQL did you use?", want: IntentShowSQL},
		{name: "what's the query", msg: "What’s the query?", want: IntentShowSQL},
		{name: "which query was that", msg: "which query was that", want: IntentShowSQL},
		{name: "can I see the query for that", msg: "can I see the query for that?", want: IntentShowSQL},
		{name: "show the SQL for a named answer", msg: "Show the SQL for the publishers query", want: IntentShowSQL},
		{name: "what sql did you run", msg: "what sql did you run?", want: IntentShowSQL},
		{name: "which sql query was that", msg: "which sql query was that", want: IntentShowSQL},
		{name: "the sql statement please", msg: "the sql statement please", want: IntentShowSQL},
		{name: "what query did you use", msg: "what query did you use", want: IntentShowSQL},
		{name: "let me see the query", msg: "let me see the query", want: IntentShowSQL},

		// Questions that use a command's words: the classifier's.
		{name: "the issue's question", msg: "Which publishers export the most games in 2018?"},
		{name: "countries export coffee", msg: "Which countries export coffee?"},
		{name: "exports per year", msg: "How many games did we export per year?"},
		{name: "export as a subject", msg: "export volumes by country in 2018"},
		{name: "export data for a year", msg: "export data for 2018"},
		{name: "games with csv in the name", msg: "games with csv in their name"},
		{name: "downloadable games", msg: "games I can download for free"},
		{name: "download counts", msg: "download counts of the top 10 games"},
		{name: "sql in the data", msg: "How many SQL jobs were posted in Berlin?"},
		{name: "query as a verb", msg: "query the top publishers by revenue"},
		{name: "a query language question", msg: "What query language do you use?"},
		{name: "show me the query for a subject", msg: "show me the query for games released in 2018"},
		{name: "save alone is Save's, not an export", msg: "save"},
		{name: "a question with download", msg: "How many games can I download for free?"},
		{name: "exported achievements", msg: "which games have exported achievements"},
		{name: "a plain question", msg: "How many games were released in 2018?"},
		{name: "give me the data", msg: "give me the data"},
		{name: "empty", msg: ""},
		{name: "punctuation", msg: "?!"},
		{name: "long", msg: "export " + strings.Repeat("that ", 60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := keywordIntent(tt.msg)
			assert.Equal(t, tt.want, got, "intent of %q", tt.msg)
			assert.Equal(t, tt.want != "", ok, "fast path taken for %q", tt.msg)
		})
	}
}
