package answer

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/analyticsbot/analyticsbot/warehouse"
)

// LinkRule turns the values of a result column into links: URL is a
// template whose {column} placeholders take the same row's values,
// escaped for a URL. A rule applies to a result that has its column and
// every column its template names.
type LinkRule struct {
	Column string `yaml:"column" json:"column"`
	URL    string `yaml:"url" json:"url"`
}

// Links are the rules of a links file (LINKS_FILE).
type Links []LinkRule

var placeholder = regexp.MustCompile(`\{([^{}]*)\}`)

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*$`)

// ParseLinks reads a links file:
//
//	links:
//	  - column: name
//	    url: https://store.steampowered.com/search/?term={name}
//
// Errors name the line of the rule at fault.
func ParseLinks(data []byte) (Links, error) {
	var doc struct {
		Links []yaml.Node `yaml:"links"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && err.Error() != "EOF" {
		return nil, fmt.Errorf("links file: %w", err)
	}
	var out Links
	for _, n := range doc.Links {
		var r LinkRule
		if err := n.Decode(&r); err != nil {
			return nil, fmt.Errorf("links file line %d: %w", n.Line, err)
		}
		if err := r.check(); err != nil {
			return nil, fmt.Errorf("links file line %d: %w", n.Line, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// LoadLinks reads the links file at path.
func LoadLinks(path string) (Links, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("links file: %w", err)
	}
	l, err := ParseLinks(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

func (r LinkRule) check() error {
	if !identifier.MatchString(r.Column) {
		return fmt.Errorf("column %q is not a column name", r.Column)
	}
	if strings.TrimSpace(r.URL) == "" {
		return fmt.Errorf("the rule for %s has no url", r.Column)
	}
	for _, m := range placeholder.FindAllStringSubmatch(r.URL, -1) {
		if !identifier.MatchString(m[1]) {
			return fmt.Errorf("url placeholder {%s} is not a column name", m[1])
		}
	}
	u, err := url.Parse(placeholder.ReplaceAllString(r.URL, "x"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("url %q is not an http(s) address", r.URL)
	}
	if i := strings.IndexByte(r.URL, '{'); i >= 0 && i < hostEnd(r.URL) {
		// A value there ("@evil.example", ".evil.example") would choose
		// the host.
		return fmt.Errorf("url %q takes a value before its path: the scheme and host must be written out", r.URL)
	}
	return nil
}

// hostEnd is where the host of an http(s) address ends: at the first /, ?
// or # after "://", or the end.
func hostEnd(u string) int {
	start := strings.Index(u, "://") + len("://")
	if i := strings.IndexAny(u[start:], "/?#"); i >= 0 {
		return start + i
	}
	return len(u)
}

// Trusts reports whether host is one the rules link to: the model's prose
// may link there (Text.Exposed).
func (l Links) Trusts(host string) bool {
	for _, rule := range l {
		u, err := url.Parse(rule.URL[:hostEnd(rule.URL)])
		if err == nil && strings.EqualFold(u.Host, host) {
			return true
		}
	}
	return false
}

// For returns the rules that apply to r.
func (l Links) For(r *warehouse.Result) Links {
	if r == nil {
		return nil
	}
	var out Links
	for _, rule := range l {
		if columnIndex(r, rule.Column) < 0 {
			continue
		}
		ok := true
		for _, m := range placeholder.FindAllStringSubmatch(rule.URL, -1) {
			ok = ok && columnIndex(r, m[1]) >= 0
		}
		if ok {
			out = append(out, rule)
		}
	}
	return out
}

func columnIndex(r *warehouse.Result, name string) int {
	for i, c := range r.Columns {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// link is the address of a cell under rule, "" when a value it needs is
// NULL. A value goes into the query string escaped as a query value, into
// the path as a path segment.
func (rule LinkRule) link(r *warehouse.Result, row []any) string {
	var b strings.Builder
	last := 0
	query := false
	for _, m := range placeholder.FindAllStringSubmatchIndex(rule.URL, -1) {
		b.WriteString(rule.URL[last:m[0]])
		query = query || strings.Contains(rule.URL[last:m[0]], "?")
		i := columnIndex(r, rule.URL[m[2]:m[3]])
		if i < 0 || i >= len(row) || row[i] == nil {
			return ""
		}
		if v := FormatValue(row[i]); query {
			b.WriteString(url.QueryEscape(v))
		} else {
			b.WriteString(url.PathEscape(v))
		}
		last = m[1]
	}
	b.WriteString(rule.URL[last:])
	return b.String()
}

// Link is the address cell (row, col) links to, "" when none.
func (t *Table) Link(row []any, col int) string {
	for _, rule := range t.links {
		if columnIndex(t.r, rule.Column) == col {
			return rule.link(t.r, row)
		}
	}
	return ""
}

// Table formats the answer's result with its links.
func (a *Answer) Table() *Table {
	if a.Result == nil {
		return NewTable(&warehouse.Result{})
	}
	t := NewTable(a.Result)
	t.links = a.Links
	t.withUnits(a.Units)
	return t
}

// maxTextLinks bounds the names linked in an answer's text.
const maxTextLinks = 10

// LinkText links, in text, the first mention of each linked value of the
// shown rows (names of at least three characters, whole words, longest
// first so "Valve Corporation" wins over "Valve"), at most maxTextLinks.
// Text already linked or code is left as it is.
func LinkText(text Text, t *Table) Text {
	if len(t.links) == 0 || len(text) == 0 {
		return text
	}
	type target struct{ value, url string }
	var targets []target
	seen := map[string]bool{}
	for _, row := range t.r.Rows[:min(len(t.r.Rows), maxStoredRows)] {
		for col := range t.r.Columns {
			s, ok := cellString(row, col)
			if !ok || len([]rune(s)) < 3 || seen[s] {
				continue
			}
			if u := t.Link(row, col); u != "" {
				seen[s] = true
				targets = append(targets, target{s, u})
			}
		}
	}
	sort.SliceStable(targets, func(i, j int) bool { return len(targets[i].value) > len(targets[j].value) })
	linked := 0
	for _, tg := range targets {
		if linked == maxTextLinks {
			break
		}
		var ok bool
		if text, ok = linkFirst(text, tg.value, tg.url); ok {
			linked++
		}
	}
	return text
}

func cellString(row []any, col int) (string, bool) {
	if col >= len(row) {
		return "", false
	}
	s, ok := row[col].(string)
	return strings.TrimSpace(s), ok && strings.TrimSpace(s) != ""
}

// linkFirst links the first whole-word mention of value in a span that is
// neither a link nor code.
func linkFirst(text Text, value, u string) (Text, bool) {
	for i, sp := range text {
		if sp.Link != "" || sp.Code {
			continue
		}
		at := wordIndex(sp.Text, value)
		if at < 0 {
			continue
		}
		before, after := sp, sp
		before.Text, after.Text = sp.Text[:at], sp.Text[at+len(value):]
		mid := sp
		mid.Text, mid.Link = value, u
		var parts Text
		for _, p := range []Span{before, mid, after} {
			if p.Text != "" {
				parts = append(parts, p)
			}
		}
		out := append(Text{}, text[:i]...)
		out = append(out, parts...)
		return append(out, text[i+1:]...), true
	}
	return text, false
}

// wordIndex finds value in s where it is not part of a longer word.
func wordIndex(s, value string) int {
	from := 0
	for {
		i := strings.Index(s[from:], value)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(value)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			return i
		}
		from = i + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}
