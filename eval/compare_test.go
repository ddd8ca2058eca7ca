package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSameRows(t *testing.T) {
	gold := [][]any{{"Action", int64(10)}, {"RPG", int64(4)}}
	tests := []struct {
		name string
		got  [][]any
		m    Match
		want bool
	}{
		{name: "same rows", got: [][]any{{"Action", int64(10)}, {"RPG", int64(4)}}, want: true},
		{name: "other order, unordered", got: [][]any{{"RPG", int64(4)}, {"Action", int64(10)}}, want: true},
		{name: "other order, ordered", got: [][]any{{"RPG", int64(4)}, {"Action", int64(10)}}, m: Match{Ordered: true}, want: false},
		{name: "columns swapped", got: [][]any{{int64(10), "Action"}, {int64(4), "RPG"}}, want: true},
		{name: "numbers as numeric text", got: [][]any{{"Action", "10"}, {"RPG", "4.0"}}, want: true},
		{name: "a number off", got: [][]any{{"Action", int64(11)}, {"RPG", int64(4)}}, want: false},
		{name: "within tolerance", got: [][]any{{"Action", 10.04}, {"RPG", 4.001}}, m: Match{Tolerance: 0.01}, want: true},
		{name: "outside tolerance", got: [][]any{{"Action", 10.5}, {"RPG", int64(4)}}, m: Match{Tolerance: 0.01}, want: false},
		// docs/eval.md: match.tolerance defaults to 1e-6, relative.
		{name: "within the default tolerance", got: [][]any{{"Action", 10.0000001}, {"RPG", int64(4)}}, want: true},
		{name: "beyond the default tolerance", got: [][]any{{"Action", 10.001}, {"RPG", int64(4)}}, want: false},
		{name: "a row missing", got: [][]any{{"Action", int64(10)}}, want: false},
		{name: "an extra column refused", got: [][]any{{"Action", int64(10), 1.5}, {"RPG", int64(4), 2.5}}, want: false},
		{name: "an extra column allowed", got: [][]any{{"Action", int64(10), 1.5}, {"RPG", int64(4), 2.5}}, m: Match{ExtraColumns: true}, want: true},
		{name: "a column missing", got: [][]any{{"Action"}, {"RPG"}}, m: Match{ExtraColumns: true}, want: false},
		{name: "values paired with other rows", got: [][]any{{"Action", int64(4)}, {"RPG", int64(10)}}, want: false},
		{name: "NULL only equals NULL", got: [][]any{{"Action", nil}, {"RPG", int64(4)}}, want: false},
		// docs/eval.md: numeric text too, "10.50" equals 10.5.
		{name: "numeric text with a trailing zero", got: [][]any{{"Action", "10.00"}, {"RPG", "4.0"}}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why := sameRows(gold, tt.got, tt.m)
			assert.Equal(t, tt.want, got, "sameRows = %v (%s), want %v", got, why, tt.want)
			if !got {
				assert.NotEmpty(t, why, "a failure says why")
			}
		})
	}
	ok, _ := sameRows(nil, nil, Match{})
	assert.True(t, ok, "no rows answer no rows")

	// docs/eval.md: NULL equals NULL (and only NULL), "10.50" equals 10.5.
	ok, why := sameRows([][]any{{nil, 10.5}}, [][]any{{nil, "10.50"}}, Match{})
	assert.True(t, ok, "NULL answers NULL and numeric text answers a number: %s", why)
	// docs/eval.md: unless ordered, the rows as a whole are the same
	// multiset; here every column holds the gold column's values, yet the
	// rows are other ones, each twice.
	gold4 := [][]any{{"a", 1.0}, {"a", 2.0}, {"b", 1.0}, {"b", 2.0}}
	ok, _ = sameRows(gold4, [][]any{{"a", 1.0}, {"a", 1.0}, {"b", 2.0}, {"b", 2.0}}, Match{})
	assert.False(t, ok, "rows are a multiset: (a, 1) twice is not (a, 1) and (a, 2)")
	ok, why = sameRows(gold4, [][]any{{"b", 2.0}, {"a", 1.0}, {"b", 1.0}, {"a", 2.0}}, Match{})
	assert.True(t, ok, "the same rows in another order: %s", why)
}
