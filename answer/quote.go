package answer

import "strconv"

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
