package grounding

import (
	"strings"
	"unicode"
)

// stopWords say nothing about which tables a question needs.
var stopWords = set("a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "and", "or",
	"is", "are", "was", "were", "be", "been", "do", "does", "did", "how", "many", "much", "what", "which",
	"who", "whom", "whose", "when", "where", "why", "that", "this", "these", "those", "it", "its", "there",
	"me", "my", "we", "our", "you", "your", "i", "show", "list", "give", "tell", "find", "get", "all", "any",
	// Pronouns and their forms (Snowball's English stop words): "how many
	// classes have they taught" says nothing of a value starting "The …".
	// Not "us": it is the United States as often.
	"they", "them", "their", "theirs", "themselves", "he", "him", "his", "himself", "she", "her", "hers",
	"herself", "itself", "ours", "ourselves", "yours", "yourself", "yourselves", "myself",
	"each", "every", "per", "than", "then", "as", "most", "least", "more", "less", "top", "have", "has",
	"had", "not", "no", "yes", "can", "could", "would", "should", "about", "into", "over", "under", "between",
	"id", "ids",
	// Words of the question's arithmetic, not of its data: a column named
	// total_credit says nothing about "the total number of citations".
	"made", "make", "total", "number", "count", "sum", "average", "avg", "percentage", "percent", "ratio", "return",
	// Words placing a time relative to today: "in the past 30 days".
	"past", "ago", "last", "next", "previous", "recent", "current", "today", "yesterday", "inclusive", "exclusive")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// words splits text into lower-case words: on anything that is not a
// letter or a digit, on snake_case and on camelCase ("releaseYear",
// "release_year" and "Release Year" all give "release", "year"), each
// reduced to a crude singular so "games" meets "game" and "categories"
// meets "category". Other forms of a word ("voted" and votes) meet by
// their Snowball stems (lexicon.Stem, forms), for a little less.
func words(text string) []string {
	var out []string
	eachWord(text, func(w string) { out = append(out, w) })
	return out
}

// eachWord calls f with each of words(text) in turn. The words are
// substrings of text, lowered and made singular only when that changes
// them, so most cost no allocation: every question ranks every table's
// words.
func eachWord(text string, f func(string)) {
	start := -1 // where the current word starts, -1 between words
	var prev rune
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			// A capital after a lower-case letter starts a word: "releaseYear".
			if start >= 0 && unicode.IsUpper(r) && unicode.IsLower(prev) {
				f(singular(strings.ToLower(text[start:i])))
				start = i
			}
			if start < 0 {
				start = i
			}
		case start >= 0:
			f(singular(strings.ToLower(text[start:i])))
			start = -1
		}
		prev = r
	}
	if start >= 0 {
		f(singular(strings.ToLower(text[start:])))
	}
}

// singular strips the common English plural endings of w.
func singular(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && (strings.HasSuffix(w, "ses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes")):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// timeUnits, after a number, make a length of time ("30 days"), which
// names no table or value.
var timeUnits = set("second", "minute", "hour", "day", "week", "month", "quarter", "year")

// terms are the words of a question that may name data: words without the
// stop words and lengths of time, each once.
func terms(question string) []string {
	var out []string
	seen := map[string]bool{}
	ws := words(question)
	for i, w := range ws {
		if i > 0 && timeUnits[w] && isNumber(ws[i-1]) {
			continue
		}
		if len(w) < 2 || stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}
