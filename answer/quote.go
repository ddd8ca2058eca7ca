package answer

import (
	"strconv"
	"strings"
)

// MaxQuoted is how many characters of untrusted input Quoted keeps: enough
// to recognise it, while a forged 10 KB value does not come back whole to
// the web API, an MCP client, the terminal or the log.
const MaxQuoted = 40

// Quoted quotes untrusted input (a press's action or value, a tool's
// argument) for the refusal that names it: cut to MaxQuoted characters (never
// inside one), the cut marked "…", and escaped as a Go string, so that
// control characters reach no terminal.
func Quoted(s string) string {
	if r := []rune(s); len(r) > MaxQuoted {
		s = string(r[:MaxQuoted-1]) + "…"
	}
	return strconv.Quote(s)
}

// Quote is someone's words in the bot's (a schedule's question in a note
// to its owner, the Schedule button's presets), in quotes and as they
// are: one plain span, never read as markup, so that a typed
// [label](https://…), <https://…|label>, *bold* or `code` is no link or
// emphasis of the bot's. Compose the bot's words around it with Words and
// Concat; never parse text a question was put into.
func Quote(s string) Text { return Plain("“" + s + "”") }

// Words reads the bot's own words s as ParseText does (`/ask schedules`
// as code), keeping the white space at its ends, which ParseText trims,
// so that pieces joined with Concat read as written.
func Words(s string) Text {
	core := strings.TrimSpace(s)
	if core == "" {
		return Plain(s)
	}
	lead := s[:strings.Index(s, core)]
	trail := s[len(lead)+len(core):]
	return Concat(Plain(lead), ParseText(core), Plain(trail))
}
