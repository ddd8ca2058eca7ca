package blockkit

import (
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/analyticsbot/analyticsbot/answer"
)

// Slack's documented limits that shape every message we build.
const (
	maxBlocks        = 50   // blocks in one message
	maxSectionText   = 3000 // characters in a section's text
	maxFallbackText  = 4000 // top-level text we send (Slack allows more; notifications show little)
	maxContextElems  = 10   // elements in one context block
	maxButtonValue   = 2000 // characters in a button value
	maxButtonText    = 75   // characters in a button's label
	maxActionElems   = 25   // elements in one actions block
	maxBlockID       = 255  // characters in a block_id
	maxTableRows     = 100  // rows in a table block, header row included
	maxTableColumns  = 20   // cells in one table row
	maxTableCellText = 200  // our own cap, so one long value cannot swamp the table
	maxListItems     = 10   // suggestions or examples we show
	maxListItemText  = 300  // characters of one suggestion or example
)

var slackEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

var slackUnescaper = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">")

// escape applies Slack's three control-character escapes. Only &, < and >
// are special; *bold* and _italic_ markers are left for Slack to format.
func escape(s string) string { return slackEscaper.Replace(s) }

// unescape reverses escape for terminal output.
func unescape(s string) string { return slackUnescaper.Replace(s) }

// textLen counts UTF-16 code units. Slack does not say how it counts
// characters; UTF-16 units are never fewer than runes, so a text that fits
// by this count fits by either.
func textLen(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// fitPrefix returns the largest byte index i such that textLen(s[:i]) <= budget,
// always on a rune boundary.
func fitPrefix(s string, budget int) int {
	n := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if n+w > budget {
			return i
		}
		n += w
	}
	return len(s)
}

// truncate shortens s to at most limit characters, ending with an ellipsis
// when something was cut.
func truncate(s string, limit int) string {
	if textLen(s) <= limit {
		return s
	}
	return s[:fitPrefix(s, limit-1)] + "…"
}

// truncateEscaped is truncate for text that is already escaped: it never
// cuts an entity such as &amp; in half.
func truncateEscaped(s string, limit int) string {
	if textLen(s) <= limit {
		return s
	}
	cut := safeCut(s, fitPrefix(s, limit-1))
	return s[:cut] + "…"
}

// safeCut moves a cut position back so it splits neither an entity nor a run
// of backticks (which could open or close a code fence).
func safeCut(s string, cut int) int {
	if amp := strings.LastIndexByte(s[:cut], '&'); amp >= 0 && cut-amp < 5 &&
		!strings.Contains(s[amp:cut], ";") {
		cut = amp
	}
	for cut > 0 && cut < len(s) && s[cut-1] == '`' && s[cut] == '`' {
		cut--
	}
	return cut
}

const (
	fenceOpen  = "```\n"
	fenceClose = "\n```"
)

// splitText cuts escaped mrkdwn into pieces of at most limit characters,
// preferring paragraph breaks, then line breaks, then spaces. A piece that
// ends inside a ``` code block is closed and the next one reopens it, so each
// piece renders on its own.
func splitText(s string, limit int) []string {
	var out []string
	inFence := false
	for s != "" {
		prefix := ""
		if inFence {
			prefix = fenceOpen
		}
		if textLen(prefix)+textLen(s) <= limit {
			out = append(out, prefix+s)
			break
		}
		budget := limit - textLen(prefix) - textLen(fenceClose)
		cut, skip := bestCut(s, budget)
		piece := s[:cut]
		s = s[cut+skip:]
		if inFence != (strings.Count(piece, "```")%2 == 1) {
			out = append(out, prefix+piece+fenceClose)
			inFence = true
			continue
		}
		out = append(out, prefix+piece)
		inFence = false
	}
	return out
}

// bestCut picks where to cut s so that s[:cut] fits budget, and how many
// separator bytes after the cut to drop.
func bestCut(s string, budget int) (cut, skip int) {
	window := s[:fitPrefix(s, budget)]
	minCut := len(window) / 3
	for _, sep := range []string{"\n\n", "\n", " "} {
		if i := strings.LastIndex(window, sep); i > minCut {
			return i, len(sep)
		}
	}
	cut = safeCut(s, len(window))
	if cut == 0 { // a pathological run of backticks or entities
		_, size := utf8.DecodeRuneInString(s)
		cut = size
	}
	return cut, 0
}

// formatElapsed renders a duration the way people read it (answer.FormatElapsed).
func formatElapsed(d time.Duration) string { return answer.FormatElapsed(d) }
