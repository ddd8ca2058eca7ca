package llm

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// lineScope is set for an expression whose every match lies within one
// line of the prompt that starts with a literal: "(?im)^Question: ...",
// where nothing matches a newline. Such an expression is run over the
// lines that start with the literal alone, not over a prompt of 10 KB,
// with the same outcome: within a line, ^, $ and \b see the line's edges
// as they see a newline.
type lineScope struct {
	ok   bool
	lit  []rune
	fold bool
}

// newLineScope reads expr, which compiles with regexp.Compile, as the
// regexp package does; an expression it cannot prove one-line has no
// scope.
func newLineScope(expr string) lineScope {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 ||
		re.Sub[0].Op != syntax.OpBeginLine || re.Sub[1].Op != syntax.OpLiteral || !oneLine(re) {
		return lineScope{}
	}
	lit := re.Sub[1]
	return lineScope{ok: true, lit: lit.Rune, fold: lit.Flags&syntax.FoldCase != 0}
}

// oneLine reports whether no part of r matches a newline or looks at the
// text's own edges (\A, \z), which a line's edges are not.
func oneLine(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpAnyCharNotNL,
		syntax.OpBeginLine, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		return !strings.ContainsRune(string(r.Rune), '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(r.Rune); i += 2 {
			if r.Rune[i] <= '\n' && '\n' <= r.Rune[i+1] {
				return false
			}
		}
		return true
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat,
		syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range r.Sub {
			if !oneLine(sub) {
				return false
			}
		}
		return true
	}
	return false // \A, \z, any character with (?s), what this does not know
}

// line is a line of a prompt, from start to end (its newline left out),
// and its foldCanon once a prefilter needs it.
type line struct {
	start, end int
	canon      string
}

// lines returns the lines of prompt that start with s's literal, in order.
func (s lineScope) lines(prompt string) []line {
	var out []line
	for start := 0; start <= len(prompt); {
		end := strings.IndexByte(prompt[start:], '\n')
		if end < 0 {
			end = len(prompt)
		} else {
			end += start
		}
		if s.startsLine(prompt[start:end]) {
			out = append(out, line{start: start, end: end})
		}
		start = end + 1
	}
	return out
}

// find runs re, whose scope s is, over prompt as re.FindStringSubmatchIndex
// does (with groups) or re.MatchString (without: a match is then []int{}).
func (s lineScope) find(re *regexp.Regexp, prompt string, groups bool) []int {
	for _, l := range s.lines(prompt) {
		if m := l.find(re, prompt, groups); m != nil {
			return m
		}
	}
	return nil
}

// find runs re over the line l of prompt: the indexes of its groups in
// prompt ([]int{} without groups), or nil.
func (l line) find(re *regexp.Regexp, prompt string, groups bool) []int {
	text := prompt[l.start:l.end]
	if !groups {
		if re.MatchString(text) {
			return []int{}
		}
		return nil
	}
	m := re.FindStringSubmatchIndex(text)
	for i := range m {
		if m[i] >= 0 {
			m[i] += l.start
		}
	}
	return m
}

// startsLine reports whether line starts with the literal, as the regexp
// package compares runes: an invalid byte is U+FFFD, and (?i) matches any
// rune of the same case-folding orbit.
func (s lineScope) startsLine(line string) bool {
	for _, want := range s.lit {
		r, size := utf8.DecodeRuneInString(line)
		if size == 0 {
			return false
		}
		if r != want && (!s.fold || canonRune(r) != canonRune(want)) {
			return false
		}
		line = line[size:]
	}
	return true
}
