package cube

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Limits of a normalised query: the default when the model sets none, and
// the most rows a query may return, since results are shown in Slack.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// granularities are the ones both Cube versions accept, finest first.
var granularities = []string{"second", "minute", "hour", "day", "week", "month", "quarter", "year"}

// granularityAliases forgive adjectives the model writes for granularities.
var granularityAliases = map[string]string{
	"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month",
	"quarterly": "quarter", "yearly": "year", "annual": "year", "annually": "year",
}

// dateLike is a date with an optional time, the only form of the two ends of
// a dateRange pair.
var dateLike = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([T ]\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?Z?)?$`)

// Normalize validates q against m without calling Cube and returns the query
// to run, or a *ValidationError listing every problem found. It forgives
// what has one meaning: member names differing only in case or underscores,
// operators written as symbols or words (">=", "not equals"), operators
// inside values (">=90"), numbers written as strings, "Cube.dim.month" in
// Dimensions (moved to TimeDimensions), gt/lt on time dimensions (turned into
// afterDate/beforeDate), a missing or oversized limit (DefaultLimit, clamped
// to MaxLimit) and duplicates. Members must be of the right kind for where
// they are used, and order members must be selected.
func Normalize(m *Meta, q Query) (Query, error) {
	n := &normalizer{ix: newIndex(m)}
	out := Query{
		Measures: n.members(q.Measures, KindMeasure, "measures"),
		Segments: n.members(q.Segments, KindSegment, "segments"),
	}
	out.Dimensions, out.TimeDimensions = n.dimensions(q.Dimensions)
	for _, td := range q.TimeDimensions {
		if td, ok := n.timeDimension(td); ok && !slices.ContainsFunc(out.TimeDimensions, td.same) {
			out.TimeDimensions = append(out.TimeDimensions, td)
		}
	}
	out.Filters = n.filters(q.Filters)
	out.Order = n.order(q.Order, out)
	out.Limit = q.Limit
	if out.Limit <= 0 {
		out.Limit = DefaultLimit
	}
	out.Limit = min(out.Limit, MaxLimit)
	if len(n.problems) == 0 && len(out.Measures) == 0 && len(out.Dimensions) == 0 &&
		!slices.ContainsFunc(out.TimeDimensions, func(td TimeDimension) bool { return td.Granularity != "" }) {
		n.problem("select at least one measure, dimension or time dimension with a granularity")
	}
	if len(n.problems) > 0 {
		return Query{}, &ValidationError{Problems: n.problems}
	}
	return out, nil
}

// normalizer collects the problems of one query.
type normalizer struct {
	ix       *index
	problems []string
}

func (n *normalizer) problem(format string, args ...any) {
	n.problems = append(n.problems, fmt.Sprintf(format, args...))
}

// resolve finds name as one of kinds, reporting a problem when it is not a
// member or is of another kind. where locates it in the query
// ("filters[2]"), field names the query field it is in ("filters").
func (n *normalizer) resolve(name, where, field string, kinds ...Kind) (entry, bool) {
	e, ok := n.ix.find(name)
	if !ok {
		n.problem("%s: %s", where, n.ix.unknown(name, kinds...))
		return entry{}, false
	}
	if !slices.Contains(kinds, e.kind) {
		n.problem("%s: %s", where, misplaced(e, field))
		return entry{}, false
	}
	return e, true
}

// misplaced says where a member of the wrong kind belongs instead.
func misplaced(e entry, where string) string {
	switch {
	case e.kind == KindSegment:
		return fmt.Sprintf("'%s' is a segment: put it in segments, not %s", e.Name, where)
	case where == "segments":
		return fmt.Sprintf("'%s' is a %s, not a segment: use a filter on it instead", e.Name, e.kind)
	case e.kind == KindMeasure:
		return fmt.Sprintf("'%s' is a measure: put it in measures, not %s", e.Name, where)
	}
	return fmt.Sprintf("'%s' is a dimension: put it in dimensions, not %s", e.Name, where)
}

// members resolves a list of members of one kind, dropping duplicates.
func (n *normalizer) members(names []string, kind Kind, where string) []string {
	var out []string
	for _, name := range names {
		if e, ok := n.resolve(name, where, where, kind); ok && !slices.Contains(out, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
}

// dimensions resolves Query.Dimensions. "Apps.releaseDate.month" is Cube's
// shorthand for a time dimension at a granularity; it becomes a
// TimeDimension so that results and ordering treat it like one.
func (n *normalizer) dimensions(names []string) ([]string, []TimeDimension) {
	var dims []string
	var tds []TimeDimension
	for _, name := range names {
		if base, gran, ok := n.splitGranularity(name); ok {
			td := TimeDimension{Dimension: base, Granularity: gran}
			if !slices.ContainsFunc(tds, td.same) {
				tds = append(tds, td)
			}
			continue
		}
		if e, ok := n.resolve(name, "dimensions", "dimensions", KindDimension); ok && !slices.Contains(dims, e.Name) {
			dims = append(dims, e.Name)
		}
	}
	return dims, tds
}

// splitGranularity splits "Apps.releaseDate.month" into the time dimension
// and the granularity, when name is of that form.
func (n *normalizer) splitGranularity(name string) (string, string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || strings.Count(name, ".") != 2 {
		return "", "", false
	}
	gran, ok := granularity(name[i+1:])
	if !ok {
		return "", "", false
	}
	e, ok := n.ix.find(name[:i])
	if !ok || e.kind != KindDimension || e.Type != "time" {
		return "", "", false
	}
	return e.Name, gran, true
}

// granularity normalises a granularity name; "" is valid (no grouping).
func granularity(g string) (string, bool) {
	g = strings.ToLower(strings.TrimSpace(g))
	if alias, ok := granularityAliases[g]; ok {
		g = alias
	}
	return g, g == "" || slices.Contains(granularities, g)
}

// same reports whether two time dimensions group the same way.
func (td TimeDimension) same(o TimeDimension) bool {
	return td.Dimension == o.Dimension && td.Granularity == o.Granularity && fmt.Sprint(td.DateRange) == fmt.Sprint(o.DateRange)
}

func (n *normalizer) timeDimension(td TimeDimension) (TimeDimension, bool) {
	name := td.Dimension
	if base, gran, ok := n.splitGranularity(name); ok && strings.TrimSpace(td.Granularity) == "" {
		name, td.Granularity = base, gran
	}
	e, ok := n.resolve(name, "timeDimensions", "timeDimensions", KindDimension)
	if !ok {
		return TimeDimension{}, false
	}
	if e.Type != "time" {
		n.problem("timeDimensions: '%s' is a %s dimension, not a time dimension: put it in dimensions or filters", e.Name, e.Type)
		return TimeDimension{}, false
	}
	gran, ok := granularity(td.Granularity)
	if !ok {
		n.problem("timeDimensions: '%s' has granularity '%s'; use one of %s", e.Name, td.Granularity, strings.Join(granularities, ", "))
		return TimeDimension{}, false
	}
	dr, ok := n.dateRange(e.Name, td.DateRange)
	if !ok {
		return TimeDimension{}, false
	}
	return TimeDimension{Dimension: e.Name, Granularity: gran, DateRange: dr}, true
}

// dateRange accepts a string Cube parses ("last year", "2018") or two dates,
// from and to, both inclusive.
func (n *normalizer) dateRange(member string, dr any) (any, bool) {
	var parts []string
	switch v := dr.(type) {
	case nil:
		return nil, true
	case string:
		if s := strings.TrimSpace(v); s != "" {
			return s, true
		}
		return nil, true
	case []string:
		parts = v
	case []any:
		for _, p := range v {
			s, ok := p.(string)
			if !ok {
				n.problem("timeDimensions: the dateRange of '%s' must hold date strings, got %v", member, p)
				return nil, false
			}
			parts = append(parts, s)
		}
	default:
		n.problem("timeDimensions: the dateRange of '%s' must be a string such as \"last year\" or two dates [\"2018-01-01\", \"2018-12-31\"]", member)
		return nil, false
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) == 1 {
		return parts[0], true
	}
	if len(parts) != 2 || !dateLike.MatchString(parts[0]) || !dateLike.MatchString(parts[1]) {
		n.problem("timeDimensions: the dateRange of '%s' must be two dates YYYY-MM-DD [from, to], got %q", member, parts)
		return nil, false
	}
	if parts[0] > parts[1] {
		n.problem("timeDimensions: the dateRange of '%s' ends (%s) before it starts (%s): swap them", member, parts[1], parts[0])
		return nil, false
	}
	return []string{parts[0], parts[1]}, true
}

// order keeps the order items on selected members, with a direction of asc
// or desc.
func (n *normalizer) order(order Order, q Query) Order {
	var out Order
	for _, it := range order {
		name := it.Member
		if base, _, ok := n.splitGranularity(name); ok {
			name = base // Cube orders by the time dimension, whatever its granularity
		}
		e, ok := n.resolve(name, "order", "order", KindMeasure, KindDimension)
		if !ok {
			continue
		}
		if !selected(q, e.Name) {
			n.problem("order: '%s' is not selected: add it to measures or dimensions, or order by a selected member", e.Name)
			continue
		}
		dir := strings.ToLower(strings.TrimSpace(it.Direction))
		switch dir {
		case "", "ascending":
			dir = "asc"
		case "descending":
			dir = "desc"
		}
		if dir != "asc" && dir != "desc" {
			n.problem("order: the direction of '%s' is '%s'; use asc or desc", e.Name, it.Direction)
			continue
		}
		if !slices.ContainsFunc(out, func(o OrderItem) bool { return o.Member == e.Name }) {
			out = append(out, OrderItem{Member: e.Name, Direction: dir})
		}
	}
	return out
}

// selected reports whether member is one of q's result columns.
func selected(q Query, member string) bool {
	return slices.Contains(q.Measures, member) || slices.Contains(q.Dimensions, member) ||
		slices.ContainsFunc(q.TimeDimensions, func(td TimeDimension) bool {
			return td.Dimension == member && td.Granularity != ""
		})
}
