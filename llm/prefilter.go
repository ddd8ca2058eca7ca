package llm

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// prefilter holds texts that every match of a rule's expression contains:
// the literal parts of its top-level sequence, groups included. A prompt
// without one of them cannot match, which a substring search finds far
// sooner than running the expression over a prompt of 10 KB: a scripted
// model tries every rule of a step in turn, for every call.
type prefilter struct {
	exact []string // case-sensitive
	folds []string // case-insensitive, as foldCanon spells them
}

// newPrefilter reads the required literals of expr, which compiles with
// regexp.Compile; an expression it cannot read requires none.
func newPrefilter(expr string) prefilter {
	var p prefilter
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return p
	}
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpConcat:
			for _, sub := range r.Sub {
				walk(sub)
			}
		case syntax.OpCapture, syntax.OpPlus:
			walk(r.Sub[0]) // present at least once
		case syntax.OpRepeat:
			if r.Min >= 1 {
				walk(r.Sub[0])
			}
		case syntax.OpLiteral:
			lit := string(r.Rune)
			if strings.ContainsRune(lit, utf8.RuneError) {
				return // matches an invalid byte, which no substring search finds
			}
			if r.Flags&syntax.FoldCase != 0 {
				p.folds = append(p.folds, foldCanon(lit))
			} else {
				p.exact = append(p.exact, lit)
			}
		}
	}
	walk(re)
	return p
}

// may reports whether prompt may match: it holds every required literal.
// canon is foldCanon(prompt), computed on first need and kept for the
// other rules.
func (p prefilter) may(prompt string, canon *string) bool {
	for _, lit := range p.exact {
		if !strings.Contains(prompt, lit) {
			return false
		}
	}
	if len(p.folds) == 0 {
		return true
	}
	if *canon == "" {
		*canon = foldCanon(prompt)
	}
	for _, lit := range p.folds {
		if !strings.Contains(*canon, lit) {
			return false
		}
	}
	return true
}

// foldCanon spells s with each rune replaced by the least rune that
// matches it case-insensitively (its simple case-folding orbit, as the
// regexp package folds): 'k', 'K' and the Kelvin sign are all 'K'. Two
// texts equal under (?i) have the same foldCanon. An invalid byte becomes
// U+FFFD.
//
// It is strings.Map(canonRune, s) without a call per rune: the scripted
// model folds a prompt of 10 KB, mostly ASCII, for every call. Runes are
// folded into a buffer on the stack, ASCII bytes by a table, and the
// buffer copied into the result, allocated once.
func foldCanon(s string) string {
	var out strings.Builder
	out.Grow(len(s))
	var buf [1024]byte
	n := 0
	for i := 0; i < len(s); {
		if n > len(buf)-utf8.UTFMax {
			out.Write(buf[:n])
			n = 0
		}
		if c := s[i]; c < utf8.RuneSelf {
			buf[n] = asciiCanon[c]
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += utf8.EncodeRune(buf[n:], canonRune(r))
		i += size
	}
	out.Write(buf[:n])
	return out.String()
}

// asciiCanon is canonRune of each ASCII byte: a-z in upper case.
var asciiCanon = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		t[c] = byte(canonRune(rune(c)))
	}
	return t
}()

// canonRune is the least rune of r's simple case-folding orbit.
func canonRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	least := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}
