package warehouse

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Redacted is what stands for a value taken out of an error's text.
const Redacted = "…"

// quotes are the quotation marks PostgreSQL's messages use, in English
// and in the translations lc_messages may pick, by opening mark.
var quotes = map[rune]rune{'"': '"', '“': '”', '„': '“', '«': '»', '»': '«', '「': '」'}

// RedactQuoted replaces in text, an error a data source wrote, each
// quoted part and each number that keep does not report with "…": a
// database quotes the value a cast or a parse failed on (`invalid input
// syntax for type integer: "ann@corp.test"`), which a query's own words
// (what keep reports) never need to show. A quoted part not kept is
// redacted up to the last closing mark of its kind, so a value holding the
// mark itself cannot end the quote early and show its rest.
func RedactQuoted(text string, keep func(string) bool) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if closing, ok := quotes[r]; ok {
			body := text[i+size:]
			end := strings.IndexRune(body, closing)
			if end >= 0 && keep(body[:end]) {
				b.WriteString(text[i : i+size+end+utf8.RuneLen(closing)])
				i += size + end + utf8.RuneLen(closing)
				continue
			}
			b.WriteRune(r)
			b.WriteString(Redacted)
			if last := strings.LastIndex(body, string(closing)); last >= 0 {
				b.WriteRune(closing)
				i += size + last + utf8.RuneLen(closing)
			} else {
				i = len(text)
			}
			continue
		}
		if unicode.IsDigit(r) && (i == 0 || !isWordByte(text[i-1])) {
			end := i
			for end < len(text) && (isWordByte(text[end]) || strings.IndexByte(".:+-", text[end]) >= 0) {
				end++
			}
			// A sentence's full stop is not part of the number.
			for end > i+1 && strings.IndexByte(".:+-", text[end-1]) >= 0 {
				end--
			}
			if n := text[i:end]; keep(n) {
				b.WriteString(n)
			} else {
				b.WriteString(Redacted)
			}
			i = end
			continue
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Written reports whether a query wrote s (one of its words) or s names
// something of the caller's catalog (known), or is a dotted name of such
// parts (PostgreSQL says "employees.email" for a column the query named
// email, reading employees): what RedactQuoted may keep.
func Written(s string, words map[string]bool, known func(string) bool) bool {
	if words[s] || known(s) {
		return true
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !words[p] && !known(p) {
			return false
		}
	}
	return true
}
