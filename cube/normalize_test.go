package cube

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counted is the smallest valid query with the given filters.
func counted(filters ...Filter) Query {
	return Query{Measures: []string{"Apps.count"}, Filters: filters}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	m := testMeta(t)
	count := []string{"Apps.count"}
	tests := []struct {
		name string
		q    Query
		want Query
	}{
		{
			name: "valid query kept, limit defaulted",
			q: Query{Measures: count, Dimensions: []string{"Apps.name"}, Segments: []string{"Apps.free"},
				Order: Order{{"Apps.count", "desc"}}},
			want: Query{Measures: count, Dimensions: []string{"Apps.name"}, Segments: []string{"Apps.free"},
				Order: Order{{"Apps.count", "desc"}}, Limit: 50},
		},
		{name: "limit kept", q: Query{Measures: count, Limit: 7}, want: Query{Measures: count, Limit: 7}},
		{name: "limit clamped", q: Query{Measures: count, Limit: 5000}, want: Query{Measures: count, Limit: 100}},
		{name: "negative limit defaulted", q: Query{Measures: count, Limit: -1}, want: Query{Measures: count, Limit: 50}},
		{
			name: "case and snake_case forgiven, duplicates dropped",
			q:    Query{Measures: []string{"apps.count", "Apps.count", "apps.avg_price"}, Dimensions: []string{"APPS.IS_FREE"}},
			want: Query{Measures: []string{"Apps.count", "Apps.avgPrice"}, Dimensions: []string{"Apps.isFree"}, Limit: 50},
		},
		{
			name: "granularity in dimensions moved to time dimensions",
			q:    Query{Measures: count, Dimensions: []string{"Apps.releaseDate.year"}, Order: Order{{"Apps.releaseDate.year", ""}}},
			want: Query{Measures: count, TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "year"}},
				Order: Order{{"Apps.releaseDate", "asc"}}, Limit: 50},
		},
		{
			name: "time dimension granularity and date range",
			q: Query{Measures: count, TimeDimensions: []TimeDimension{
				{Dimension: "Apps.releaseDate", Granularity: "Monthly", DateRange: []any{"2018-01-01", " 2018-12-31"}}}},
			want: Query{Measures: count, TimeDimensions: []TimeDimension{
				{Dimension: "Apps.releaseDate", Granularity: "month", DateRange: []string{"2018-01-01", "2018-12-31"}}}, Limit: 50},
		},
		{
			name: "relative date range, granularity in the name",
			q:    Query{Measures: count, TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate.quarter", DateRange: " last year "}}},
			want: Query{Measures: count, TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "quarter", DateRange: "last year"}}, Limit: 50},
		},
		{
			name: "the same time dimension twice kept once",
			q: Query{Measures: count, Dimensions: []string{"Apps.releaseDate.month"},
				TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "month"}, {Dimension: "apps.release_date", Granularity: "year"}}},
			want: Query{Measures: count, Limit: 50, TimeDimensions: []TimeDimension{
				{Dimension: "Apps.releaseDate", Granularity: "month"}, {Dimension: "Apps.releaseDate", Granularity: "year"}}},
		},
		{
			name: "a time dimension alone is a valid selection",
			q:    Query{TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "year"}}},
			want: Query{TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "year"}}, Limit: 50},
		},
		{
			name: "order directions normalised, duplicates dropped",
			q:    Query{Measures: count, Dimensions: []string{"Apps.name"}, Order: Order{{"Apps.count", "DESC"}, {"Apps.name", "Ascending"}, {"Apps.count", "asc"}}},
			want: Query{Measures: count, Dimensions: []string{"Apps.name"}, Order: Order{{"Apps.count", "desc"}, {"Apps.name", "asc"}}, Limit: 50},
		},
		{
			name: "nested groups of one kind",
			q: counted(Filter{Or: []Filter{
				{Member: "Apps.price", Operator: ">", Values: []any{"10"}},
				{And: []Filter{{Member: "Apps.isFree", Operator: "equals", Values: []any{true}}, {Member: "Apps.name", Operator: "set"}}},
			}}),
			want: Query{Measures: count, Limit: 50, Filters: []Filter{{Or: []Filter{
				{Member: "Apps.price", Operator: "gt", Values: []any{int64(10)}},
				{And: []Filter{{Member: "Apps.isFree", Operator: "equals", Values: []any{"true"}}, {Member: "Apps.name", Operator: "set"}}},
			}}}},
		},
		{
			name: "measures and dimensions in separate top-level filters",
			q:    counted(Filter{Member: "Apps.count", Operator: "gte", Values: []any{"10"}}, Filter{Member: "Apps.price", Operator: "lt", Values: []any{5}}),
			want: Query{Measures: count, Limit: 50, Filters: []Filter{
				{Member: "Apps.count", Operator: "gte", Values: []any{int64(10)}}, {Member: "Apps.price", Operator: "lt", Values: []any{int64(5)}}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(m, tt.q)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNormalizeFilters(t *testing.T) {
	t.Parallel()
	m := testMeta(t)
	tests := []struct {
		name      string
		filter    Filter
		wantOp    string
		wantVals  []any
		wantProbl string
	}{
		{name: ">= symbol", filter: Filter{Member: "Apps.price", Operator: ">=", Values: []any{"5"}}, wantOp: "gte", wantVals: []any{int64(5)}},
		{name: "<= symbol", filter: Filter{Member: "Apps.price", Operator: "<=", Values: []any{5.5}}, wantOp: "lte", wantVals: []any{5.5}},
		{name: "> symbol", filter: Filter{Member: "Apps.price", Operator: ">", Values: []any{"0"}}, wantOp: "gt", wantVals: []any{int64(0)}},
		{name: "< symbol", filter: Filter{Member: "Apps.price", Operator: "<", Values: []any{json.Number("9.99")}}, wantOp: "lt", wantVals: []any{9.99}},
		{name: "= symbol", filter: Filter{Member: "Apps.name", Operator: "=", Values: []any{"Portal"}}, wantOp: "equals", wantVals: []any{"Portal"}},
		{name: "== symbol", filter: Filter{Member: "Apps.name", Operator: "==", Values: []any{"Portal"}}, wantOp: "equals", wantVals: []any{"Portal"}},
		{name: "!= symbol", filter: Filter{Member: "Apps.name", Operator: "!=", Values: []any{"Portal"}}, wantOp: "notEquals", wantVals: []any{"Portal"}},
		{name: "<> symbol", filter: Filter{Member: "Apps.name", Operator: "<>", Values: []any{"Portal"}}, wantOp: "notEquals", wantVals: []any{"Portal"}},
		{name: "upper case", filter: Filter{Member: "Apps.price", Operator: "GTE", Values: []any{"5"}}, wantOp: "gte", wantVals: []any{int64(5)}},
		{name: "words with spaces", filter: Filter{Member: "Apps.name", Operator: "not equals", Values: []any{"x"}}, wantOp: "notEquals", wantVals: []any{"x"}},
		{name: "snake case", filter: Filter{Member: "Apps.name", Operator: "starts_with", Values: []any{"Half"}}, wantOp: "startsWith", wantVals: []any{"Half"}},
		{name: "known operator kept", filter: Filter{Member: "Apps.name", Operator: "notContains", Values: []any{"demo", "beta"}}, wantOp: "notContains", wantVals: []any{"demo", "beta"}},
		{name: "in becomes equals", filter: Filter{Member: "Apps.name", Operator: "in", Values: []any{"a", "b"}}, wantOp: "equals", wantVals: []any{"a", "b"}},
		{name: "value with operator", filter: Filter{Member: "Apps.positiveRatings", Values: []any{">=90"}}, wantOp: "gte", wantVals: []any{int64(90)}},
		{name: "value with operator and spaces under equals", filter: Filter{Member: "Apps.price", Operator: "equals", Values: []any{"< 5"}}, wantOp: "lt", wantVals: []any{int64(5)}},
		{name: "not-equal value on a string", filter: Filter{Member: "Apps.name", Values: []any{"!=x"}}, wantOp: "notEquals", wantVals: []any{"x"}},
		{name: "comparison-looking string value kept", filter: Filter{Member: "Apps.name", Operator: "equals", Values: []any{"<3 Hearts"}}, wantOp: "equals", wantVals: []any{"<3 Hearts"}},
		{name: "missing operator means equals", filter: Filter{Member: "Apps.name", Values: []any{"Portal"}}, wantOp: "equals", wantVals: []any{"Portal"}},
		{name: "numbers become strings on strings", filter: Filter{Member: "Apps.name", Operator: "equals", Values: []any{1942.0, json.Number("7")}}, wantOp: "equals", wantVals: []any{"1942", "7"}},
		{name: "integral float sent as integer", filter: Filter{Member: "Apps.count", Operator: "gt", Values: []any{"100.0"}}, wantOp: "gt", wantVals: []any{int64(100)}},
		{name: "boolean spellings", filter: Filter{Member: "Apps.isFree", Operator: "equals", Values: []any{"Yes"}}, wantOp: "equals", wantVals: []any{"true"}},
		{name: "set takes no values", filter: Filter{Member: "Apps.name", Operator: "is not null", Values: []any{"x"}}, wantOp: "set", wantVals: nil},
		{name: "notSet", filter: Filter{Member: "Apps.price", Operator: "notSet"}, wantOp: "notSet", wantVals: nil},
		{name: "gt on time becomes afterDate", filter: Filter{Member: "Apps.releaseDate", Operator: ">", Values: []any{"2018-01-01"}}, wantOp: "afterDate", wantVals: []any{"2018-01-01"}},
		{name: "lte on time becomes beforeOrOnDate", filter: Filter{Member: "Apps.releaseDate", Values: []any{"<=2018-01-01"}}, wantOp: "beforeOrOnDate", wantVals: []any{"2018-01-01"}},
		{name: "inDateRange", filter: Filter{Member: "Apps.releaseDate", Operator: "between", Values: []any{"2018-01-01", "2018-06-30T12:00:00"}}, wantOp: "inDateRange", wantVals: []any{"2018-01-01", "2018-06-30T12:00:00"}},
		{name: "onTheDate with one date covers that day", filter: Filter{Member: "Apps.releaseDate", Operator: "onTheDate", Values: []any{"2018-03-01"}}, wantOp: "onTheDate", wantVals: []any{"2018-03-01", "2018-03-01"}},

		{name: "unknown operator", filter: Filter{Member: "Apps.price", Operator: "gtx", Values: []any{"5"}},
			wantProbl: "filters[0]: unknown operator 'gtx' on 'Apps.price'; use one of equals, notEquals, contains, notContains, startsWith, notStartsWith, endsWith, notEndsWith, gt, gte, lt, lte, set, notSet, inDateRange, notInDateRange, onTheDate, beforeDate, beforeOrOnDate, afterDate, afterOrOnDate"},
		{name: "measureFilter is internal", filter: Filter{Member: "Apps.count", Operator: "measureFilter"}, wantProbl: "unknown operator 'measureFilter'"},
		{name: "no operator, no value", filter: Filter{Member: "Apps.name"}, wantProbl: "filters[0]: the filter on 'Apps.name' has no operator"},
		{name: "no value", filter: Filter{Member: "Apps.price", Operator: "gt"}, wantProbl: "filters[0]: gt on 'Apps.price' needs at least one value"},
		{name: "not a number", filter: Filter{Member: "Apps.price", Operator: "gt", Values: []any{"cheap"}}, wantProbl: `filters[0]: 'Apps.price' is a number: the value "cheap" is not a number`},
		{name: "not a boolean", filter: Filter{Member: "Apps.isFree", Operator: "equals", Values: []any{"maybe"}}, wantProbl: "filters[0]: 'Apps.isFree' is a boolean: the value maybe is not true or false"},
		{name: "null value", filter: Filter{Member: "Apps.name", Operator: "equals", Values: []any{nil}}, wantProbl: "a null value matches nothing; use set or notSet"},
		{name: "too many values", filter: Filter{Member: "Apps.price", Operator: "gt", Values: []any{1, 2}}, wantProbl: "filters[0]: gt takes one value, got 2"},
		{name: "date operator on a number", filter: Filter{Member: "Apps.price", Operator: "beforeDate", Values: []any{"2018-01-01"}}, wantProbl: "filters[0]: beforeDate works on time dimensions only and 'Apps.price' is a number; use gt, gte, lt or lte"},
		{name: "contains on a number", filter: Filter{Member: "Apps.price", Operator: "contains", Values: []any{"9"}}, wantProbl: "filters[0]: contains works on strings and 'Apps.price' is a number"},
		{name: "relative date in a filter", filter: Filter{Member: "Apps.releaseDate", Operator: "inDateRange", Values: []any{"last year", "today"}}, wantProbl: "use timeDimensions with a dateRange"},
		{name: "three dates", filter: Filter{Member: "Apps.releaseDate", Operator: "inDateRange", Values: []any{"2018-01-01", "2018-01-02", "2018-01-03"}}, wantProbl: "filters[0]: inDateRange takes two dates [from, to]"},
		{name: "mixed value operators", filter: Filter{Member: "Apps.price", Values: []any{">5", "<10"}}, wantProbl: "filters[0]: the values carry different operators; use one filter per operator"},
		{name: "some values with operators", filter: Filter{Member: "Apps.price", Values: []any{">5", "10"}}, wantProbl: "filters[0]: only some values carry an operator"},
		{name: "segment in filters", filter: Filter{Member: "Apps.free", Operator: "set"}, wantProbl: "filters[0]: 'Apps.free' is a segment: put it in segments, not filters"},
		{name: "no member", filter: Filter{Operator: "equals", Values: []any{"x"}}, wantProbl: "filters[0]: the filter has no member"},
		{name: "unknown member", filter: Filter{Member: "Apps.pricee", Operator: "gt", Values: []any{1}}, wantProbl: "filters[0]: 'Apps.pricee' is not a member; did you mean 'Apps.price'?"},
		{name: "member and group", filter: Filter{Member: "Apps.price", Or: []Filter{{Member: "Apps.name", Operator: "set"}}}, wantProbl: "filters[0]: a filter is either {member, operator, values} or one {or: [...]} or {and: [...]} group, not both"},
		{name: "mixed group", filter: Filter{Or: []Filter{{Member: "Apps.price", Operator: "gt", Values: []any{5}}, {Member: "Apps.count", Operator: "gt", Values: []any{5}}}},
			wantProbl: "filters[0]: an or group cannot mix measures and dimensions; use separate top-level filters"},
		{name: "problem inside a group", filter: Filter{And: []Filter{{Member: "Apps.name", Operator: "set"}, {Member: "Apps.price", Operator: "~", Values: []any{1}}}},
			wantProbl: "filters[0].and[1]: unknown operator '~'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(m, counted(tt.filter))
			if tt.wantProbl != "" {
				var verr *ValidationError
				require.ErrorAs(t, err, &verr, "got %v, want a *ValidationError", err)
				require.Len(t, verr.Problems, 1, "got problems %q", verr.Problems)
				assert.Contains(t, verr.Problems[0], tt.wantProbl, "got problem %q, want it to contain %q", verr.Problems[0], tt.wantProbl)
				return
			}
			require.NoError(t, err)
			require.Len(t, got.Filters, 1)
			assert.Equal(t, tt.wantOp, got.Filters[0].Operator, "got operator %q, want %q", got.Filters[0].Operator, tt.wantOp)
			assert.Equal(t, tt.wantVals, got.Filters[0].Values, "got values %#v, want %#v", got.Filters[0].Values, tt.wantVals)
		})
	}
}

func TestNormalizeProblems(t *testing.T) {
	t.Parallel()
	m := testMeta(t)
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{name: "empty query", q: Query{}, want: []string{"select at least one measure, dimension or time dimension with a granularity"}},
		{name: "only a time dimension without granularity", q: Query{TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", DateRange: "last year"}}},
			want: []string{"select at least one measure, dimension or time dimension with a granularity"}},
		{name: "typo with suggestion", q: Query{Measures: []string{"Apps.cuont"}},
			want: []string{"measures: 'Apps.cuont' is not a member; did you mean 'Apps.count'?"}},
		{name: "suggestion of the wanted kind", q: Query{Measures: []string{"Apps.count"}, Dimensions: []string{"Apps.names"}},
			want: []string{"dimensions: 'Apps.names' is not a member; did you mean 'Apps.name'?"}},
		{name: "unknown cube with suggestion", q: Query{Measures: []string{"App.count"}},
			want: []string{"measures: 'App.count' is not a member: there is no cube 'App'; did you mean 'Apps'?"}},
		{name: "unknown cube listed", q: Query{Measures: []string{"Games.count"}},
			want: []string{"measures: 'Games.count' is not a member: there is no cube 'Games'; the cubes are 'Apps' and 'Publishers'"}},
		{name: "nothing near", q: Query{Measures: []string{"Apps.revenueInEuros"}},
			want: []string{"measures: 'Apps.revenueInEuros' is not a member of the model"}},
		{name: "not qualified", q: Query{Measures: []string{"count"}},
			want: []string{"measures: 'count' is not a member: write members as Cube.member, such as 'Apps.avgPrice'"}},
		{name: "private member", q: Query{Measures: []string{"Apps.secret"}},
			want: []string{"measures: 'Apps.secret' is not a member of the model"}},
		{name: "dimension in measures", q: Query{Measures: []string{"Apps.name"}},
			want: []string{"measures: 'Apps.name' is a dimension: put it in dimensions, not measures"}},
		{name: "measure in dimensions", q: Query{Dimensions: []string{"Apps.count"}},
			want: []string{"dimensions: 'Apps.count' is a measure: put it in measures, not dimensions"}},
		{name: "segment in dimensions", q: Query{Measures: []string{"Apps.count"}, Dimensions: []string{"Apps.free"}},
			want: []string{"dimensions: 'Apps.free' is a segment: put it in segments, not dimensions"}},
		{name: "dimension in segments", q: Query{Measures: []string{"Apps.count"}, Segments: []string{"Apps.isFree"}},
			want: []string{"segments: 'Apps.isFree' is a dimension, not a segment: use a filter on it instead"}},
		{name: "non-time dimension in time dimensions", q: Query{Measures: []string{"Apps.count"}, TimeDimensions: []TimeDimension{{Dimension: "Apps.price", Granularity: "year"}}},
			want: []string{"timeDimensions: 'Apps.price' is a number dimension, not a time dimension: put it in dimensions or filters"}},
		{name: "bad granularity", q: Query{Measures: []string{"Apps.count"}, TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", Granularity: "decade"}}},
			want: []string{"timeDimensions: 'Apps.releaseDate' has granularity 'decade'; use one of second, minute, hour, day, week, month, quarter, year"}},
		{name: "bad date range", q: Query{Measures: []string{"Apps.count"}, TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", DateRange: []string{"2018", "2019", "2020"}}}},
			want: []string{`timeDimensions: the dateRange of 'Apps.releaseDate' must be two dates YYYY-MM-DD [from, to], got ["2018" "2019" "2020"]`}},
		{name: "reversed date range", q: Query{Measures: []string{"Apps.count"}, TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", DateRange: []string{"2019-01-01", "2018-01-01"}}}},
			want: []string{"timeDimensions: the dateRange of 'Apps.releaseDate' ends (2018-01-01) before it starts (2019-01-01): swap them"}},
		{name: "date range of the wrong type", q: Query{Measures: []string{"Apps.count"}, TimeDimensions: []TimeDimension{{Dimension: "Apps.releaseDate", DateRange: 2018}}},
			want: []string{`timeDimensions: the dateRange of 'Apps.releaseDate' must be a string such as "last year" or two dates ["2018-01-01", "2018-12-31"]`}},
		{name: "order by an unselected member", q: Query{Measures: []string{"Apps.count"}, Order: Order{{"Apps.price", "desc"}}},
			want: []string{"order: 'Apps.price' is not selected: add it to measures or dimensions, or order by a selected member"}},
		{name: "bad direction", q: Query{Measures: []string{"Apps.count"}, Order: Order{{"Apps.count", "down"}}},
			want: []string{"order: the direction of 'Apps.count' is 'down'; use asc or desc"}},
		{name: "every problem reported", q: Query{Measures: []string{"Apps.pricee", "Apps.name"}, Order: Order{{"Apps.bogus", "asc"}}},
			want: []string{
				"measures: 'Apps.pricee' is not a member; did you mean 'Apps.price' (a dimension)?",
				"measures: 'Apps.name' is a dimension: put it in dimensions, not measures",
				"order: 'Apps.bogus' is not a member of the model",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(m, tt.q)
			var verr *ValidationError
			require.ErrorAs(t, err, &verr, "got %v, want a *ValidationError", err)
			assert.Equal(t, tt.want, verr.Problems)
			assert.Equal(t, Query{}, got)
			assert.Equal(t, "invalid cube query: "+tt.want[0], err.Error()[:len("invalid cube query: ")+len(tt.want[0])])
		})
	}
}

func TestNormalizeDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	q := Query{Measures: []string{"apps.count"}, Filters: []Filter{{Member: "Apps.price", Values: []any{">=5"}}}}
	_, err := Normalize(testMeta(t), q)
	require.NoError(t, err)
	assert.Equal(t, Query{Measures: []string{"apps.count"}, Filters: []Filter{{Member: "Apps.price", Values: []any{">=5"}}}}, q)
}
