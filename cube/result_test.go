package cube

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeLoad reads a /load answer as Load does.
func decodeLoad(t *testing.T, body string) rawLoad {
	t.Helper()
	var raw rawLoad
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&raw))
	return raw
}

func TestResultColumnNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{name: "simple", q: Query{Dimensions: []string{"Apps.name"}, Measures: []string{"Apps.count"}}, want: []string{"name", "count"}},
		{name: "camelCase to snake_case", q: Query{Dimensions: []string{"Apps.positiveRatings"}, Measures: []string{"Apps.avgPrice"}}, want: []string{"positive_ratings", "avg_price"}},
		{name: "collision keeps both cubes", q: Query{Measures: []string{"Apps.count", "Publishers.count"}}, want: []string{"apps_count", "publishers_count"}},
		{name: "only colliding names qualified", q: Query{Dimensions: []string{"Apps.name", "Publishers.name"}, Measures: []string{"Apps.count"}},
			want: []string{"apps_name", "publishers_name", "count"}},
		{name: "time dimensions first, with granularity", q: Query{
			Measures: []string{"Apps.count"}, Dimensions: []string{"Apps.isFree", "Apps.releaseDate"},
			TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "month"}, {Dimension: "Apps.releaseDate", Granularity: "year"}, {Dimension: "Apps.releaseDate", DateRange: "last year"}}},
			want: []string{"release_date_month", "release_date_year", "is_free", "release_date", "count"}},
		{name: "multi-word cube", q: Query{Dimensions: []string{"AppGenres.genreID", "Genres.genreID"}}, want: []string{"app_genres_genre_id", "genres_genre_id"}},
		{name: "duplicate member once", q: Query{Measures: []string{"Apps.count", "Apps.count"}}, want: []string{"count"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := newResult(tt.q, decodeLoad(t, `{"data":[]}`))
			var got []string
			for _, c := range res.Columns {
				got = append(got, c.Name)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSnake(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{name: "camel", in: "releaseDate", want: "release_date"},
		{name: "pascal", in: "AppGenres", want: "app_genres"},
		{name: "acronym at the end", in: "appID", want: "app_id"},
		{name: "acronym first", in: "HTTPStatus", want: "http_status"},
		{name: "digits", in: "top10Games", want: "top10_games"},
		{name: "already snake", in: "release_date", want: "release_date"},
		{name: "snake with capital", in: "owners_Max", want: "owners_max"},
		{name: "one word", in: "count", want: "count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, snake(tt.in), "snake(%q)", tt.in)
		})
	}
}

func TestResultValues(t *testing.T) {
	t.Parallel()
	q := Query{
		TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "year"}, {Dimension: "Apps.releaseDate", Granularity: "hour"}},
		Dimensions:     []string{"Apps.isFree", "Apps.appId", "Apps.name"},
		Measures:       []string{"Apps.count", "Apps.avgPrice", "Apps.owners"},
	}
	raw := decodeLoad(t, `{
		"data": [
			{"Apps.releaseDate.year": "2018-01-01T00:00:00.000", "Apps.releaseDate.hour": "2018-03-04T13:00:00.000",
			 "Apps.isFree": false, "Apps.appId": 10, "Apps.name": "Counter-Strike",
			 "Apps.count": "44", "Apps.avgPrice": "6.2197520887549651", "Apps.owners": "123456789012345678901234"},
			{"Apps.releaseDate.year": null, "Apps.releaseDate.hour": null,
			 "Apps.isFree": "true", "Apps.appId": "12345678901", "Apps.name": 1942,
			 "Apps.count": 3, "Apps.avgPrice": "0.00000000000000000000", "Apps.owners": null}
		],
		"annotation": {
			"measures": {"Apps.count": {"type": "number"}, "Apps.avgPrice": {"type": "number"}},
			"dimensions": {"Apps.isFree": {"type": "boolean"}, "Apps.appId": {"type": "number"}, "Apps.name": {"type": "string"}},
			"segments": {},
			"timeDimensions": {"Apps.releaseDate.year": {"type": "time"}, "Apps.releaseDate.hour": {"type": "time"}}
		}}`)

	res := newResult(q, raw)
	var types []string
	for _, c := range res.Columns {
		types = append(types, c.Type)
	}
	assert.Equal(t, []string{"time", "time", "boolean", "number", "string", "number", "number", "number"}, types,
		"got types %v; Apps.owners has no annotation and falls back to number as a measure", types)
	assert.Equal(t, [][]any{
		{"2018-01-01", "2018-03-04T13:00:00.000", false, int64(10), "Counter-Strike", int64(44), 6.2197520887549651, "123456789012345678901234"},
		{nil, nil, true, int64(12345678901), "1942", int64(3), float64(0), nil},
	}, res.Rows)

	// Numbers a float stands for to the cent are floats; one a float would
	// show wrong in its whole part or its cents stays as written, as
	// PostgreSQL's numeric values do.
	raw = decodeLoad(t, `{"data": [{"Apps.count": "12.50", "Apps.avgPrice": "12345678901234567.99", "Apps.owners": "0.1"},
		{"Apps.count": "-9223372036854775809", "Apps.avgPrice": "6172839450617283.9950", "Apps.owners": "1e-7"}],
		"annotation": {"measures": {"Apps.count": {"type": "number"}, "Apps.avgPrice": {"type": "number"}, "Apps.owners": {"type": "number"}},
		"dimensions": {}, "segments": {}, "timeDimensions": {}}}`)
	res = newResult(Query{Measures: []string{"Apps.count", "Apps.avgPrice", "Apps.owners"}}, raw)
	assert.Equal(t, [][]any{{12.5, "12345678901234567.99", 0.1}, {"-9223372036854775809", "6172839450617283.9950", 1e-7}}, res.Rows)
	raw = decodeLoad(t, `{"data": [{"Apps.count": "123456789012345.67"}, {"Apps.count": "1234567890123456.78"}, {"Apps.count": "0.12345678901234567891"}],
		"annotation": {"measures": {"Apps.count": {"type": "number"}}, "dimensions": {}, "segments": {}, "timeDimensions": {}}}`)
	res = newResult(Query{Measures: []string{"Apps.count"}}, raw)
	assert.Equal(t, [][]any{{123456789012345.67}, {"1234567890123456.78"}, {0.12345678901234568}}, res.Rows)

	// NaN and ±Infinity stay text, as PostgreSQL's do: JSON has no such
	// numbers, and the result is cached and saved as JSON.
	raw = decodeLoad(t, `{"data": [{"Apps.count": "NaN", "Apps.avgPrice": "Infinity", "Apps.owners": "-Infinity"}],
		"annotation": {"measures": {"Apps.count": {"type": "number"}, "Apps.avgPrice": {"type": "number"}, "Apps.owners": {"type": "number"}},
		"dimensions": {}, "segments": {}, "timeDimensions": {}}}`)
	res = newResult(Query{Measures: []string{"Apps.count", "Apps.avgPrice", "Apps.owners"}}, raw)
	assert.Equal(t, [][]any{{"NaN", "Infinity", "-Infinity"}}, res.Rows)
	_, err := json.Marshal(res)
	assert.NoError(t, err, "the result marshals")
}

func TestResultSort(t *testing.T) {
	t.Parallel()
	q := Query{Dimensions: []string{"Apps.name"}, Measures: []string{"Apps.count"}, Order: Order{{"Apps.count", "desc"}, {"Apps.name", "asc"}}}
	raw := decodeLoad(t, `{
		"data": [
			{"Apps.name": "beta", "Apps.count": "5"},
			{"Apps.name": "Alpha", "Apps.count": "5"},
			{"Apps.name": "gamma", "Apps.count": "12"},
			{"Apps.name": null, "Apps.count": "5"},
			{"Apps.name": "delta", "Apps.count": null},
			{"Apps.name": "Epsilon", "Apps.count": "9.5"},
			{"Apps.name": "zeta", "Apps.count": "12345678901234567.99"},
			{"Apps.name": "eta", "Apps.count": "12345678901234567.89"}
		],
		"annotation": {"measures": {"Apps.count": {"type": "number"}}, "dimensions": {"Apps.name": {"type": "string"}}}}`)

	res := newResult(q, raw)
	assert.Equal(t, [][]any{
		{"delta", nil},                   // nulls sort last ascending, so first descending, as in PostgreSQL
		{"zeta", "12345678901234567.99"}, // kept as written, and ordered by value
		{"eta", "12345678901234567.89"},
		{"gamma", int64(12)},
		{"Epsilon", 9.5},
		{"Alpha", int64(5)}, // names compare case-insensitively
		{"beta", int64(5)},
		{nil, int64(5)},
	}, res.Rows)
}

// A text dimension's values compare as text even when they read as
// numbers ("10", "1a", "9"): only a number column's are compared by value.
func TestResultSortTextOfDigits(t *testing.T) {
	t.Parallel()
	q := Query{Dimensions: []string{"Apps.code"}, Order: Order{{"Apps.code", "asc"}}}
	raw := decodeLoad(t, `{"data": [{"Apps.code": "9"}, {"Apps.code": "1a"}, {"Apps.code": "10"}, {"Apps.code": "1/2"}],
		"annotation": {"dimensions": {"Apps.code": {"type": "string"}}}}`)
	res := newResult(q, raw)
	assert.Equal(t, [][]any{{"1/2"}, {"10"}, {"1a"}, {"9"}}, res.Rows)
}

func TestResultSortStableAndTimeOrder(t *testing.T) {
	t.Parallel()
	// Ordering by the time dimension, as Normalize writes it, sorts by its
	// column; rows equal on every key keep Cube's order.
	q := Query{
		TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "month"}},
		Dimensions:     []string{"Apps.isFree"},
		Order:          Order{{"Apps.releaseDate", "asc"}},
	}
	raw := decodeLoad(t, `{"data": [
		{"Apps.releaseDate.month": "2018-02-01T00:00:00.000", "Apps.isFree": true},
		{"Apps.releaseDate.month": "2018-01-01T00:00:00.000", "Apps.isFree": true},
		{"Apps.releaseDate.month": "2018-02-01T00:00:00.000", "Apps.isFree": false},
		{"Apps.releaseDate.month": "2018-01-01T00:00:00.000", "Apps.isFree": false}
	], "annotation": {"dimensions": {"Apps.isFree": {"type": "boolean"}}, "timeDimensions": {"Apps.releaseDate.month": {"type": "time"}}}}`)

	res := newResult(q, raw)
	assert.Equal(t, [][]any{
		{"2018-01-01", true}, {"2018-01-01", false}, {"2018-02-01", true}, {"2018-02-01", false},
	}, res.Rows)
}

func TestResultSortBoolean(t *testing.T) {
	t.Parallel()
	q := Query{Dimensions: []string{"Apps.isFree"}, Measures: []string{"Apps.count"}, Order: Order{{"Apps.isFree", "desc"}}}
	raw := decodeLoad(t, `{"data": [
		{"Apps.isFree": false, "Apps.count": "1"}, {"Apps.isFree": true, "Apps.count": "2"}
	], "annotation": {"dimensions": {"Apps.isFree": {"type": "boolean"}}, "measures": {"Apps.count": {"type": "number"}}}}`)

	res := newResult(q, raw)
	assert.Equal(t, [][]any{{true, int64(2)}, {false, int64(1)}}, res.Rows)
}
