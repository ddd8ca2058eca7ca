package answer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

func TestParseLinks(t *testing.T) {
	t.Parallel()
	l, err := ParseLinks([]byte("links:\n  - column: name\n    url: https://store.steampowered.com/app/{app_id}/\n"))
	require.NoError(t, err)
	assert.Equal(t, Links{{Column: "name", URL: "https://store.steampowered.com/app/{app_id}/"}}, l)

	empty, err := ParseLinks(nil)
	require.NoError(t, err)
	assert.Empty(t, empty, "an empty file links nothing")

	for name, tc := range map[string]struct{ in, want string }{
		"javascript":        {"links:\n  - column: name\n    url: javascript:alert({name})\n", "line 2: url \"javascript:alert({name})\" is not an http(s) address"},
		"bad placeholder":   {"links:\n  - column: name\n    url: https://x.test/{a b}\n", "line 2: url placeholder {a b} is not a column name"},
		"no column":         {"links:\n  - url: https://x.test/\n", "line 2: column \"\" is not a column name"},
		"no url":            {"links:\n\n  - column: name\n", "line 3: the rule for name has no url"},
		"misspelled url":    {"links:\n  - column: name\n    href: https://x.test/\n", "line 2: the rule for name has no url"},
		"not a list":        {"links: 3\n", "links file"},
		"misspelled header": {"link:\n  - column: name\n", "links file"},
		"value in the host": {"links:\n  - column: name\n    url: https://shop.example{name}/\n", "line 2: url \"https://shop.example{name}/\" takes a value before its path"},
		"value as the host": {"links:\n  - column: name\n    url: https://{name}\n", "takes a value before its path"},
	} {
		_, err := ParseLinks([]byte(tc.in))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
}

func TestTableLinksAndText(t *testing.T) {
	t.Parallel()
	r := &warehouse.Result{
		Columns: []warehouse.Column{{Name: "name", Kind: warehouse.KindText}, {Name: "app_id", Kind: warehouse.KindNumber},
			{Name: "publisher", Kind: warehouse.KindText}},
		Rows: [][]any{
			{"Portal 2", int64(620), "Valve"},
			{"Half-Life", nil, "Valve Corporation"},
			{"Dota", int64(570), nil},
		},
	}
	links := Links{
		{Column: "name", URL: "https://store.steampowered.com/app/{app_id}/"},
		{Column: "publisher", URL: "https://store.steampowered.com/search/?publisher={publisher}"},
		{Column: "developer", URL: "https://x.test/{developer}"},
		{Column: "name", URL: "https://x.test/{missing}"},
	}
	a := &Answer{Result: r, Links: links.For(r)}
	assert.Equal(t, links[:2], a.Links, "only rules whose columns the result has")
	tb := a.Table()
	assert.Equal(t, "https://store.steampowered.com/app/620/", tb.Link(r.Rows[0], 0))
	assert.Equal(t, "", tb.Link(r.Rows[1], 0), "a NULL in the template: no link")
	assert.Equal(t, "https://store.steampowered.com/search/?publisher=Valve+Corporation", tb.Link(r.Rows[1], 2), "query values escaped")
	assert.Equal(t, "", tb.Link(r.Rows[0], 1), "a column without a rule")

	text := LinkText(ParseText("*Portal 2* by Valve Corporation and Valve beat Dota; `Valve` in code, Valves plural."), tb)
	assert.Equal(t, Text{
		{Text: "Portal 2", Bold: true, Link: "https://store.steampowered.com/app/620/"},
		{Text: " by "},
		{Text: "Valve Corporation", Link: "https://store.steampowered.com/search/?publisher=Valve+Corporation"},
		{Text: " and "},
		{Text: "Valve", Link: "https://store.steampowered.com/search/?publisher=Valve"},
		{Text: " beat "},
		{Text: "Dota", Link: "https://store.steampowered.com/app/570/"},
		{Text: "; "},
		{Text: "Valve", Code: true},
		{Text: " in code, Valves plural."},
	}, text)
	assert.Equal(t, ParseText("no links"), LinkText(ParseText("no links"), NewTable(r)), "a table without rules links nothing")
}

// The model's prose may link to the hosts the links file links to; a link
// elsewhere shows where it goes, after its label, and links nothing (its
// label could hide an address carrying the data it read).
func TestExposedLinks(t *testing.T) {
	t.Parallel()
	l, err := ParseLinks([]byte("links:\n  - column: name\n    url: https://store.steampowered.com/search/?term={name}\n"))
	require.NoError(t, err)
	assert.True(t, l.Trusts("store.steampowered.com"))
	assert.False(t, l.Trusts("evil.example"))

	text := ParseText("See [Portal](https://store.steampowered.com/search/?term=Portal), " +
		"[the full report](https://evil.example/login?d=Portal%3D4) and <https://evil.example/x>.")
	assert.Equal(t, Text{
		{Text: "See "},
		{Text: "Portal", Link: "https://store.steampowered.com/search/?term=Portal"},
		{Text: ", "},
		{Text: "the full report"},
		{Text: " ("},
		{Text: "https://evil.example/login?d=Portal%3D4", Code: true},
		{Text: ")"},
		{Text: " and "},
		{Text: "https://evil.example/x", Code: true},
		{Text: "."},
	}, text.Exposed(l.Trusts))
	var none Links
	for _, sp := range text.Exposed(none.Trusts) {
		assert.Empty(t, sp.Link, "no links file: no link of the model's stays")
	}
}
