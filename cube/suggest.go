package cube

import (
	"fmt"
	"slices"
	"strings"
)

// entry is one member of the model with its kind.
type entry struct {
	Member
	kind Kind
}

// index finds members by exact name and by a loose key, so Normalize can
// forgive the model's case and snake_case slips ("apps.release_date" for
// "Apps.releaseDate") and suggest the nearest names for the rest.
type index struct {
	byName  map[string]entry
	byLoose map[string][]string
	cubes   []string
	all     []entry
}

func newIndex(m *Meta) *index {
	ix := &index{byName: map[string]entry{}, byLoose: map[string][]string{}}
	for _, c := range m.Cubes {
		ix.cubes = append(ix.cubes, c.Name)
		for _, list := range []struct {
			members []Member
			kind    Kind
		}{{c.Measures, KindMeasure}, {c.Dimensions, KindDimension}, {c.Segments, KindSegment}} {
			for _, mem := range list.members {
				e := entry{Member: mem, kind: list.kind}
				ix.byName[mem.Name] = e
				ix.all = append(ix.all, e)
				k := looseKey(mem.Name)
				ix.byLoose[k] = append(ix.byLoose[k], mem.Name)
			}
		}
	}
	return ix
}

// looseKey ignores case, underscores and surrounding spaces.
func looseKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "_", ""))
}

// find returns the member name refers to: exactly, or by its loose key when
// that matches one member only.
func (ix *index) find(name string) (entry, bool) {
	if e, ok := ix.byName[name]; ok {
		return e, true
	}
	if names := ix.byLoose[looseKey(name)]; len(names) == 1 {
		return ix.byName[names[0]], true
	}
	return entry{}, false
}

// unknown explains why name is not a member and suggests the nearest names
// of the wanted kinds (or of any kind when none of those is near).
func (ix *index) unknown(name string, kinds ...Kind) string {
	cubeName, _, ok := strings.Cut(name, ".")
	if !ok {
		return fmt.Sprintf("'%s' is not a member: write members as Cube.member, such as '%s'", name, ix.example(kinds))
	}
	if !slices.ContainsFunc(ix.cubes, func(c string) bool { return looseKey(c) == looseKey(cubeName) }) {
		msg := fmt.Sprintf("'%s' is not a member: there is no cube '%s'", name, cubeName)
		if s := nearest(cubeName, ix.cubes); len(s) > 0 {
			return msg + "; did you mean " + quoteList(s, "or") + "?"
		}
		return msg + "; the cubes are " + quoteList(ix.cubes, "and")
	}
	msg := fmt.Sprintf("'%s' is not a member", name)
	if s := nearest(name, ix.names(kinds)); len(s) > 0 {
		return msg + "; did you mean " + quoteList(s, "or") + "?"
	}
	if s := nearest(name, ix.names(nil)); len(s) > 0 {
		// Of another kind than wanted: say which, or the next attempt fails
		// on the kind.
		for i, n := range s {
			s[i] = "'" + n + "' (a " + ix.byName[n].kind.String() + ")"
		}
		return msg + "; did you mean " + joinList(s, "or") + "?"
	}
	return msg + " of the model"
}

// names lists the members of the given kinds (all kinds for none).
func (ix *index) names(kinds []Kind) []string {
	var out []string
	for _, e := range ix.all {
		if len(kinds) == 0 || slices.Contains(kinds, e.kind) {
			out = append(out, e.Name)
		}
	}
	return out
}

func (ix *index) example(kinds []Kind) string {
	if names := ix.names(kinds); len(names) > 0 {
		return names[0]
	}
	return "Cube.member"
}

// nearest returns up to three candidates within an edit distance of about a
// third of the name's length and at most one more than the closest, closest
// first.
func nearest(name string, candidates []string) []string {
	type scored struct {
		name string
		dist int
	}
	limit := max(2, len([]rune(name))/3)
	var found []scored
	for _, c := range candidates {
		if d := distance(strings.ToLower(name), strings.ToLower(c)); d <= limit {
			found = append(found, scored{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return a.dist - b.dist })
	out := make([]string, 0, 3)
	for i := 0; i < len(found) && i < 3 && found[i].dist <= found[0].dist+1; i++ {
		out = append(out, found[i].name)
	}
	return out
}

// distance is the Levenshtein distance between a and b, in runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// quoteList renders names as "'a', 'b' or 'c'" (conj "or").
func quoteList(names []string, conj string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return joinList(q, conj)
}

// joinList renders items as "a, b or c" (conj "or").
func joinList(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}
