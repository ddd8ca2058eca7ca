package nodes

import (
	"fmt"
	"unicode/utf8"
)

// The most of the model's replies a turn keeps, in characters: a reply
// beyond them is cut with "…" and a note says so (the turn's log). They are
// far above what a good reply holds (the prompts ask for one sentence of
// explanation and 1-3 of answer) and keep a runaway reply from filling the
// stored turn, the web chat and the terminal. maxAnswerChars is Slack's
// limit on a section's text, so Block Kit shows the whole kept answer. A
// question the model rewrote (a follow-up made standalone) is kept to
// Nodes.MaxMessageLen, as a question asked is.
const (
	maxAssumptions      = 10
	maxAssumptionChars  = 300
	maxExplanationChars = 1000
	maxAnswerChars      = 3000
)

// capText is text cut at max characters, noting in s what was cut.
func (s *State) capText(what, text string, max int) string {
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	s.note(fmt.Sprintf("%s cut at %d of its %d characters", what, max, utf8.RuneCountInString(text)))
	return truncate(text, max)
}
