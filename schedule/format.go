package schedule

import "regexp"

// Format is what each run sends.
type Format string

// The formats.
const (
	// FormatAnswer sends the answer as the bot first gave it: text, table
	// and chart.
	FormatAnswer Format = "answer"
	// FormatCSV sends the rows as a CSV file with a one-line summary.
	FormatCSV Format = "csv"
)

var (
	csvRe    = regexp.MustCompile(`\b(?:(?:as|in|via|with|attach|attaching|include|including)\s+(?:an?\s+|the\s+)?)?(?:csv|spreadsheet)(?:\s+files?|\s+attachments?)?\b|\b(?:as|in)\s+an?\s+(?:file|attachment)\b|\b(?:attach|attached)\s+(?:the\s+|a\s+)?(?:file|rows)\b`)
	answerRe = regexp.MustCompile(`\b(?:as|with|in|including|include|plus)\s+(?:an?\s+|the\s+)?(?:full\s+)?(?:chart|graph|table|answer|plot)s?\b`)
)

// readFormat takes the format words out of m. unclear is set when the words
// ask for both formats.
func readFormat(m *message) (f Format, unclear string) {
	isCSV := m.take(csvRe) != nil
	isAnswer := m.take(answerRe) != nil
	switch {
	case isCSV && isAnswer:
		return "", "I couldn't tell whether you want a CSV file or the answer with its table and chart: say one (“as CSV” or “as a chart”)."
	case isCSV:
		return FormatCSV, ""
	case isAnswer:
		return FormatAnswer, ""
	}
	return "", ""
}
