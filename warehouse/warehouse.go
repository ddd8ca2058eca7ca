// Package warehouse is the seam between the bot and the data it answers
// from. A Backend describes its catalog, checks a query written in its own
// language, runs it under the row and byte caps, streams exports and lists
// the distinct values of a column; its Dialect tells the query generator and
// the people what that language is. Results, columns and catalogs use
// neutral kinds (number, text, time, bool, other), and errors carry a Kind
// read with errors.As, so nothing outside a backend's package knows which
// database is behind it. Package pgwarehouse answers from PostgreSQL,
// package cubewarehouse from a Cube semantic layer; warehousetest holds the
// conformance suite every backend passes.
package warehouse

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"io"
)

// Backend is where questions are answered from. Implementations are safe for
// concurrent use.
type Backend interface {
	// Name identifies the backend in stored queries, logs and metrics, e.g.
	// "postgres" or "cube".
	Name() string
	// Dialect describes the backend's query language to the generator and
	// to people.
	Dialect() Dialect
	// Catalog describes what may be queried. An empty catalog is an *Error
	// of kind NoData.
	Catalog(ctx context.Context) (*Catalog, error)
	// Check checks text, a query in the backend's language, and returns it
	// ready to run with at most limit rows (0: the backend's own cap). A
	// query that may not run is an *Error of kind Invalid (worth
	// rewriting) or Unsafe (never to be retried).
	Check(ctx context.Context, text string, limit int) (Runnable, error)
	// Run runs a checked query.
	Run(ctx context.Context, q Runnable) (Result, error)
	// Export checks q as Check does and streams its rows, within limit, to
	// w as CSV (see NewCSVWriter) as they arrive: every row of an answer
	// whose result was cut.
	Export(ctx context.Context, q Query, w io.Writer, limit ExportLimit) (ExportStats, error)
	// Values lists up to limit distinct non-null values of a column of the
	// catalog as text, in order, with how many rows hold them when the
	// backend can say in the same read; for a caller (CallerOf) with an
	// access policy, never of a column it denies or masks. It lists all
	// of them up to limit, never a part cut at a size: a read it cannot
	// finish whole is an error. A backend may leave out values longer
	// than MaxValueLength characters, which no caller keeps, counting them
	// in ColumnValues.Long.
	Values(ctx context.Context, col ColumnRef, limit int) (ColumnValues, error)
	// Show returns what Show SQL shows for a query of this backend.
	Show(ctx context.Context, q Query) Shown
}

// MaxValueLength is the longest value, in characters, a column's values
// are read for (Backend.Values): the value index keeps names, categories
// and codes, and a longer value is text (grounding.MaxValueLength).
const MaxValueLength = 200

// ColumnValues is what Backend.Values reads of a column.
type ColumnValues struct {
	// Distinct are the column's distinct non-null values as text, in
	// order: with Long, up to the limit asked.
	Distinct []string
	// Long is how many distinct values longer than MaxValueLength
	// characters the backend read but left out of Distinct.
	Long int
	// Rows is how many rows hold one of Distinct or of the Long values
	// (all the column's non-null rows when the limit was not reached),
	// or RowsUnknown when the backend cannot count them in the read that
	// finds the values (Cube: a dimension need not have a measure that
	// counts its rows).
	// The value index tells a code, whose values repeat across rows,
	// from the names of a small table, each in one row.
	Rows int64
}

// RowsUnknown is ColumnValues.Rows of a backend that does not count rows.
const RowsUnknown = -1

// Query is a query in the language of the backend named by Backend: SQL for
// "postgres", a Cube query (JSON) for "cube".
type Query struct {
	Backend string `json:"backend"`
	Text    string `json:"text"`
}

// IsZero reports whether q holds no query.
func (q Query) IsZero() bool { return q.Text == "" }

// IDOf names q's result in a thread, what buttons carry and the cache
// keys results by: 8 hex characters of a hash of q as b's dialect
// fingerprints it (for SQL a hash of its parse tree less locations,
// for Cube the normalised query), so one query written another way (its
// layout, letter case, comments, the order of a Cube query's keys) is one
// dataset with one id. A query b cannot fingerprint (another backend's, or
// one that does not parse) has the id of its text (QueryID).
func IDOf(b Backend, q Query) string {
	id, _ := DatasetOf(b, q)
	return id
}

// DatasetOf names q's result in a thread (IDOf) and its dataset across
// threads: key is 64 hex characters, the same for q written another way
// when b can fingerprint it, else a hash of its backend and text; the id
// is then key's first 8 characters. One fingerprint serves both.
func DatasetOf(b Backend, q Query) (id, key string) {
	if key, ok := keyOf(b, q); ok {
		return key[:8], key
	}
	sum := sha256.Sum256([]byte(q.Backend + "\x00" + q.Text))
	return QueryID(q.Text), hex.EncodeToString(sum[:])
}

func keyOf(b Backend, q Query) (string, bool) {
	if b == nil || q.Backend != b.Name() {
		return "", false
	}
	d := b.Dialect()
	if d.Fingerprint == nil {
		return "", false
	}
	fp, err := d.Fingerprint(q.Text)
	if err != nil {
		return "", false
	}
	return datasetKey(q.Backend, fp), true
}

// datasetKey is the dataset key of a query of backend with fingerprint fp.
func datasetKey(backend, fp string) string {
	sum := sha256.Sum256([]byte(backend + "\x00" + fp))
	return hex.EncodeToString(sum[:])
}

// QueryID returns the id of a query's text as written: the first 8 hex
// characters of its MD5. IDOf prefers the backend's fingerprint.
func QueryID(text string) string {
	sum := md5.Sum([]byte(text))
	return hex.EncodeToString(sum[:4])
}

// Runnable is a query a backend checked and may run.
type Runnable struct {
	// Query is the query as checked, normalised by the backend: what users
	// see, the cache keeps and Show SQL shows.
	Query Query
	// Statement is what the backend runs: Query with its caps applied. It
	// may ask for one row more than Limit, so a result that was cut can be
	// told from one that has exactly Limit rows.
	Statement string
	// Limit is the most rows a result keeps; one with more is Truncated. 0
	// means the query's own limit is the answer and nothing is cut.
	Limit int
	// Fingerprint is the dialect's fingerprint of Query (what
	// Dialect.Fingerprint returns for Query.Text), taken by Check from
	// what it already read, so nothing reads the query again; ID and Key
	// are its result's id and dataset key as DatasetOf names them. All
	// three are set by Identified and empty when the backend has no
	// fingerprint: then Dataset falls back to DatasetOf.
	Fingerprint, ID, Key string
}

// Identified returns r carrying fp, the fingerprint of r.Query, with the
// id and dataset key DatasetOf would give it; a backend's Check calls it.
func (r Runnable) Identified(fp string) Runnable {
	r.Fingerprint = fp
	r.Key = datasetKey(r.Query.Backend, fp)
	r.ID = r.Key[:8]
	return r
}

// Dataset returns r's id and dataset key: those Check gave it, or, for a
// backend that gives none, DatasetOf's.
func (r Runnable) Dataset(b Backend) (id, key string) {
	if r.Key != "" {
		return r.ID, r.Key
	}
	return DatasetOf(b, r.Query)
}

// ExportLimit bounds an export.
type ExportLimit struct {
	// Rows caps the data rows; 0 is the backend's own cap.
	Rows int
	// Bytes caps the file's size (CSVWriter.Limit); 0 is none. The file
	// ends with the last whole row that fits: a value larger than what is
	// left ends it too.
	Bytes int64
}

// ExportStats describes an export.
type ExportStats struct {
	// Rows is the number of data rows written.
	Rows int
	// Truncated reports that the query had more rows than the export's
	// limit, or that the rest did not fit in its bytes (Full).
	Truncated bool
	// Full reports that the export stopped at its limit of bytes.
	Full bool
	// Total is how many rows the query has (up to its own limit) when the
	// backend counted them, such as Cube asked again within its own query
	// limit; 0 when it did not.
	Total int
}

// Generated is the generator's reply as a dialect reads it.
type Generated struct {
	// Text is the query; empty when the reply held none.
	Text        string
	Assumptions []string
	Explanation string
}

// Dialect is what a backend tells the query generator and people about its
// query language.
type Dialect struct {
	// Language names a query for people: "SQL", "Cube query".
	Language string
	// Step names the generator's model call, as scripted models match it:
	// "generate_sql", "generate_cube", else "generate_query".
	Step string
	// Prompt is the generator prompt, a text/template rendered from
	// prompts.GenerateQuery by package prompts (with its functions and
	// missingkey=error).
	Prompt string
	// Describe lists tables of the catalog for the prompt, in the
	// dialect's own terms.
	Describe func(tables []Table) string
	// TableName writes a table's name as the dialect's queries must, for
	// the prompt's list of tables it does not describe; nil: its
	// QualifiedName.
	TableName func(Table) string
	// Quoting is how the dialect's queries write a text value: the
	// stored values the prompt shows are written so (QuoteSQL when zero).
	Quoting Quoting
	// ColumnName names a column as the dialect's queries do, for the
	// stored values the prompt shows: a semantic layer's member by its
	// own name ("Publishers.name"). Nil names it with its schema and table
	// (ColumnRef.String: "analytics.publishers.name"), whatever its own
	// name holds (a PostgreSQL column may be named "a.b"); NameColumn
	// applies the default.
	ColumnName func(ColumnRef) string
	// Parse reads the generator's reply; ok is false when it held no query.
	Parse func(reply string) (g Generated, ok bool)
	// MaxRows is the most rows the backend returns for an answer, when it
	// has a cap of its own (a semantic layer's); 0 means the caller's.
	MaxRows int
	// Writing and Checking label the generator and the validator in
	// progress messages: "Writing SQL…", "Checking the SQL…".
	Writing, Checking string
	// Source names where answers come from in messages to users: "the
	// database", "the semantic layer (Cube)".
	Source string
	// Scope says what the catalog covers, for the message shown when it is
	// empty: `the "analytics" schema`.
	Scope string
	// EmptyHint and AuthHint tell whoever runs the bot what to check when
	// the catalog is empty or the backend refuses the bot's credentials.
	EmptyHint, AuthHint string
	// DeniedHint finishes the sentence, after Source, that tells a user
	// the backend refused a question (a Denied error) and who can see
	// why; empty: a database's missing grant.
	DeniedHint string
	// Fingerprint identifies a query whatever its layout: the same for the
	// same query (PostgreSQL's parse tree for SQL, the normalised JSON of
	// a Cube query), so a stored example is recognised in an answer.
	Fingerprint func(query string) (string, error)
	// FingerprintForm names the form of Fingerprint's fingerprints
	// ("pg-1", FormNumber): stored examples carry it, and at start and
	// while it serves the bot re-fingerprints those of an earlier form or
	// none (store.DB.RefingerprintEarlier), never those of a later one.
	// Whoever changes what Fingerprint returns for some query names a new
	// form, the next number of the same name ("pg-2"), or stored examples
	// keep fingerprints it no longer gives.
	FingerprintForm string
	// Tables names the tables (cubes) a query reads, as Table.QualifiedName
	// names them, lower case, so that an example whose tables the catalog
	// lacks is not shown.
	Tables func(query string) ([]string, error)
	// Uncommented is a query without its comments, for the numbers the
	// answer's check finds in the query: a number the generator wrote
	// only in a comment is no number the query used. Nil: a query of the
	// dialect has no comments.
	Uncommented func(query string) string
}

// NameColumn names c as the dialect's queries do (Dialect.ColumnName).
func (d Dialect) NameColumn(c ColumnRef) string {
	if d.ColumnName == nil {
		return c.String()
	}
	return d.ColumnName(c)
}

// Shown is a query as Show SQL presents it.
type Shown struct {
	// Language names the query: "SQL", "Cube query".
	Language string
	// Text is the query, formatted for reading.
	Text string
	// SQL is the SQL the backend runs for a query that is not SQL itself
	// (empty when the backend cannot say), and SQLBy names who wrote it.
	SQL, SQLBy string
}
