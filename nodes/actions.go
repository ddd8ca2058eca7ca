package nodes

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/analyticsbot/analyticsbot/blockkit"
	"github.com/analyticsbot/analyticsbot/sqlguard"
	"github.com/analyticsbot/analyticsbot/store"
)

// ExportCSV answers with the CSV of an earlier result of the thread: the
// one the button names, or the latest. No model call: the cached rows are
// used, and on a cache miss the stored SQL is run again.
func (n *Nodes) ExportCSV(ctx context.Context, s *State) error {
	cached, ok := n.findResult(ctx, s)
	if !ok {
		return nil
	}
	s.SQL, s.QueryID, s.Result = cached.SQL, cached.QueryID, cached.Result
	s.CSVTitle = cached.Question
	if s.CSVTitle == "" {
		s.CSVTitle = "Query " + cached.QueryID
	}
	s.CSVFilename = slug(cached.Question) + "-" + cached.QueryID + ".csv"

	rows, limited := cached.Result.RowCount, ""
	switch {
	case cached.Result.Truncated && !isCubeQuery(cached.SQL):
		// The answer showed what fit under MAX_ROWS / MAX_RESULT_BYTES; the
		// file gets every row, streamed.
		st, ok := n.exportFull(ctx, s, cached.SQL)
		if !ok {
			return nil
		}
		rows = st.Rows
		if st.Truncated {
			limited = fmt.Sprintf(" The export was limited to %s.", plural(st.Rows, "row"))
		}
	default:
		// A complete result, or a Cube one (its limit is part of the query).
		s.CSVContent = cachedCSV(cached.Result)
		if cached.Result.Truncated {
			limited = fmt.Sprintf(" The result was limited to %s.", plural(rows, "row"))
		}
	}
	text := fmt.Sprintf("Here is the CSV of “%s”: %s.", s.CSVTitle, plural(rows, "row")) + limited
	msg := blockkit.Notice(text, nil)
	s.ResponseFormat, s.ResponseText, s.Blocks = FormatSimple, msg.Text, msg.Blocks
	return nil
}

// cachedCSV renders a cached result as CSV.
func cachedCSV(r store.Result) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	header := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		header[i] = c.Name
	}
	_ = w.Write(header) // writes to a bytes.Buffer do not fail
	record := make([]string, len(header))
	for _, row := range r.Rows {
		for i, v := range row {
			record[i] = csvCell(v)
		}
		_ = w.Write(record)
	}
	w.Flush()
	return b.Bytes()
}

// exportFull runs the stored SQL again, checked as new, and streams up to
// ExportMaxRows rows into a temporary file (s.CSVFile). It records
// failures on s.
func (n *Nodes) exportFull(ctx context.Context, s *State, sql string) (store.ExportStats, bool) {
	_, names, err := n.tables(ctx)
	if err != nil {
		dbFailure(s, err)
		return store.ExportStats{}, false
	}
	runSQL, err := sqlguard.Guard(sql, GuardPolicy([]string{n.Schema}, names, n.ExportMaxRows))
	if err != nil {
		s.fail(ErrUnsafeSQL, "stored SQL rejected: "+err.Error())
		return store.ExportStats{}, false
	}
	f, err := os.CreateTemp("", "analyticsbot-export-*.csv")
	if err != nil {
		return store.ExportStats{}, n.exportFailed(s, nil, fmt.Errorf("create the export file: %w", err))
	}
	start := time.Now()
	w := bufio.NewWriterSize(f, 256<<10)
	st, err := n.Exec.ExportCSV(ctx, runSQL, w, n.ExportMaxRows)
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
	dbFailure(s, err)
	return false
}

// ShowSQL answers with the SQL of an earlier answer: the one the button
// names, one the message describes by keyword, or the latest. No model call.
func (n *Nodes) ShowSQL(ctx context.Context, s *State) error {
	var (
		turn store.Turn
		err  error
	)
	switch kw := sqlKeywords(s.UserQuery); {
	case s.ReferencedQueryID != "":
		// The cache holds the resolved question ("How many … in 2017?"),
		// the turn only what was typed ("And in 2017?").
		var c store.CachedResult
		if c, err = n.Cache.Get(ctx, s.ThreadTS, s.ReferencedQueryID); err == nil {
			turn = store.Turn{SQL: c.SQL, QueryID: c.QueryID, UserMessage: c.Question}
		} else {
			turn, err = n.DB.TurnByQueryID(ctx, s.ThreadTS, s.ReferencedQueryID)
		}
	case len(kw) > 0:
		turn, err = n.DB.FindSQLByKeyword(ctx, s.ThreadTS, kw)
		if errors.Is(err, store.ErrNotFound) {
			turn, err = n.DB.MostRecentSQL(ctx, s.ThreadTS)
		}
	default:
		turn, err = n.DB.MostRecentSQL(ctx, s.ThreadTS)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.fail(ErrNoPreviousQuery, "no SQL in thread "+s.ThreadTS)
		return nil
	case err != nil:
		dbFailure(s, err)
		return nil
	}
	s.SQL, s.QueryID = turn.SQL, turn.QueryID
	if s.QueryID == "" {
		s.QueryID = store.QueryID(turn.SQL)
	}
	msg := blockkit.SQL(s.QueryID, turn.SQL, turn.UserMessage)
	if isCubeQuery(turn.SQL) {
		query, sql := n.cubeSQL(ctx, turn.SQL)
		msg = blockkit.CubeQuery(s.QueryID, query, sql, turn.UserMessage)
	}
	s.ResponseFormat, s.ResponseText, s.Blocks = FormatSimple, msg.Text, msg.Blocks
	return nil
}

// findResult loads the result an export refers to, running its stored SQL
// again when the cache no longer has it. It records failures on s.
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
	var turn store.Turn
	if s.ReferencedQueryID != "" {
		turn, err = n.DB.TurnByQueryID(ctx, s.ThreadTS, s.ReferencedQueryID)
	} else {
		turn, err = n.DB.MostRecentSQL(ctx, s.ThreadTS)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.fail(ErrNoPreviousQuery, "no result in thread "+s.ThreadTS)
		return cached, false
	case err != nil:
		dbFailure(s, err)
		return cached, false
	}
	return n.rerun(ctx, s, turn)
}

// rerun executes a stored turn's SQL again, checking it as if it were new:
// the stored text is data from the database, not trusted code.
func (n *Nodes) rerun(ctx context.Context, s *State, turn store.Turn) (store.CachedResult, bool) {
	runSQL, err := n.checkStored(ctx, turn.SQL)
	if err != nil {
		var rej *sqlguard.Rejection
		if errors.As(err, &rej) {
			s.fail(ErrUnsafeSQL, "stored SQL rejected: "+err.Error())
		} else {
			dbFailure(s, err)
		}
		return store.CachedResult{}, false
	}
	c, err := n.runAndCache(ctx, s, turn.SQL, runSQL, turn.UserMessage)
	if err != nil {
		dbFailure(s, err)
		return store.CachedResult{}, false
	}
	return c, true
}

// checkStored returns the statement to run for a stored query: SQL through
// the guard, a Cube query normalised against Cube's meta.
func (n *Nodes) checkStored(ctx context.Context, query string) (string, error) {
	if !isCubeQuery(query) {
		_, names, err := n.tables(ctx)
		if err != nil {
			return "", err
		}
		return sqlguard.Guard(query, GuardPolicy([]string{n.Schema}, names, n.MaxRows))
	}
	if n.Cube == nil {
		return "", errNoCube
	}
	q, err := n.normalizeCube(ctx, query)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(q)
	return string(b), err
}

func csvCell(v any) string { return store.CSVCell(v) }

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

// plural writes a count with its noun: "1 row", "2 rows".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
