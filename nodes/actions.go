package nodes

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/answer"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// ExportCSV answers with the CSV of an earlier result of the thread: the
// one the button names, or the latest. No model call: the cached rows are
// used, and on a cache miss the stored query is run again.
func (n *Nodes) ExportCSV(ctx context.Context, s *State) error {
	ctx = audienceCtx(ctx, s)
	cached, ok := n.findResult(ctx, s)
	if !ok {
		return nil
	}
	// The cached rows go on s only when they are the presser's to take
	// (below): another person's are never there, even on a refusal.
	s.Query, s.QueryID = cached.Query, cached.QueryID
	s.CSVTitle = cached.Question
	if s.CSVTitle == "" {
		s.CSVTitle = "Query " + cached.QueryID
	}
	s.CSVFilename = slug(cached.Question) + "-" + cached.QueryID + ".csv"
	// Cached rows are handed over only while the presser's policy lets
	// them read the query: the access file may have changed since it ran.
	if !n.mayTake(ctx, s, cached.Query) {
		return nil
	}

	rows, limited := cached.Result.RowCount, ""
	if cached.Result.Truncated || cached.RunFor != runFor(ctx, s) {
		// The answer showed what fit under its caps; the file gets every
		// row, streamed. Rows run for anyone else (another person in a
		// shared thread, or the presser under another policy or in
		// another channel) are run again for the presser: the database
		// may scope rows by who asks (row-level security, a policy's
		// role), so they are not the presser's to take.
		st, ok := n.exportFull(ctx, s, cached.Query)
		if !ok {
			return nil
		}
		rows = st.Rows
		if s.CSVNote = exportNote(st); s.CSVNote != "" {
			limited = " " + s.CSVNote
		}
	} else {
		s.Result = cached.Result
		var b bytes.Buffer
		// Writes to a bytes.Buffer do not fail; the file may still be cut
		// at its limit of bytes.
		st, _ := warehouse.ExportResult(&b, cached.Result, n.exportMaxBytes(ctx))
		s.CSVContent = b.Bytes()
		if st.Full {
			rows, s.CSVNote = st.Rows, exportNote(st)
			limited = " " + s.CSVNote
		}
	}
	s.CSVRows = rows
	text := fmt.Sprintf("Here is the CSV of “%s”: %s.", s.CSVTitle, answer.Plural(rows, "row", "rows")) + limited
	s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindNotice, Text: answer.Plain(text), QueryID: s.QueryID})
	return nil
}

// exportNote is what a CSV's message says of a file cut short (at
// EXPORT_MAX_ROWS, EXPORT_MAX_BYTES, or Cube's own query limit): how many
// rows it kept, of how many when the backend counted them; "" for a whole
// one. Export CSV and a CSV schedule's run say it in these words.
func exportNote(st warehouse.ExportStats) string {
	switch {
	case st.Full:
		return "The export was limited to " + answer.Plural(st.Rows, "row", "rows") + ": the rest did not fit in the file's size limit."
	case st.Truncated && st.Total > st.Rows:
		// The backend counted the query's rows (Cube asked within its own
		// query limit): say how many of how many.
		return "The export was limited to " + answer.Thousands(strconv.Itoa(st.Rows)) + " of the query's " + answer.Plural(st.Total, "row", "rows") + "."
	case st.Truncated:
		return "The export was limited to " + answer.Plural(st.Rows, "row", "rows") + "."
	}
	return ""
}

// mayRead reports whether the presser's access policy lets them see q
// (Show SQL names tables and columns): with an access file, q is checked
// as new under their policy, and refused with access_denied when it
// reaches outside it; one written for another backend (BACKEND changed
// since) cannot be checked, and is refused as such. Without an access
// file, everyone may.
func (n *Nodes) mayRead(ctx context.Context, s *State, q warehouse.Query) bool {
	return n.underPolicy(ctx, s, q, func(err error) bool { return warehouse.KindOf(err) == warehouse.Forbidden })
}

// mayTake reports whether the presser may take q's cached rows. Stricter
// than mayRead: any refusal of q as new counts (a column their policy has
// masked since the query ran would come back to them in the rows), and so
// does a check that cannot be made (the catalog unreadable).
func (n *Nodes) mayTake(ctx context.Context, s *State, q warehouse.Query) bool {
	return n.underPolicy(ctx, s, q, func(err error) bool { return err != nil })
}

// underPolicy checks q under the presser's policy, when there is one, and
// records on s the failure refuses says stops them.
func (n *Nodes) underPolicy(ctx context.Context, s *State, q warehouse.Query, refuses func(error) bool) bool {
	if warehouse.CallerOf(ctx).Access == nil {
		return true
	}
	if !n.ours(s, q) {
		return false
	}
	if err := warehouse.Permits(ctx, n.Warehouse, q.Text); refuses(err) {
		dataFailure(s, err)
		return false
	}
	return true
}

// exportBytesKey carries a caller's lower limit of an export's bytes.
type exportBytesKey struct{}

// WithExportMaxBytes has an export run with ctx stop at max bytes when
// that is below ExportMaxBytes (an MCP call, which returns the file in
// its reply, at MCP_MAX_BYTES).
func WithExportMaxBytes(ctx context.Context, max int64) context.Context {
	return context.WithValue(ctx, exportBytesKey{}, max)
}

// exportMaxBytes is the byte limit of an export run with ctx.
func (n *Nodes) exportMaxBytes(ctx context.Context) int64 {
	if max, ok := ctx.Value(exportBytesKey{}).(int64); ok && max > 0 && max < n.ExportMaxBytes {
		return max
	}
	return n.ExportMaxBytes
}

// exportFull runs the stored query again, checked as new, and streams up to
// ExportMaxRows rows, within ExportMaxBytes, into a temporary file in
// ExportDir (s.CSVFile). It records failures on s.
func (n *Nodes) exportFull(ctx context.Context, s *State, q warehouse.Query) (warehouse.ExportStats, bool) {
	if !n.ours(s, q) {
		return warehouse.ExportStats{}, false
	}
	f, err := os.CreateTemp(n.ExportDir, "analyticsbot-export-*.csv")
	if err != nil {
		return warehouse.ExportStats{}, n.exportFailed(s, nil, fmt.Errorf("create the export file: %w", err))
	}
	start := time.Now()
	w := bufio.NewWriterSize(f, 256<<10)
	st, err := n.Warehouse.Export(ctx, q, w, warehouse.ExportLimit{Rows: n.ExportMaxRows, Bytes: n.exportMaxBytes(ctx)})
	s.DBTime += time.Since(start)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return st, n.exportFailed(s, f, err)
	}
	s.CSVFile = f.Name()
	return st, true
}

// exportFailed removes a half-written export file and records err on s.
func (n *Nodes) exportFailed(s *State, f *os.File, err error) bool {
	if f != nil {
		_ = os.Remove(f.Name())
	}
	dataFailure(s, err)
	return false
}

// ShowSQL answers with the query of an earlier answer: the one the button
// names, one the message describes by keyword, or the latest. No model call.
func (n *Nodes) ShowSQL(ctx context.Context, s *State) error {
	ctx = audienceCtx(ctx, s)
	turn, ok := n.referredAnswer(ctx, s, lookup{cached: true, keywords: sqlKeywords(s.UserQuery), none: "no query"})
	if !ok {
		return nil
	}
	s.Query, s.QueryID = turn.Query, turn.QueryID
	if s.QueryID == "" {
		s.QueryID = warehouse.IDOf(n.Warehouse, turn.Query)
	}
	if !n.mayRead(ctx, s, turn.Query) {
		return nil
	}
	var shown warehouse.Shown
	if turn.Query.Backend == n.Warehouse.Name() {
		shown = n.Warehouse.Show(ctx, turn.Query)
	} else {
		// Written for a backend the bot no longer answers from: shown as
		// it is, without asking the backend.
		shown = warehouse.Shown{Language: "query", Text: turn.Query.Text}
	}
	title := capitalize(shown.Language) + " for this answer"
	if q := strings.TrimSpace(turn.UserMessage); q != "" {
		title = capitalize(shown.Language) + " for: " + q
	}
	s.SetReply(FormatSimple, &answer.Answer{Kind: answer.KindQuery, QueryID: s.QueryID, Question: turn.UserMessage, Query: &shown,
		Text: answer.Plain(title)})
	return nil
}

// findResult loads the result an export refers to, running its stored
// query again for the presser when the cache no longer has it. It records
// failures on s.
func (n *Nodes) findResult(ctx context.Context, s *State) (store.CachedResult, bool) {
	var (
		cached store.CachedResult
		err    error
	)
	if s.ReferencedQueryID != "" {
		cached, err = n.Cache.Get(ctx, s.ThreadTS, s.ReferencedQueryID)
	} else {
		cached, err = n.Cache.Latest(ctx, s.ThreadTS)
	}
	if err == nil {
		return cached, true
	}
	if !errors.Is(err, store.ErrNotFound) {
		n.Logger.WarnContext(ctx, "read cached result", "thread", s.ThreadTS, "err", err)
	}
	turn, ok := n.referredAnswer(ctx, s, lookup{none: "no result"})
	if !ok {
		return cached, false
	}
	// Run for the presser, whoever asked: the result says so (RunFor), and
	// its asker's next press runs it again for them.
	return n.rerun(ctx, s, turn)
}

// rerun executes a stored turn's query again, checking it as if it were
// new: the stored text is data from the database, not trusted code.
func (n *Nodes) rerun(ctx context.Context, s *State, turn store.Turn) (store.CachedResult, bool) {
	if !n.ours(s, turn.Query) {
		return store.CachedResult{}, false
	}
	r, err := n.Warehouse.Check(ctx, turn.Query.Text, n.MaxRows)
	if err != nil {
		dataFailure(s, err)
		return store.CachedResult{}, false
	}
	// The question the query answers, resolved ("How many … in 2017?"),
	// not only what was typed ("And in 2017?").
	c, err := n.runAndCache(ctx, s, r, cmp.Or(turn.Question, turn.UserMessage))
	if err != nil {
		dataFailure(s, err)
		return store.CachedResult{}, false
	}
	return c, true
}

// ours reports whether the stored query q was written for the backend the
// bot answers from now; one written for another (BACKEND changed since the
// answer) is recorded on s as a query that no longer runs.
func (n *Nodes) ours(s *State, q warehouse.Query) bool {
	if q.Backend == n.Warehouse.Name() {
		return true
	}
	s.fail(ErrInvalidQuery, fmt.Sprintf(otherBackendDetail+"%q backend; this bot answers from %q",
		q.Backend, n.Warehouse.Name()))
	return false
}

// otherBackendDetail begins the detail of a stored query refused for being
// written for another backend, which errorText tells apart from a query
// the tables no longer fit.
const otherBackendDetail = "the stored query was written for the "

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a short file-name stem from a question.
func slug(q string) string {
	s := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(q), "-"), "-")
	if len(s) > 50 {
		s = strings.TrimRight(s[:50], "-")
	}
	if s == "" {
		return "query"
	}
	return s
}

// sqlStopWords are the words of a show-SQL request that say nothing about
// which query is meant.
var sqlStopWords = map[string]bool{
	"show": true, "me": true, "the": true, "sql": true, "query": true, "queries": true, "for": true,
	"what": true, "was": true, "statement": true, "see": true, "used": true, "that": true, "this": true,
	"of": true, "a": true, "an": true, "please": true, "behind": true, "to": true, "get": true, "give": true,
	"which": true, "is": true, "it": true, "in": true, "you": true, "did": true, "run": true, "can": true,
	"i": true, "about": true, "with": true, "on": true, "last": true, "one": true, "and": true, "answer": true,
}

var wordPattern = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// sqlKeywords extracts the words that describe which query a show-SQL
// request means: "show the SQL for the revenue query" → [revenue].
func sqlKeywords(msg string) []string {
	var kw []string
	for _, w := range wordPattern.FindAllString(strings.ToLower(msg), -1) {
		if len(w) >= 3 && !sqlStopWords[w] {
			kw = append(kw, w)
		}
	}
	return kw
}
