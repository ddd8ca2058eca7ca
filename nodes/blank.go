package nodes

import (
	"regexp"
	"unicode"
)

// escapeSequence is a terminal's escape sequence (CSI, OSC, or a two-byte
// escape; CSI also by its C1 byte): what a pasted "\x1b[2J" shows is
// nothing, though "[2J" are letters.
var escapeSequence = regexp.MustCompile("\x1b\\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)?|\x1b[ -~]")

// Blank reports whether text has no character a reader sees: nothing but
// spaces, control and format characters (NUL, U+200B zero-width space,
// U+FEFF, bidi marks), combining marks with nothing to combine with,
// default-ignorable fillers (U+3164) and escape sequences. Such a message
// is an empty one (ErrEmptyMessage): no model is asked and no turn kept.
func Blank(text string) bool {
	for _, r := range escapeSequence.ReplaceAllString(text, "") {
		if !invisible(r) {
			return false
		}
	}
	return true
}

func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Z, unicode.Mn, unicode.Me,
		unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point) || r == '\u2800'
}
