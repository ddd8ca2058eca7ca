package llm

import "strings"

// promptScan is what the searches of one call's rules share, each worked
// out once, on first need: for each line scope, the lines that start with
// its literal, with their foldCanon; and the whole prompt's foldCanon. A
// one-line rule's prefilter is checked against its lines alone, so a
// prompt of 10 KB whose rules are one-line (the demo's classify and
// generate_sql rules, "(?im)^Question: ...") is never folded whole.
type promptScan struct {
	prompt string
	// canon is foldCanon(prompt), "" until a prefilter needs it.
	canon string
	// scopes holds each line scope's lines (lineScope.lines) by its id.
	scopes []scopeLines
}

// scopeLines are the lines of a prompt a line scope searches, once found.
type scopeLines struct {
	lines []line
	found bool
}

func newPromptScan(prompt string, scopes int) *promptScan {
	return &promptScan{prompt: prompt, scopes: make([]scopeLines, scopes)}
}

// lines returns the lines of the scope numbered id, s.
func (p *promptScan) lines(id int, s lineScope) []line {
	if sl := &p.scopes[id]; !sl.found {
		sl.lines, sl.found = s.lines(p.prompt), true
	}
	return p.scopes[id].lines
}

// find searches rule i's match in the call's prompt: the indexes of its
// groups in the leftmost match, as regexp.FindStringSubmatchIndex gives
// them (an empty slice for a match without groups), or nil. A one-line
// match is searched in the lines that start with its literal, each first
// checked by the rule's prefilter: a match within a line holds the
// literals the expression requires.
func (s *Scripted) find(i int, p *promptScan) []int {
	re, f := s.matches[i], s.filters[i]
	groups := re.NumSubexp() > 0
	if id := s.scopeIDs[i]; id >= 0 {
		lines := p.lines(id, s.scopes[i])
		for j := range lines {
			l := &lines[j]
			if !f.may(p.prompt[l.start:l.end], &l.canon) {
				continue
			}
			if m := l.find(re, p.prompt, groups); m != nil {
				return m
			}
		}
		return nil
	}
	if !f.may(p.prompt, &p.canon) {
		return nil
	}
	// Every match starts with the expression's literal prefix, so none
	// starts before its first occurrence. The expression is run from
	// there: the same leftmost match, over a shorter text (nothing before
	// the prefix is looked at: no ^ or \b precedes it), which the regexp
	// package searches by backtracking up to a length, and past it by a
	// slower automaton.
	from := 0
	if prefix, _ := re.LiteralPrefix(); prefix != "" {
		if from = strings.Index(p.prompt, prefix); from < 0 {
			return nil
		}
	}
	text := p.prompt[from:]
	switch {
	case groups:
		m := re.FindStringSubmatchIndex(text)
		for i := range m {
			if m[i] >= 0 {
				m[i] += from
			}
		}
		return m
	case re.MatchString(text):
		return []int{}
	}
	return nil
}
