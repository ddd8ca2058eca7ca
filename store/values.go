package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// ErrNoTrigram means pg_trgm is not installed in the bot's database, so
// values cannot be matched.
var ErrNoTrigram = errors.New("pg_trgm is not installed in the bot's database")

// ValueColumn names a column of a backend's catalog whose values the
// value index keeps.
type ValueColumn struct {
	Backend, Schema, Table, Column string
}

// ValueMatch is a stored value that resembles a phrase of a question.
type ValueMatch struct {
	ValueColumn
	Value string
	// Phrase is the words of the question it matched, Similarity how well
	// (0 to 1), Exact whether it is the phrase but for case.
	Phrase     string
	Similarity float64
	Exact      bool
	// Why says how it matched, for people and for ranking: MatchExact,
	// MatchStem, MatchPlace or MatchFuzzy.
	Why string
}

// How a value matched a phrase, best first.
const (
	// MatchExact: the phrase, but for case and punctuation ("ubisoft",
	// 'Ubisoft®').
	MatchExact = "exact"
	// MatchPlace: a name of the place the phrase names ("French" or
	// "France", 'FR'), as the caller looked it up (ValuePhrase.Why).
	MatchPlace = "place"
	// MatchStem: the phrase's words with the same stems, by PostgreSQL's
	// english text-search configuration ("weekends", 'Weekend';
	// "successful", 'success').
	MatchStem = "stem"
	// MatchFuzzy: alike by trigrams ("ubisoft", 'Ubisoft Montreal').
	MatchFuzzy = "fuzzy"
)

// ValuePhrase is a phrase to look up among the stored values.
type ValuePhrase struct {
	// Text is what is looked up; Phrase the words of the question it
	// stands for (Text when empty): "France" for "French".
	Text, Phrase string
	// Why, when set, is what its exact and stemmed matches are called
	// (MatchPlace).
	Why string
	// Strict keeps only exact and stemmed matches: for a word that also
	// names a table or column, whose fuzzy matches would be noise.
	Strict bool
}

// rank orders matches: exact (and place) ones first, then stemmed ones,
// then by similarity, a phrase of several words counting for more (a
// value that matches "Ubisoft Shanghai" says more than one that matches
// "Ubisoft").
func (m ValueMatch) rank() float64 {
	switch words := len(strings.Fields(m.Phrase)); {
	case m.Exact:
		return 2 + float64(words)/100
	case m.Why == MatchStem:
		return 1.995
	case words > 1 && m.Similarity >= 0.7:
		return min(m.Similarity*(1+0.5*float64(words-1)), 1.99)
	default:
		return m.Similarity
	}
}

// ValueIndexStats describes what the value index holds for a backend.
type ValueIndexStats struct {
	Columns, Indexed, Values int
	RefreshedAt              time.Time
}

// PrepareValueIndex makes sure values can be matched quickly: pg_trgm is
// installed and the trigram index exists (created here, since pg_trgm may
// have been installed, or moved, after the migrations ran).
func (d *DB) PrepareValueIndex(ctx context.Context) error {
	schema, err := d.lookupTrigramSchema(ctx)
	if err != nil {
		return err
	}
	// fastupdate off: a refresh replaces whole columns at once, and
	// entries left in GIN's pending list would make every lookup scan it.
	err = d.createIndex(ctx, `CREATE INDEX IF NOT EXISTS value_index_trgm_idx ON value_index USING gin (value `+
		pgx.Identifier{schema, "gin_trgm_ops"}.Sanitize()+`) WITH (fastupdate = off)`)
	if err != nil {
		return fmt.Errorf("create the value index's trigram index: %w", classify(err))
	}
	// The values' word stems, for stemmed matches: PostgreSQL's english
	// text-search configuration, always installed.
	err = d.createIndex(ctx, `CREATE INDEX IF NOT EXISTS value_index_stem_idx ON value_index (backend, `+stemsOf("value")+`)`)
	if err != nil {
		return fmt.Errorf("create the value index's stem index: %w", classify(err))
	}
	d.trgm.stems.Store(true)
	return nil
}

// stemsOf is the SQL of the sorted, distinct word stems of a text, as the
// english text-search configuration finds them: a value and a phrase with
// the same stems are a stemmed match.
func stemsOf(expr string) string {
	return `tsvector_to_array(to_tsvector('pg_catalog.english'::regconfig, ` + expr + `))`
}

// ReplaceValues replaces what the index keeps for col, in one transaction:
// values when indexed, else only the count of distinct values it had, and
// how many rows hold them (warehouse.ColumnValues.Rows; negative when
// unknown, kept as NULL). Only
// what changed is written: rewriting every value at each refresh left the
// table and its trigram index scattered, and lookups twice as slow every
// other refresh (BENCHMARKS.md).
func (d *DB) ReplaceValues(ctx context.Context, col ValueColumn, distinct int, rows int64, values []string) error {
	ctx = d.maintenance(ctx)
	var rowCount *int64
	if rows >= 0 {
		rowCount = &rows
	}
	err := pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `
			INSERT INTO value_index_columns (backend, schema_name, table_name, column_name, distinct_values, indexed, row_count)
			VALUES ($1, $2, $3, $4, $5, $6, $7)
			ON CONFLICT (backend, schema_name, table_name, column_name) DO UPDATE SET
				distinct_values = EXCLUDED.distinct_values, indexed = EXCLUDED.indexed,
				row_count = EXCLUDED.row_count, refreshed_at = now()`,
			col.Backend, col.Schema, col.Table, col.Column, distinct, values != nil, rowCount)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE value_index_incoming (value text NOT NULL) ON COMMIT DROP`); err != nil {
			return err
		}
		seen := make(map[string]bool, len(values))
		rows := make([][]any, 0, len(values))
		for _, v := range values {
			if v = cleanText(v); !seen[v] {
				seen[v] = true
				rows = append(rows, []any{v})
			}
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"value_index_incoming"}, []string{"value"}, pgx.CopyFromRows(rows)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM value_index v
			WHERE backend = $1 AND schema_name = $2 AND table_name = $3 AND column_name = $4
			  AND NOT EXISTS (SELECT 1 FROM value_index_incoming i WHERE i.value = v.value)`,
			col.Backend, col.Schema, col.Table, col.Column); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO value_index (backend, schema_name, table_name, column_name, value)
			SELECT $1, $2, $3, $4, i.value FROM value_index_incoming i
			WHERE NOT EXISTS (SELECT 1 FROM value_index v
			                  WHERE backend = $1 AND schema_name = $2 AND table_name = $3 AND column_name = $4
			                    AND v.value = i.value)`,
			col.Backend, col.Schema, col.Table, col.Column)
		return err
	})
	if err != nil {
		return fmt.Errorf("replace the values of %s.%s.%s: %w", col.Schema, col.Table, col.Column, classify(err))
	}
	return nil
}

// KeepValueColumns forgets the columns of backend that are not in keep
// (tables or columns gone from the catalog), with their values.
func (d *DB) KeepValueColumns(ctx context.Context, backend string, keep []ValueColumn) error {
	ctx = d.maintenance(ctx)
	schemas, tables, columns := make([]string, len(keep)), make([]string, len(keep)), make([]string, len(keep))
	for i, c := range keep {
		schemas[i], tables[i], columns[i] = c.Schema, c.Table, c.Column
	}
	_, err := d.pool.Exec(ctx, `DELETE FROM value_index_columns v
		WHERE v.backend = $1 AND NOT EXISTS (
			SELECT 1 FROM unnest($2::text[], $3::text[], $4::text[]) AS k(s, t, c)
			WHERE k.s = v.schema_name AND k.t = v.table_name AND k.c = v.column_name)`,
		backend, schemas, tables, columns)
	if err != nil {
		return fmt.Errorf("forget value columns: %w", classify(err))
	}
	return nil
}

// AnalyzeValueIndex cleans the index of the rows a refresh replaced and
// updates the planner's statistics, so lookups use the trigram index.
func (d *DB) AnalyzeValueIndex(ctx context.Context) error {
	ctx = d.maintenance(ctx)
	if _, err := d.pool.Exec(ctx, `VACUUM (ANALYZE) value_index`); err != nil {
		return fmt.Errorf("analyze the value index: %w", classify(err))
	}
	return nil
}

// HasValue reports whether the index holds value for col (false for a
// column it does not index).
func (d *DB) HasValue(ctx context.Context, col ValueColumn, value string) (bool, error) {
	var ok bool
	err := d.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM value_index
		WHERE backend = $1 AND schema_name = $2 AND table_name = $3 AND column_name = $4 AND value = $5)`,
		col.Backend, col.Schema, col.Table, col.Column, value).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("look up a value: %w", classify(err))
	}
	return ok, nil
}

// ValueIndexStats tells what the index holds for backend.
func (d *DB) ValueIndexStats(ctx context.Context, backend string) (ValueIndexStats, error) {
	var st ValueIndexStats
	var refreshed *time.Time
	err := d.pool.QueryRow(ctx, `
		SELECT count(*), count(*) FILTER (WHERE indexed),
		       coalesce((SELECT count(*) FROM value_index WHERE backend = $1), 0), max(refreshed_at)
		FROM value_index_columns WHERE backend = $1`, backend).Scan(&st.Columns, &st.Indexed, &st.Values, &refreshed)
	if err != nil {
		return st, fmt.Errorf("value index stats: %w", classify(err))
	}
	if refreshed != nil {
		st.RefreshedAt = *refreshed
	}
	return st, nil
}

// A phrase keeps its candidatesPerColumn best values in each column. In a
// column where it resembles commonInColumn values or more, it keeps only
// its strong matches ("Ubisoft" in "Ubisoft Montreal", not "Ubisoft" in
// "Ubisofted"); elsewhere weaker ones too ("roguelike" and the tag
// "Rogue-like", among a hundred games named "... Roguelike").
//
// A strict phrase (a word of the schema) matches only in columns of at
// most strictMaxDistinct values: kinds and statuses, not titles.
const (
	strictMaxDistinct   = 1000
	candidatesPerColumn = 10
	commonInColumn      = 40
	strongMatch         = 0.9
)

// normalValue is a value as the lookup compares it for equality: lower
// case, letters and digits only, so that "roguelike" equals "Rogue-like"
// and "ubisoft" equals "Ubisoft®". PostgreSQL computes the same on the
// stored side.
func normalValue(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// MatchValues returns the stored values of backend that resemble the
// phrases, at least minSimilarity alike (trigram similarity of the whole
// value, or the phrase's word similarity inside a longer value) or with
// the same word stems, at most perColumn values for each of the best
// limit columns, best first.
func (d *DB) MatchValues(ctx context.Context, backend string, phrases []ValuePhrase, minSimilarity float64, perColumn, limit int) ([]ValueMatch, error) {
	var r Reads
	match := d.QueueMatchValues(ctx, &r, backend, phrases, minSimilarity, perColumn, limit)
	r.Send(ctx)
	return match(ctx)
}

// QueueMatchValues queues MatchValues on r, to share its round trip with
// the other reads of r; the function it returns gives its result once r
// is sent.
func (d *DB) QueueMatchValues(ctx context.Context, r *Reads, backend string, phrases []ValuePhrase, minSimilarity float64, perColumn, limit int) func(context.Context) ([]ValueMatch, error) {
	if len(phrases) == 0 {
		return func(context.Context) ([]ValueMatch, error) { return nil, nil }
	}
	matched := d.queueMatchValues(ctx, r, backend, phrases, minSimilarity)
	return func(ctx context.Context) ([]ValueMatch, error) {
		all, err := matched()
		if err != nil && d.staleTrigram(err) {
			// pg_trgm moved or went away since it was found: once more,
			// alone, with what the database says now.
			var again Reads
			matched = d.queueMatchValues(ctx, &again, backend, phrases, minSimilarity)
			again.Send(ctx)
			all, err = matched()
		}
		if errors.Is(err, ErrNoTrigram) {
			return nil, ErrNoTrigram
		}
		if err != nil {
			return nil, fmt.Errorf("match values: %w", classify(err))
		}
		return rankMatches(all, minSimilarity, perColumn, limit), nil
	}
}

// valueSetup returns the schema pg_trgm is in and whether the stem index
// exists (stemmed matches need it, and the first refresh creates it:
// without it, they would compare every value): remembered once found
// (trigramCache; an index found missing for stemsRecheck), else asked in
// one round trip.
func (d *DB) valueSetup(ctx context.Context) (trigram string, stems bool, err error) {
	if s := d.trgm.schema.Load(); s != nil && (d.trgm.stems.Load() || d.trgm.noStemsFresh()) {
		return *s, d.trgm.stems.Load(), nil
	}
	var schema *string
	err = d.pool.QueryRow(ctx, `SELECT (`+trigramSchemaQuery+`), to_regclass($1) IS NOT NULL`,
		pgx.Identifier{d.schema, "value_index_stem_idx"}.Sanitize()).Scan(&schema, &stems)
	if err != nil {
		return "", false, err
	}
	d.trgm.schema.Store(schema)
	if schema == nil {
		return "", false, ErrNoTrigram
	}
	d.trgm.stems.Store(stems)
	d.trgm.stemsAsked.Store(time.Now().UnixNano())
	return *schema, stems, nil
}

// queueMatchValues queues MatchValues before the ranking on r, with where
// pg_trgm is as remembered, and returns its result once r is sent. Once
// that is known, no round trip of its own: its statements go in r's
// batch, which PostgreSQL runs as one implicit transaction (a Sync ends
// it), so the settings below, local to it, hold for every statement
// after them; a read queued after the match has them set back first, so
// they hold for the match's statements and for none after. The operators' own thresholds cut what the index
// returns, so a common word costs little; the scores are checked again
// below. The planner costs a trigram comparison like an equality, so on a
// small index (a few thousand values) it compares every value instead of
// asking the trigram index: 13 ms a phrase instead of 0.5. The candidates
// are found by the trigram conditions alone, with scans of the whole
// table off. One statement per phrase, each prepared once per connection
// and run with its generic plan (force_generic_plan): with scans of the
// whole table off, that plan asks the trigram and stem indexes as a plan
// made for the phrase does, and planning the statement again for every
// phrase took about 1 ms of the 2 to 3 each costs (BENCHMARKS.md). Which
// values a statement returns does not depend on its plan: they are
// ordered by a key that ties no two values of a column.
func (d *DB) queueMatchValues(ctx context.Context, r *Reads, backend string, phrases []ValuePhrase, minSimilarity float64) func() ([]ValueMatch, error) {
	trigram, stems, err := d.valueSetup(ctx)
	if err != nil {
		return func() ([]ValueMatch, error) { return nil, err }
	}
	var all []ValueMatch
	rd := r.queue(ctx, d, func(b *pgx.Batch) { queueMatchStatements(b, &all, trigram, stems, backend, phrases, minSimilarity) })
	// The session's own values again (as the connection started: the bot
	// never sets these for a session), for a read after it in the batch.
	// Only then: reading pg_settings takes 0.7 ms.
	rd.undo = `SELECT set_config(name, reset_val, true) FROM pg_catalog.pg_settings WHERE name IN (` + matchSettings + `)`
	return func() ([]ValueMatch, error) {
		if err := rd.outcome(); err != nil {
			return nil, err
		}
		return all, nil
	}
}

// matchSettings are the settings the match's statements are planned and
// run with (queueMatchStatements).
const matchSettings = `'pg_trgm.similarity_threshold', 'pg_trgm.word_similarity_threshold', 'enable_seqscan', 'plan_cache_mode'`

// queueMatchStatements queues the statements of a match on b: its
// settings, then one statement per phrase, whose rows it adds to all.
func queueMatchStatements(b *pgx.Batch, all *[]ValueMatch, trigram string, stems bool, backend string, phrases []ValuePhrase, minSimilarity float64) {
	b.Queue(`SELECT set_config('pg_trgm.similarity_threshold', $1, true),
		set_config('pg_trgm.word_similarity_threshold', $1, true),
		set_config('enable_seqscan', 'off', true),
		set_config('plan_cache_mode', 'force_generic_plan', true)`,
		strconv.FormatFloat(minSimilarity, 'f', 2, 64))
	q := pgx.Identifier{trigram}.Sanitize()
	// The statement for a phrase, written once for each kind of phrase.
	statement := func(short bool) string {
		// A value as alike as the threshold as a whole is at least as
		// alike by word similarity (its best extent is the whole value
		// or a better one), so the word similarity operator alone finds
		// both: one scan of the trigram index, not two
		// (TestMatchValuesFindsEveryAlikeValue; BENCHMARKS.md, "One
		// trigram scan per phrase").
		where := `$2 OPERATOR(` + q + `.<%) value`
		if short {
			where = `value OPERATOR(` + q + `.%) $2`
		}
		// Values with the same stems as the phrase, whatever their
		// trigrams: "successful" and 'success'.
		if stems {
			where = `(` + where + `) OR (backend = $1 AND ` + stemsOf("value") + ` = ` + stemsOf("$2::text") +
				` AND cardinality(` + stemsOf("$2::text") + `) > 0)`
		}
		// The score is read as the text of its real, as a statement
		// in text format reads it (0.4, not 0.4000000059604645).
		return `
				WITH candidates AS MATERIALIZED (
				    SELECT backend, schema_name, table_name, column_name, value FROM value_index
				    WHERE ` + where + `
				)
				SELECT schema_name, table_name, column_name, value, score::text::float8, exact, stem, distinct_values, n FROM (
				    SELECT *, row_number() OVER (PARTITION BY schema_name, table_name, column_name
				                                 ORDER BY exact DESC, stem DESC, score DESC, length(value), value) AS rn,
				              count(*) OVER (PARTITION BY schema_name, table_name, column_name) AS n
				    FROM (
				        SELECT schema_name, table_name, column_name, value,
				               greatest(` + q + `.similarity(value, $2), ` + q + `.word_similarity($2, value)) AS score,
				               regexp_replace(lower(value), '[^[:alnum:]]+', '', 'g') = $3 AS exact,
				               ` + stemsOf("value") + ` = ` + stemsOf("$2::text") + ` AS stem,
				               (SELECT c.distinct_values FROM value_index_columns c
				                WHERE (c.backend, c.schema_name, c.table_name, c.column_name) =
				                      (v.backend, v.schema_name, v.table_name, v.column_name)) AS distinct_values
				        FROM candidates v WHERE backend = $1
				    ) scored
				) ranked
				WHERE rn <= $4`
	}
	statements := [2]string{statement(false), statement(true)}
	for _, p := range phrases {
		phrase := p.Text
		// A code of one or two characters ("US", "A") is a word of
		// countless values: it matches only values equal to it.
		short := utf8.RuneCountInString(phrase) <= 2
		sql := statements[0]
		if short {
			sql = statements[1]
		}
		b.Queue(sql, backend, phrase, normalValue(phrase), candidatesPerColumn).Query(func(rows pgx.Rows) error {
			m := ValueMatch{Phrase: cmp.Or(p.Phrase, phrase)}
			m.Backend = backend
			var exact, stem bool
			var distinct, n int
			_, err := pgx.ForEachRow(rows, []any{&m.Schema, &m.Table, &m.Column, &m.Value, &m.Similarity, &exact, &stem, &distinct, &n}, func() error {
				m.Exact, m.Why = exact, MatchFuzzy
				switch {
				case p.Strict && distinct > strictMaxDistinct:
					// A word of the schema that is also one title among
					// thousands ("price", a game named 'PRICE') is chance.
					return nil
				case exact:
					m.Similarity, m.Why = 1, cmp.Or(p.Why, MatchExact)
				case stem && !short:
					// Not quite the phrase: just below an exact match.
					m.Similarity, m.Why = 0.99, cmp.Or(p.Why, MatchStem)
				case short || p.Strict || p.Why != "":
					return nil
				case n >= commonInColumn && m.Similarity < strongMatch:
					return nil // a phrase this common in the column keeps only its strong matches
				}
				*all = append(*all, m)
				return nil
			})
			return err
		})
	}
}

// rankMatches keeps, per column, the perColumn best distinct values of at
// least minSimilarity, and the limit columns with the best of them. Ties
// are broken by the values' length and text, and the columns' table,
// column and schema: the columns are gathered in a map, and which of two
// equal ones is shown (or cut at limit) is never left to its order.
func rankMatches(all []ValueMatch, minSimilarity float64, perColumn, limit int) []ValueMatch {
	byColumn := map[ValueColumn][]ValueMatch{}
	for _, m := range all {
		if m.Similarity < minSimilarity {
			continue
		}
		ms := byColumn[m.ValueColumn]
		if i := slices.IndexFunc(ms, func(o ValueMatch) bool { return o.Value == m.Value }); i >= 0 {
			if m.rank() > ms[i].rank() {
				ms[i] = m
			}
			continue
		}
		byColumn[m.ValueColumn] = append(ms, m)
	}
	cols := make([][]ValueMatch, 0, len(byColumn))
	for _, ms := range byColumn {
		slices.SortFunc(ms, func(a, b ValueMatch) int {
			return cmp.Or(cmp.Compare(b.rank(), a.rank()), cmp.Compare(len(a.Value), len(b.Value)), strings.Compare(a.Value, b.Value))
		})
		cols = append(cols, ms[:min(len(ms), perColumn)])
	}
	slices.SortFunc(cols, func(a, b []ValueMatch) int {
		return cmp.Or(cmp.Compare(b[0].rank(), a[0].rank()), cmp.Compare(len(b), len(a)),
			strings.Compare(a[0].Table+"."+a[0].Column, b[0].Table+"."+b[0].Column), strings.Compare(a[0].Schema, b[0].Schema))
	})
	var out []ValueMatch
	for _, ms := range cols[:min(len(cols), limit)] {
		out = append(out, ms...)
	}
	return out
}

// FewValues are the values of a column with few, whole (ListedValues).
type FewValues struct {
	// Values are its distinct values, sorted.
	Values []string
	// Rows is how many rows hold them, or -1 when that is not known: the
	// column was indexed before the count was kept, or by a backend that
	// does not count (warehouse.RowsUnknown).
	Rows int64
}

// ListedValues returns every value of each indexed column of backend that
// has between one and maxDistinct values, none longer than maxLength
// characters and all of them indexed (the index leaves out long ones:
// grounding.MaxValueLength), sorted, with how many rows hold them: the codes and flags
// ('T'/'F', 'usa') that the prompt may list whole. Which of them are codes,
// not a small table's names, the caller tells by their rows and their
// table (grounding.ValueIndex.Listed).
func (d *DB) ListedValues(ctx context.Context, backend string, maxDistinct, maxLength int) (map[ValueColumn]FewValues, error) {
	rows, err := d.pool.Query(ctx, `
		SELECT c.schema_name, c.table_name, c.column_name, array_agg(v.value ORDER BY v.value), coalesce(c.row_count, -1)
		FROM value_index_columns c
		JOIN value_index v USING (backend, schema_name, table_name, column_name)
		WHERE c.backend = $1 AND c.indexed AND c.distinct_values BETWEEN 1 AND $2
		GROUP BY c.schema_name, c.table_name, c.column_name, c.row_count, c.distinct_values
		HAVING max(length(v.value)) <= $3 AND count(*) = c.distinct_values`, backend, maxDistinct, maxLength)
	if err != nil {
		return nil, fmt.Errorf("list values: %w", classify(err))
	}
	out := map[ValueColumn]FewValues{}
	col := ValueColumn{Backend: backend}
	var listed FewValues
	_, err = pgx.ForEachRow(rows, []any{&col.Schema, &col.Table, &col.Column, &listed.Values, &listed.Rows}, func() error {
		out[col] = FewValues{Values: slices.Clone(listed.Values), Rows: listed.Rows}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list values: %w", classify(err))
	}
	return out, nil
}
