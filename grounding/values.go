package grounding

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/store"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// Value index defaults.
const (
	// DefaultMaxDistinct is the most distinct values a column may have to
	// be indexed: 27,075 game names fit.
	DefaultMaxDistinct = 50_000
	// MaxValueLength is the longest value, in characters, the index keeps.
	// The lookup is for names, categories and codes (a game's title, a
	// publisher, a status); a longer value is text, a note or a
	// description, which a phrase inside it would match as well as a name
	// (word similarity 1: "Acme Rocket" in a 54,000-character note), which
	// would fill the prompt, and whose word stems PostgreSQL's stem index
	// may refuse (a btree row holds at most 2,704 bytes). A backend may
	// leave such values out of its read (warehouse.ColumnValues.Long).
	MaxValueLength = warehouse.MaxValueLength
	// minSimilarity is how alike a value must be to a phrase of the
	// question to be shown.
	minSimilarity = 0.5
	// valuesPerColumn bounds the values of a column the prompt shows;
	// lookupColumns the columns a lookup returns, of which Build keeps
	// ValueColumns, those of the tables it describes first.
	valuesPerColumn = 5
	lookupColumns   = 40
	// lookupTimeout bounds a lookup: answering never waits on it for long.
	lookupTimeout = 2 * time.Second
)

// ValueIndex keeps the distinct values of the backend's text columns in
// the bot's database (store's value_index, matched with pg_trgm), so that a
// question's "ubisoft" finds the stored 'Ubisoft', 'Ubisoft Entertainment'
// and 'Ubisoft®' before the query is written. Refresh reads the values
// through the backend (for Postgres, as the reader role); Lookup never
// waits for a refresh: before the first one it finds nothing.
type ValueIndex struct {
	DB      *store.DB
	Backend warehouse.Backend
	// MaxDistinct is the most distinct values a column may have to be
	// indexed (DefaultMaxDistinct when 0).
	MaxDistinct int
	// Domain describes the data ("Steam store games"): its words, like
	// the catalog's table and column names, name the data as a whole, not
	// a value, and are not looked up on their own.
	Domain string
	Log    *slog.Logger

	// listed caches the values of columns with few (store.ListedValues):
	// read at the first Listed and again at every Refresh, so a question
	// costs no query for them.
	listed struct {
		sync.Mutex
		values map[store.ValueColumn][]string
	}
	// decided keeps each policy's decision over the whole catalog
	// (warehouse.Decide) while that catalog is the backend's: deciding a
	// policy over 1,000 tables takes milliseconds, and every question asks
	// twice (QueueLookup, Listed).
	decided struct {
		sync.Mutex
		whole *warehouse.Catalog
		by    map[warehouse.Access]warehouse.Access
	}
}

// maxDecided bounds the decisions kept for one catalog; when full, they
// start again empty.
const maxDecided = 64

// RefreshStats describes one refresh.
type RefreshStats struct {
	// Columns is how many text columns the catalog has; Indexed how many
	// were indexed, Skipped how many had too many distinct values, Failed
	// how many could not be read or written.
	Columns, Indexed, Skipped, Failed int
	// Values is how many values were indexed in all (those longer than
	// MaxValueLength left out).
	Values  int
	Elapsed time.Duration
}

// Refresh reads the distinct values of every text column of the catalog
// and replaces what the index holds for it, but for values longer than
// MaxValueLength; a column that cannot be read or written is logged,
// counted as failed and left as it was, and the refresh goes on with the
// others. A read that fails as the backend's would (down, no answer,
// credentials refused: wholeBackend) leaves the rest of its table's
// columns as they were too, unread: a cube whose queries run past
// CUBE_TIMEOUT ("unavailable") costs one timeout, not one per dimension.
// When the reads of downTables tables in a row fail so, or the bot's
// database fails a write as unavailable, the refresh stops there with
// that error: every table after them would fail the same way.
func (ix *ValueIndex) Refresh(ctx context.Context) (RefreshStats, error) {
	start := time.Now()
	var st RefreshStats
	if err := ix.DB.PrepareValueIndex(ctx); err != nil {
		return st, fmt.Errorf("refresh the value index: %w", err)
	}
	cat, err := ix.Backend.Catalog(ctx)
	if err != nil {
		return st, fmt.Errorf("refresh the value index: %w", err)
	}
	max := ix.MaxDistinct
	if max <= 0 {
		max = DefaultMaxDistinct
	}
	backend := ix.Backend.Name()
	var keep []store.ValueColumn
	downRun := 0 // tables in a row whose read failed as the backend's
	for _, t := range cat.Tables {
		var down error // the read of t that failed as the backend's
		read := false  // a column of t was read, or tried
		for _, c := range t.Columns {
			if c.Kind != warehouse.KindText || c.Role == warehouse.RoleMeasure || c.Role == warehouse.RoleSegment {
				continue
			}
			st.Columns++
			col := store.ValueColumn{Backend: backend, Schema: t.Schema, Table: t.Name, Column: c.Name}
			keep = append(keep, col)
			if down != nil {
				st.Failed++ // left as it was, unread: its table's read failed as the backend's
				continue
			}
			read = true
			values, err := ix.Backend.Values(ctx, warehouse.ColumnRef{Schema: t.Schema, Table: t.Name, Column: c.Name}, max+1)
			if err != nil {
				if ctx.Err() != nil {
					return st, ctx.Err()
				}
				st.Failed++
				if wholeBackend(err) {
					down = fmt.Errorf("read %s.%s.%s: %w", col.Schema, col.Table, col.Column, err)
					ix.log().WarnContext(ctx, "value index: read a column; its table's other columns are left as they were",
						"column", col.Schema+"."+col.Table+"."+col.Column, "err", err)
					continue
				}
				ix.log().WarnContext(ctx, "value index: read a column", "column", col.Schema+"."+col.Table+"."+col.Column, "err", err)
				continue
			}
			indexed, distinct, rows := values.Distinct, len(values.Distinct)+values.Long, values.Rows
			skipped := distinct > max
			if skipped {
				// The rows of the values read are not the column's.
				indexed, rows = nil, warehouse.RowsUnknown
			} else {
				indexed = slices.DeleteFunc(slices.Clone(indexed), func(v string) bool {
					return utf8.RuneCountInString(v) > MaxValueLength
				})
				if indexed == nil {
					indexed = []string{} // indexed, with no values
				}
			}
			if err := ix.DB.ReplaceValues(ctx, col, distinct, rows, indexed); err != nil {
				if ctx.Err() != nil {
					return st, ctx.Err()
				}
				if errors.Is(err, store.ErrUnavailable) {
					return st, fmt.Errorf("refresh the value index: %w", err)
				}
				st.Failed++
				ix.log().WarnContext(ctx, "value index: write a column's values", "column", col.Schema+"."+col.Table+"."+col.Column, "err", err)
				continue
			}
			if skipped {
				st.Skipped++
			} else {
				st.Indexed++
				st.Values += len(indexed)
			}
		}
		switch {
		case down != nil:
			if downRun++; downRun == downTables {
				return st, fmt.Errorf("refresh the value index: the reads of %d tables in a row failed, the last: %w", downTables, down)
			}
		case read:
			downRun = 0
		}
	}
	if err := ix.DB.KeepValueColumns(ctx, backend, keep); err != nil {
		return st, fmt.Errorf("refresh the value index: %w", err)
	}
	if err := ix.DB.AnalyzeValueIndex(ctx); err != nil {
		return st, fmt.Errorf("refresh the value index: %w", err)
	}
	if _, err := ix.readListed(ctx); err != nil {
		return st, fmt.Errorf("refresh the value index: %w", err)
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// downTables is how many tables in a row whose read failed as the
// backend's (wholeBackend) stop a refresh.
const downTables = 3

// wholeBackend reports whether a column's read failed as the backend's
// failing as a whole would: down, no answer, credentials refused.
func wholeBackend(err error) bool {
	switch warehouse.KindOf(err) {
	case warehouse.Unavailable, warehouse.NoAnswer, warehouse.Busy, warehouse.Unauthorized:
		return true
	}
	return false
}

// Run refreshes the index now and then every interval, until ctx ends. A
// failed refresh is logged and tried again at the next interval.
func (ix *ValueIndex) Run(ctx context.Context, interval time.Duration) {
	for {
		st, err := ix.Refresh(ctx)
		switch {
		case errors.Is(err, store.ErrNoTrigram):
			ix.log().WarnContext(ctx, "the value lookup is off: pg_trgm is not installed in the bot's database")
			return
		case err != nil && ctx.Err() == nil:
			ix.log().WarnContext(ctx, "value index refresh failed", "err", err)
		case err == nil:
			ix.log().InfoContext(ctx, "value index refreshed", "columns", st.Columns, "indexed", st.Indexed,
				"values", st.Values, "too_many_values", st.Skipped, "failed", st.Failed, "elapsed", st.Elapsed.Round(time.Millisecond))
		}
		if interval <= 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// Lookup returns the stored values that resemble phrases of the question,
// best columns first, within a short deadline of its own: only values of
// columns the caller (warehouse.CallerOf) may read and see, none of a
// table or column their access policy denies or a column it masks. Each
// match says why it matched (store.MatchExact, …): a word that names a
// table or column (or another form of one: "publish" of publishers) is
// looked up too, but only its exact and stemmed matches count; a place's adjective or other name ("French", "United
// States") also looks up the place's names ('France', 'USA').
func (ix *ValueIndex) Lookup(ctx context.Context, question string) ([]store.ValueMatch, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	var r store.Reads
	matches := ix.QueueLookup(ctx, &r, question)
	r.Send(ctx)
	return matches(ctx)
}

// QueueLookup queues Lookup's read of the stored values on r, to share its
// round trip with the other reads of r, which it bounds by its own short
// deadline; the function it returns gives its result once r is sent.
func (ix *ValueIndex) QueueLookup(ctx context.Context, r *store.Reads, question string) func(context.Context) ([]store.ValueMatch, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	domain := map[string]bool{}
	for _, w := range words(ix.Domain) {
		domain[w] = true
	}
	// generic are the words of the data's description and of the schema;
	// schemaStems the stems of the schema's words: "publish" is a form of
	// the table publishers' word, as strict as "publisher".
	var schemaWords, schemaStems map[string]bool
	// The catalog as the caller may see it: matches in what their access
	// policy leaves out are dropped below.
	cat, access, err := ix.callerView(ctx)
	if err == nil {
		facts := factsOf(cat)
		schemaWords, schemaStems = facts.schemaWords, facts.schemaStems
	}
	generic := func(w string) bool { return domain[w] || schemaWords[w] }
	// A word of the data's description alone names no value; a word of
	// the schema alone may ("transaction", a type of notification), but
	// only as written. Nor, mostly, does a phrase of three words or more
	// that starts or ends with one ("games did Ubisoft Shanghai",
	// "release in 2018"): the values it would find, its inner words find
	// too, and the trigram index works hardest on long phrases of common
	// words. Two words are kept: "transaction notifications" finds the
	// type 'transaction' of notifications.
	var phrases []store.ValuePhrase
	for _, p := range Phrases(question) {
		ws := words(p)
		strict := false
		switch {
		case len(ws) == 1 && domain[ws[0]]:
			continue
		case len(ws) == 1 && (generic(ws[0]) || schemaStems[lexicon.Stem(ws[0])]):
			strict = true
		case len(ws) >= 3 && (generic(ws[0]) || generic(ws[len(ws)-1])):
			continue
		}
		phrases = append(phrases, store.ValuePhrase{Text: p, Strict: strict})
		for _, name := range placeNames(p) {
			phrases = append(phrases, store.ValuePhrase{Text: name, Phrase: p, Why: store.MatchPlace})
		}
	}
	if cat == nil && warehouse.CallerOf(ctx).Access != nil {
		// Without the caller's catalog nothing says which values are theirs.
		return func(context.Context) ([]store.ValueMatch, error) { return nil, err }
	}
	// Queued with the lookup's deadline, which bounds the round trip it
	// shares (store.Reads).
	matched := ix.DB.QueueMatchValues(ctx, r, ix.Backend.Name(), phrases, minSimilarity, valuesPerColumn, lookupColumns)
	return func(ctx context.Context) ([]store.ValueMatch, error) {
		// A retry (pg_trgm moved) is held to the lookup's deadline too, not
		// given a time of its own.
		ctx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		matches, err := matched(ctx)
		if err != nil || cat == nil {
			return matches, err
		}
		return slices.DeleteFunc(matches, func(m store.ValueMatch) bool {
			return !visible(cat, access, m.Schema, m.Table, m.Column)
		}), nil
	}
}

// callerView is the catalog as the caller may see it, and their access
// policy as it applies to the whole catalog (warehouse.Decide, nil without
// a policy): a column masked on a table is masked on its inheritance
// children too, and one masked on a partition or child is masked on its
// parent, whose values are the descendant's rows. The policy's own lists
// say neither.
func (ix *ValueIndex) callerView(ctx context.Context) (*warehouse.Catalog, warehouse.Access, error) {
	cat, err := ix.Backend.Catalog(ctx)
	if err != nil {
		return nil, nil, err
	}
	access := warehouse.CallerOf(ctx).Access
	if access == nil {
		return cat, nil, nil
	}
	whole, err := ix.Backend.Catalog(warehouse.WithCaller(ctx, warehouse.Caller{}))
	if err != nil {
		return nil, nil, err
	}
	return cat, ix.decide(whole, access), nil
}

// decide returns access decided over whole, made once per catalog and
// policy (*access.Policy, kept by identity). A policy that is no pointer
// is decided every time: its value could hold one that is no map key.
func (ix *ValueIndex) decide(whole *warehouse.Catalog, access warehouse.Access) warehouse.Access {
	if reflect.TypeOf(access).Kind() != reflect.Pointer {
		return warehouse.Decide(whole, access)
	}
	ix.decided.Lock()
	defer ix.decided.Unlock()
	if ix.decided.whole != whole || len(ix.decided.by) >= maxDecided {
		ix.decided.whole, ix.decided.by = whole, map[warehouse.Access]warehouse.Access{}
	}
	d, ok := ix.decided.by[access]
	if !ok {
		d = warehouse.Decide(whole, access)
		ix.decided.by[access] = d
	}
	return d
}

// visible reports whether a column of the caller's catalog is theirs to
// see values of: in the catalog, and not masked by their access policy as
// decided over the whole catalog (callerView; a masked column stays in the
// catalog, but its values are not theirs).
func visible(cat *warehouse.Catalog, access warehouse.Access, schema, table, column string) bool {
	t, ok := cat.Table(schema, table)
	if !ok {
		return false
	}
	if _, ok = t.Column(column); !ok {
		return false
	}
	return access == nil || !access.MasksColumn(schema, table, column)
}

// LowCardinality is the most distinct values a column may have for the
// prompt to list them all in the schema's description, so that codes and
// flags (is_official = 'T', 'F' for female) are visible to the generator;
// a column with a value longer than maxListedLength holds text, not
// codes, and is not listed.
//
// In a small table every column has few values, and only some are codes.
// A code repeats across rows: a column is listed when its values are held
// by at least minRowsPerValue rows each on average (a state in 20
// customers' rows with up to 10 states, a status with up to 10 statuses),
// not the unique names, emails and phone numbers of a 20-row customers
// table. A table of at most lookupWidth columns is a list of codes itself
// (platforms, statuses, days: a key and a name or two), and its values are
// listed though each is one row. When the backend does not count rows
// (warehouse.RowsUnknown), every column with few values is listed.
const (
	LowCardinality  = 20
	maxListedLength = 40
	minRowsPerValue = 2
	lookupWidth     = 3
)

// isCodes reports whether the few values of a column of t are codes, to
// list whole (LowCardinality).
func isCodes(t warehouse.Table, c store.FewValues) bool {
	return c.Rows < 0 || c.Rows >= minRowsPerValue*int64(len(c.Values)) || len(t.Columns) <= lookupWidth
}

// Listed returns every value of the caller's columns that hold codes
// (LowCardinality, isCodes), by column, as the index last read them: Build
// lists them in the description of the tables it shows while the budget
// allows. They are read from the index once, then kept until the next
// Refresh (which a serving bot runs every VALUE_INDEX_REFRESH).
func (ix *ValueIndex) Listed(ctx context.Context) (map[warehouse.ColumnRef][]string, error) {
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	cat, access, err := ix.callerView(ctx)
	if err != nil {
		return nil, fmt.Errorf("list values: %w", err)
	}
	ix.listed.Lock()
	listed := ix.listed.values
	ix.listed.Unlock()
	if listed == nil {
		if listed, err = ix.readListed(ctx); err != nil {
			return nil, err
		}
	}
	out := make(map[warehouse.ColumnRef][]string, len(listed))
	for col, values := range listed {
		if visible(cat, access, col.Schema, col.Table, col.Column) {
			out[warehouse.ColumnRef{Schema: col.Schema, Table: col.Table, Column: col.Column}] = values
		}
	}
	return out, nil
}

// readListed reads the values of the columns with few from the index,
// keeps those that are codes for Listed, and returns them. Which are codes
// is a fact of the data, told by the whole catalog, not the caller's: a
// policy that denies most of a customers table's columns must not make it
// look like a lookup table and list its people's names and emails.
func (ix *ValueIndex) readListed(ctx context.Context) (map[store.ValueColumn][]string, error) {
	few, err := ix.DB.ListedValues(ctx, ix.Backend.Name(), LowCardinality, maxListedLength)
	if err != nil {
		return nil, err
	}
	cat, err := ix.Backend.Catalog(warehouse.WithCaller(ctx, warehouse.Caller{}))
	if err != nil {
		return nil, fmt.Errorf("list values: %w", err)
	}
	listed := make(map[store.ValueColumn][]string, len(few))
	for col, c := range few {
		if t, ok := cat.Table(col.Schema, col.Table); ok && isCodes(t, c) {
			listed[col] = c.Values
		}
	}
	ix.listed.Lock()
	ix.listed.values = listed
	ix.listed.Unlock()
	return listed, nil
}

func (ix *ValueIndex) log() *slog.Logger {
	if ix.Log == nil {
		return slog.Default()
	}
	return ix.Log
}

// quoted finds text in quotes: "…", '…', “…”, ‘…’.
var quoted = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|‘([^’]+)’|(?:^|\s)'([^']+)'`)

// maxPhrases bounds the phrases of one question.
const maxPhrases = 60

// Phrases are the parts of a question that may name stored values: quoted
// text, and runs of one to four words that neither start nor end with a
// stop word, skipping numbers and single words shorter than three letters.
func Phrases(question string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = strings.TrimSpace(p)
		k := strings.ToLower(p)
		if p != "" && !seen[k] && len(out) < maxPhrases {
			seen[k] = true
			out = append(out, p)
		}
	}
	for _, m := range quoted.FindAllStringSubmatch(question, -1) {
		for _, g := range m[1:] {
			add(g)
		}
	}
	// Word runs never cross punctuation: "Shanghai, and counter" is no
	// phrase.
	for _, segment := range strings.FieldsFunc(question, func(r rune) bool { return strings.ContainsRune(",;:?!()[]{}\"“”", r) }) {
		ws := strings.FieldsFunc(segment, func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("'’&-®™.+", r))
		})
		for i := range ws {
			ws[i] = strings.Trim(ws[i], "'’.-")
		}
		stop := func(w string) bool {
			return w == "" || stopWords[strings.ToLower(w)] || stopWords[singular(strings.ToLower(w))]
		}
		// A length of time ("the past 30 days") names no value.
		for i := 1; i < len(ws); i++ {
			if isNumber(ws[i-1]) && timeUnits[singular(strings.ToLower(ws[i]))] {
				ws[i-1], ws[i] = "", ""
			}
		}
		for n := 4; n >= 1; n-- {
			for i := 0; i+n <= len(ws); i++ {
				gram := ws[i : i+n]
				if n == 1 && len([]rune(gram[0])) < 3 && isCode(gram[0], i) {
					add(gram[0]) // a code, even one spelt like a stop word ("A", "US")
					continue
				}
				if stop(gram[0]) || stop(gram[n-1]) || hasEmpty(gram) {
					continue
				}
				if n == 1 && (len([]rune(gram[0])) < 3 || isNumber(gram[0])) {
					continue
				}
				add(strings.Join(gram, " "))
			}
		}
	}
	return out
}

func hasEmpty(ws []string) bool {
	for _, w := range ws {
		if w == "" {
			return true
		}
	}
	return false
}

func isNumber(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) && r != '.' && r != ',' {
			return false
		}
	}
	return true
}

// isCode reports whether a short word, the i-th of its run, is written in
// capitals: a code worth looking up ("US", "NY", a grade "A" within a
// sentence), where "of", "to", "I" or a sentence's opening "A" is not.
func isCode(w string, i int) bool {
	if strings.ToUpper(w) != w || strings.ToLower(w) == w {
		return false
	}
	return len(w) >= 2 || (w != "I" && i > 0)
}
