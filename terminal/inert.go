package terminal

import (
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"
)

// Replacement is what Inert shows in place of a character that would
// drive the terminal rather than print: one column wide, like the glyph
// it stands for would be, so tables stay aligned.
const Replacement = "\uFFFD"

// Inert returns s safe to print on a terminal: every character that a
// terminal acts on instead of showing — C0 controls but the newline and
// tab, DEL, C1 controls, the bidirectional embeddings, overrides and
// isolates that reorder what follows them, and bytes that are not UTF-8
// — is shown as U+FFFD (�). A CRLF ends a line as a newline does. An
// escape sequence from the warehouse or the model ("\x1b[2J" clears the
// screen) thus prints as "�[2J", whatever the terminal; the bot's own
// styling is added around text that went through here.
func Inert(s string) string {
	if !needsInert(s) {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if active(r) || (r == utf8.RuneError && size <= 1) {
			b.WriteString(Replacement)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsInert reports whether Inert would change s.
func needsInert(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if active(r) || (r == utf8.RuneError && size <= 1) {
			return true
		}
		i += size
	}
	return false
}

// active reports whether a terminal acts on r rather than printing it.
func active(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0: // C0, DEL, C1
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	}
	return false
}

// flat is text from the data or the model on one line of the layout (a
// table cell, a listed question), made inert.
func flat(s string) string { return Inert(oneLine(s)) }

func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
}

// columns measures text in terminal columns, whatever the locale says:
// CJK and emoji take two, combining marks none, East Asian ambiguous
// characters (and U+FFFD) one.
var columns = &runewidth.Condition{StrictEmojiNeutral: true}

// width is how many columns s takes on a terminal.
func width(s string) int { return columns.StringWidth(s) }

// fit cuts s to at most n columns, marking the cut with "…".
func fit(s string, n int) string { return columns.Truncate(s, n, "…") }
