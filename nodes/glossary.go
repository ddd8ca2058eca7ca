package nodes

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/analyticsbot/analyticsbot/lexicon"
	"github.com/analyticsbot/analyticsbot/warehouse"
)

// glossaryFor returns the entries of the team's glossary the question
// names that ctx's caller may be shown, and the lexicon grounding is to
// relate the question's words with. Without an access policy, every entry.
// Under one, an entry whose meaning names a table, view or cube of the
// backend that is outside the caller's catalog (cat) is left out, term
// and all, of the generator's prompt, `context` and MCP's get_context, and
// relates no words: its meaning would tell of what the caller may not
// read, which a refusal never lists (docs/access.md). A meaning is free
// text: it names a table by schema.table, or by its name alone when no
// table the caller may read has that name, as a word of its own, in any
// case ("analytics.publishers", "publishers"; not "publisher", nor
// "app_publishers" for publishers). The backend's whole catalog (cached)
// is read only when an entry the question names has a meaning; when it
// cannot be read, every entry with a meaning is left out.
func (n *Nodes) glossaryFor(ctx context.Context, s *State, cat *warehouse.Catalog) ([]lexicon.GlossaryMatch, *lexicon.Lexicon) {
	if n.Lexicon == nil {
		return nil, nil
	}
	matches := n.Lexicon.Glossary.Match(s.Question())
	caller := warehouse.CallerOf(ctx)
	if caller.Access == nil || !slices.ContainsFunc(matches, func(m lexicon.GlossaryMatch) bool { return m.Entry.Means != "" }) {
		return matches, n.Lexicon
	}
	caller.Access, caller.Shared = nil, nil
	whole, err := n.Warehouse.Catalog(warehouse.WithCaller(ctx, caller))
	if err != nil {
		s.note("glossary meanings left out: the whole catalog could not be read: " + err.Error())
		n.Logger.WarnContext(ctx, "glossary: read the whole catalog", "err", err)
	}
	var hidden [][]string
	if err == nil {
		hidden = namesOutside(whole, cat)
	}
	shown := make([]lexicon.GlossaryMatch, 0, len(matches))
	for _, m := range matches {
		if m.Entry.Means == "" || err == nil && !namesAny(identWords(m.Entry.Means), hidden) {
			shown = append(shown, m)
		}
	}
	if len(shown) == len(matches) {
		return matches, n.Lexicon
	}
	g := &lexicon.Glossary{}
	for _, m := range shown {
		g.Entries = append(g.Entries, m.Entry)
	}
	return shown, &lexicon.Lexicon{WordNet: n.Lexicon.WordNet, Glossary: g}
}

// namesOutside are the ways a text may name a table of whole that is not
// in cat (nor a partition of one that is), each as its words
// (identWords): schema and name, and the name alone when no table of cat
// has it.
func namesOutside(whole, cat *warehouse.Catalog) [][]string {
	visible, visibleName := map[string]bool{}, map[string]bool{}
	for _, t := range append(slices.Clip(cat.Tables), cat.Partitions...) {
		visible[strings.ToLower(t.QualifiedName())] = true
		visibleName[strings.ToLower(t.Name)] = true
	}
	var out [][]string
	for _, t := range append(slices.Clip(whole.Tables), whole.Partitions...) {
		if visible[strings.ToLower(t.QualifiedName())] || slices.ContainsFunc(t.Parents, func(p warehouse.TableRef) bool {
			return visible[strings.ToLower(p.String())]
		}) {
			continue
		}
		name := identWords(t.Name)
		if t.Schema != "" {
			out = append(out, append(identWords(t.Schema), name...))
		}
		if !visibleName[strings.ToLower(t.Name)] {
			out = append(out, name)
		}
	}
	return out
}

// identWords are text's words as a query names things: lower case, split
// on anything but letters, digits and underscores ("analytics.app_publishers"
// is analytics, app_publishers).
func identWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// namesAny reports whether words hold any of names as a run of words.
func namesAny(words []string, names [][]string) bool {
	for _, name := range names {
		for i := 0; len(name) > 0 && i+len(name) <= len(words); i++ {
			if slices.Equal(words[i:i+len(name)], name) {
				return true
			}
		}
	}
	return false
}
