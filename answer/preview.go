package answer

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Preview turns the interpreter's reply, chunk by chunk as the model
// streams it, into the text a user reads. The prompt asks for
// {"answer": "…"}: the JSON around the answer is dropped and its escapes
// decoded as they arrive. A code fence around the JSON is skipped, and a
// reply that is not JSON passes through as it is. The text it gives is a
// preview: the workflow's reply carries the checked answer. The web chat
// streams it; Slack streams it where the workspace can.
type Preview struct {
	mode answerMode
	// buf holds what cannot be told yet: the start of the reply, JSON
	// before the answer, an escape or a character cut by a chunk.
	buf string
}

type answerMode int

const (
	modeDetect answerMode = iota // reading the start of the reply
	modeKey                      // inside the JSON, before the answer's string
	modeString                   // inside the answer's string
	modePlain                    // a reply that is not JSON
	modeDone                     // the answer ended, or cannot be found
)

// Bounds on what is held back waiting for the reply's shape.
const (
	maxFenceLine = 32
	maxBeforeKey = 4096
)

// answerKey finds the start of the answer's string in the JSON object.
var answerKey = regexp.MustCompile(`"answer"\s*:\s*"`)

// Feed takes the next chunk and returns the text it completes, maybe "".
func (a *Preview) Feed(chunk string) string {
	a.buf += chunk
	var out strings.Builder
	for {
		switch a.mode {
		case modeDetect:
			if !a.detect() {
				return out.String()
			}
		case modeKey:
			loc := answerKey.FindStringIndex(a.buf)
			if loc == nil {
				if len(a.buf) > maxBeforeKey {
					a.mode, a.buf = modeDone, ""
				}
				return out.String()
			}
			a.buf, a.mode = a.buf[loc[1]:], modeString
		case modeString:
			out.WriteString(a.decodeString())
			return out.String()
		case modePlain:
			text, rest := completeRunes(a.buf)
			a.buf = rest
			out.WriteString(text)
			return out.String()
		default:
			a.buf = ""
			return out.String()
		}
	}
}

// detect decides the reply's shape from its start and reports whether it
// could; a fence line is skipped.
func (a *Preview) detect() bool {
	a.buf = strings.TrimLeft(a.buf, " \t\r\n")
	switch {
	case a.buf == "":
		return false
	case strings.HasPrefix(a.buf, "```"):
		nl := strings.IndexByte(a.buf, '\n')
		if nl < 0 {
			if len(a.buf) > maxFenceLine {
				a.mode = modePlain
				return true
			}
			return false
		}
		a.buf = a.buf[nl+1:]
		return true
	case strings.HasPrefix("```", a.buf):
		return false // "`" or "``": a fence, or plain text with code
	case a.buf[0] == '{':
		a.mode = modeKey
	default:
		a.mode = modePlain
	}
	return true
}

// decodeString decodes the answer's JSON string from buf up to its closing
// quote, keeping an escape or a character cut at the end for the next
// chunk.
func (a *Preview) decodeString() string {
	var out strings.Builder
	s := a.buf
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			a.mode, a.buf = modeDone, ""
			return out.String()
		case c == '\\':
			r, n, ok := unescapeJSON(s[i:])
			if !ok {
				a.buf = s[i:]
				return out.String()
			}
			out.WriteString(r)
			i += n
		default:
			if !utf8.FullRuneInString(s[i:]) {
				a.buf = s[i:]
				return out.String()
			}
			_, n := utf8.DecodeRuneInString(s[i:])
			out.WriteString(s[i : i+n])
			i += n
		}
	}
	a.buf = ""
	return out.String()
}

// unescape decodes the JSON escape at the start of s, returning its text
// and length; ok is false when s ends before the escape does.
func unescapeJSON(s string) (text string, n int, ok bool) {
	if len(s) < 2 {
		return "", 0, false
	}
	switch s[1] {
	case 'u':
		if len(s) < 6 {
			return "", 0, false
		}
		r, ok := hex4(s[2:6])
		switch {
		case !ok:
			return "", 6, true // malformed: dropped, not waited on
		case !utf16.IsSurrogate(r):
			return string(r), 6, true
		case len(s) >= 8 && s[6:8] != `\u`:
			return string(utf8.RuneError), 6, true // half a pair
		case len(s) < 12:
			return "", 0, false
		}
		lo, ok := hex4(s[8:12])
		if pair := utf16.DecodeRune(r, lo); ok && pair != utf8.RuneError {
			return string(pair), 12, true
		}
		return string(utf8.RuneError), 6, true
	case 'n':
		return "\n", 2, true
	case 't':
		return "\t", 2, true
	case 'r':
		return "\r", 2, true
	case 'b':
		return "\b", 2, true
	case 'f':
		return "\f", 2, true
	default: // \" \\ \/ and anything a sloppy model escapes
		return s[1:2], 2, true
	}
}

// hex4 parses four hex digits.
func hex4(s string) (rune, bool) {
	v, err := strconv.ParseUint(s, 16, 16)
	return rune(v), err == nil
}

// completeRunes splits s before a character cut at its end.
func completeRunes(s string) (text, rest string) {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i], s[i:]
			}
			break
		}
	}
	return s, ""
}
