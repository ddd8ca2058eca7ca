package schedule

import (
	"regexp"
	"strings"
)

// The pieces of the condition patterns.
const (
	condLead = `\b(?:when|whenever|if|once|as\s+soon\s+as|in\s+case)\s+`
	// condSubject is the words naming the column, shortest first.
	condSubject = `((?:[a-z0-9_][a-z0-9_'-]*\s+){0,5}?)`
	condVerb    = `(?:(?:is|are|was|gets|get|goes|go|rises|rise|climbs|climb|jumps|jump|drops|drop|falls|fall|dips|dip|sinks|sink|stays|stay|becomes|become|ends\s+up|comes\s+in)\s+)?`
	condCompare = `(?:(no\s+more\s+than|not\s+more\s+than|at\s+most|<=|=<|≤)|` +
		`(at\s+least|no\s+less\s+than|not\s+less\s+than|>=|=>|≥|reaches|reach|hits|hit)|` +
		`(above|over|more\s+than|greater\s+than|higher\s+than|bigger\s+than|larger\s+than|exceeds|exceed|exceeding|tops|>)|` +
		`(below|under|less\s+than|fewer\s+than|lower\s+than|smaller\s+than|<))\s+`
	condChangeVerb = `(?:changes|change|moves|move|shifts|shift|swings|swing|varies|vary|fluctuates|fluctuate)`
	condDirection  = `(?:increases|increase|decreases|decrease|grows|grow|rises|rise|drops|drop|falls|fall|declines|decline|goes\s+up|go\s+up|goes\s+down|go\s+down|jumps|jump)`
	condRowSubject = `(?:it|this|that|the\s+results?|the\s+answer|the\s+query|the\s+table|the\s+result\s+set)`
	condRows       = `(?:rows?|results?|records?|entries|entry|lines?)`
)

var (
	anyRowsRe = regexp.MustCompile(condLead + `(?:` +
		`(?:there\s+(?:is|are)\s+)?(?:any|some|a|new)\s+` + condRows + `(?:\s+(?:appears?|shows?\s+up|comes?\s+back|exists?|turns?\s+up|is\s+returned|are\s+returned))?` +
		`|` + condRows + `\s+(?:appears?|shows?\s+up|comes?\s+back|exists?|turn\s+up)` +
		`|(?:anything|something)\s+(?:comes?\s+back|shows?\s+up|appears?|is\s+returned|turns?\s+up)` +
		`|` + condRowSubject + `\s+(?:is|are)\s+(?:not|no\s+longer)\s+empty` +
		`|` + condRowSubject + `\s+(?:returns|has|gets|finds)\s+(?:any|some)\s+` + condRows +
		`|` + condRowSubject + `\s+(?:returns|finds)\s+(?:anything|something)` +
		`)\b`)
	noRowsRe = regexp.MustCompile(condLead + `(?:` +
		condRowSubject + `\s+(?:is|are|comes\s+back|becomes|goes)\s+empty` +
		`|there\s+(?:is|are)\s+no\s+` + condRows +
		`|(?:nothing|no\s+` + condRows + `)\s+(?:comes?\s+back|is\s+returned|are\s+returned|shows?\s+up|appears?)` +
		`|` + condRowSubject + `\s+returns\s+(?:nothing|no\s+` + condRows + `|zero\s+` + condRows + `)` +
		`)\b`)
	changeRe  = regexp.MustCompile(condLead + condSubject + condChangeVerb + `(?:\s+by)?(?:\s+(?:more\s+than|over|at\s+least|above|>))?\s+` + numberPattern)
	compareRe = regexp.MustCompile(condLead + condSubject + condVerb + condCompare + numberPattern)
	// compareTailRe is a second limit joined to the first: "or below 5".
	compareTailRe = regexp.MustCompile(`\b(?:or|and)\s+` + condVerb + condCompare + numberPattern)
	directionRe   = regexp.MustCompile(condLead + condSubject + condDirection + `(?:\s+by)?(?:\s+(?:more\s+than|over|at\s+least))?\s+` + numberPattern)
	anyChangeRe   = regexp.MustCompile(condLead + condSubject + condChangeVerb + `\b`)
	// leftoverLeadRe finds a "when" or "if" no condition reader understood.
	leftoverLeadRe = regexp.MustCompile(`\b(?:when|whenever|if|as\s+soon\s+as)\s+[a-z0-9#]`)
	// politeIfRe are the "if"s that are not conditions.
	politeIfRe = regexp.MustCompile(`\b(?:if|when)\s+(?:possible|you\s+can|you\s+could|you\s+get\s+a\s+chance|that\s+is\s+ok|that's\s+ok|ok|okay|needed)\b`)
)

// genericSubjects are words that name the answer's number, not a column.
var genericSubjects = map[string]bool{
	"": true, "it": true, "this": true, "that": true, "there": true, "value": true, "number": true,
	"result": true, "results": true, "answer": true, "figure": true, "metric": true,
}

// Unclear sentences about conditions.
const (
	unclearCondition = "I couldn't read when to alert you: say e.g. “when count is above 100”, “when it changes by more than 20%” or “when any row appears”."
	unclearTwoConds  = "I read more than one condition: an alert has one, e.g. “when count is above 100”; make another alert for the other."
	unclearPercent   = "Say the change as a percentage, e.g. “when it changes by more than 20%”."
	unclearDirection = "I can watch for a change in either direction, not only a rise or a fall: say “when it changes by more than 20%”, or a limit such as “when it drops below 5,000”."
)

// readCondition takes the alert condition's words out of m. asked is
// true when words of a condition were read, even one whose number could
// not be read whole (unclear then says which): that number is never read
// as part of itself ("1e9" as 1).
func readCondition(m *message) (c Condition, unclear string, asked bool) {
	m.take(politeIfRe)
	var found []Condition
	if m.take(anyRowsRe) != nil {
		found = append(found, Condition{Kind: CondAnyRows})
	}
	if m.take(noRowsRe) != nil {
		found = append(found, Condition{Kind: CondNoRows})
	}
	for _, sub := range m.take(changeRe) {
		v, percent, ok := readNumber(sub[2], sub[3])
		asked = true
		switch {
		case !ok:
			unclear = first(unclear, unclearNumber(writtenNumber(sub[2], sub[3])))
		case !percent:
			unclear = first(unclear, unclearPercent)
		default:
			found = append(found, Condition{Kind: CondChange, Threshold: v, Column: column(sub[1])})
		}
	}
	for _, sub := range m.take(compareRe) {
		v, percent, ok := readNumber(sub[6], sub[7])
		asked = true
		if !ok {
			unclear = first(unclear, unclearNumber(writtenNumber(sub[6], sub[7])))
			continue
		}
		unit := UnitAsWritten
		if percent {
			unit = UnitPercent // "above 5%": the alert's maker reads the column
		}
		kinds := [4]ConditionKind{CondAtMost, CondAtLeast, CondAbove, CondBelow}
		for i, k := range kinds {
			if sub[2+i] != "" {
				found = append(found, Condition{Kind: k, Threshold: v, Column: column(sub[1]), Unit: unit})
			}
		}
	}
	more := len(m.take(compareTailRe))
	if m.take(directionRe) != nil {
		unclear = first(unclear, unclearDirection)
	}
	for _, sub := range m.take(anyChangeRe) {
		found = append(found, Condition{Kind: CondChange, Column: column(sub[1])})
	}
	asked = asked || len(found) > 0
	switch {
	case len(found)+more > 1:
		return Condition{}, first(unclear, unclearTwoConds), asked
	case len(found) == 1:
		return found[0], unclear, asked
	case unclear == "" && m.has(leftoverLeadRe):
		return Condition{}, unclearCondition, asked
	}
	return Condition{}, unclear, asked
}

// writtenNumber is a number and its suffix as the message wrote them.
func writtenNumber(number, suffix string) string {
	if suffix == "" || suffix == "%" {
		return number + suffix
	}
	return number + " " + suffix
}

// column is the column a condition's subject names, lower case as written,
// without articles; "" for words that name the answer's value.
func column(subject string) string {
	words := strings.Fields(subject)
	for len(words) > 0 && (words[0] == "the" || words[0] == "our" || words[0] == "my" || words[0] == "a" || words[0] == "an") {
		words = words[1:]
	}
	s := strings.Join(words, " ")
	if genericSubjects[s] {
		return ""
	}
	return s
}
