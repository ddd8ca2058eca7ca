package answer

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ExportAction is the id of the action that exports an answer's result as
// CSV.
const ExportAction = "export_csv"

// Status is the answer's one line of facts: how many rows, whether the
// result was cut and what Export CSV then gives, how long answering took
// and where the data came from: "10 rows · in 67 ms · via sql"; for a
// result that did not run now, when it did ("data as of 2024-03-05 14:02
// UTC": with its date, since a stored reply is read again days later and
// RESULT_FRESHNESS may span midnight). Empty when there is nothing to say.
func (a *Answer) Status() string {
	var meta []string
	if r := a.Result; r != nil {
		switch {
		case r.Truncated && r.LimitedBy == warehouse.LimitBytes:
			meta = append(meta, "result cut to "+Plural(a.Rows(), "row", "rows")+" (size limit)"+a.exportsAll())
		case r.Truncated:
			meta = append(meta, "result limited to "+Plural(a.Rows(), "row", "rows")+a.exportsAll())
		case a.Rows() == 0:
			meta = append(meta, "no rows")
		default:
			meta = append(meta, Plural(a.Rows(), "row", "rows"))
		}
	}
	if !a.DataAsOf.IsZero() {
		meta = append(meta, "data as of "+a.DataAsOf.UTC().Format("2006-01-02 15:04")+" UTC")
	}
	if e := FormatElapsed(a.Elapsed); e != "" {
		meta = append(meta, "in "+e)
	}
	if b := strings.TrimSpace(a.Backend); b != "" {
		meta = append(meta, "via "+b)
	}
	return strings.Join(meta, " · ")
}

// exportsAll says, for a cut result with an Export CSV action, that the
// export has every row (it runs the query again).
func (a *Answer) exportsAll() string {
	if a.QueryID == "" {
		return ""
	}
	for _, b := range a.Actions {
		if b.ID == ExportAction {
			return "; Export CSV has every row"
		}
	}
	return ""
}

// FormatElapsed renders a duration the way people read it: "340 ms", "1.2 s",
// "2 min 5 s". Zero or negative durations render as "".
func FormatElapsed(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Millisecond:
		return "<1 ms"
	case d < time.Second:
		return strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10) + " ms"
	case d < time.Minute:
		return strconv.FormatFloat(math.Round(d.Seconds()*10)/10, 'f', 1, 64) + " s"
	default:
		d = d.Round(time.Second)
		return strconv.Itoa(int(d/time.Minute)) + " min " + strconv.Itoa(int(d%time.Minute/time.Second)) + " s"
	}
}

// VerifiedBadge is the line that marks a verified query, "✓ Verified query
// (by …)", with who verified it as mention(by) writes it (a surface may
// turn a Slack user ID into a mention).
func VerifiedBadge(by string, mention func(string) string) string {
	switch by {
	case "file":
		by = "the examples file"
	default:
		by = mention(by)
	}
	return "✓ Verified query (by " + by + ")"
}
