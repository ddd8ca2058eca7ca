package nodes

import (
	"regexp"
	"strings"
)

// A typed message takes a button's action without a model call only when
// the whole message is that button's command: "export", "export the
// results as csv", "show me the SQL", "SQL for the last answer". A word of
// a command inside a question ("Which publishers export the most games?",
// "Which countries export coffee?") is the data's word, so anything more
// than the command goes to the classifier, which knows both intents.
var (
	// exportObject is what an export may name: the answer, never a subject
	// of the data.
	exportObject = `(?:it|this|that|these|those|them|everything|all(?: of)?(?: (?:it|this|that|them|the (?:rows|data|results?)))?|` +
		`(?:the )?(?:(?:whole|full|entire|complete|last|previous|latest) )?(?:results?|data|table|answer|rows|output))`
	// exportFile is the file it goes to.
	exportFile = `(?:(?:a|an|the) )?(?:csv(?: file)?|file|spreadsheet|excel(?: file)?)`
	csvCommand = regexp.MustCompile(`^(?:` +
		// "export", "export that", "download the results as csv", "export to csv"
		`(?:export|download)(?: ` + exportObject + `)?(?: (?:as|to|in|into) ` + exportFile + `)?` +
		// "save as csv", "give me that as a csv", "put it in a spreadsheet"
		`|(?:save|put|send|get|give)(?: (?:me|us))?(?: ` + exportObject + `)? (?:as|to|in|into) ` + exportFile +
		// "get the csv", "give me a csv file", "download the csv of that"
		`|(?:get|give|send|download|export)(?: (?:me|us))? (?:(?:a|an|the) )?(?:csv(?: file)?|file)(?: (?:of|for) ` + exportObject + `)?` +
		// "csv", "export csv", "as csv", "csv file", "csv of that"
		`|(?:export )?(?:as )?(?:a )?csv(?: (?:export|file|download))?(?: (?:of|for) ` + exportObject + `)?` +
		`)$`)

	// sqlReference names an earlier answer the way a button would: the
	// latest, or the one just shown.
	sqlReference = `(?:it|this|that|these|those|them|above|the (?:last|previous|latest) (?:one|answer|result|results|question|query|chart|table)|` +
		`the (?:answer|result|results|chart|table|one)(?: above)?)`
	showVerb       = `(?:show|see|view|display|print|give|send|reveal|share)(?: (?:me|us))?`
	showSQLCommand = regexp.MustCompile(`^(?:` +
		// "show sql", "show me the query", "show the SQL for that"
		showVerb + ` (?:the |your |that |this )?(?:sql(?: (?:query|code|statement))?|query)(?: (?:for|of|behind|used for|from) ` + sqlReference + `)?` +
		// "show the SQL for the publishers query": after "show … sql" the
		// words can only say which answer (ShowSQL finds it by them).
		`|` + showVerb + ` (?:the |your )?sql(?: query)? (?:for|of|behind|used for) \S+(?: \S+){0,9}` +
		// "sql", "the sql", "SQL for the last answer"
		`|(?:the )?sql(?: (?:query|code|statement))?(?: (?:for|of|behind|used for) ` + sqlReference + `)?` +
		// "what sql", "what's the query", "what query did you use", "which query was that"
		`|(?:what|which)(?: was| is|'s)? (?:the )?(?:sql(?: query)?|query)` +
		`(?: (?:did you (?:use|run|write)|(?:was|is) (?:used|run|that|this|it)))?(?: (?:for|behind) ` + sqlReference + `)?` +
		`)$`)
)

var (
	// commandNoise is what a command's words are read without: case,
	// punctuation and curly apostrophes.
	commandNoise = regexp.MustCompile(`[^\p{L}\p{N}']+`)
	// commandOpening and commandClosing are courtesy around a command
	// ("can you …", "… please").
	commandOpening = regexp.MustCompile(`^(?:(?:hey|hi|ok|okay|now|also|so|then|and)\s+)*` +
		`(?:(?:please|pls|kindly)\s+|(?:can|could|would|will|may)\s+(?:you|i|we)\s+(?:please\s+)?|(?:i'd|i\s+would)\s+like\s+(?:to\s+)?|i\s+want\s+(?:to\s+)?|let\s+me\s+)*`)
	commandClosing = regexp.MustCompile(`(?:\s+(?:please|pls|thanks|thank\s+you|thx|again|now))+$`)
)

// commandWords is msg as a command is matched: lower case, words alone,
// without the courtesy around them.
func commandWords(msg string) string {
	s := strings.ReplaceAll(strings.ToLower(msg), "’", "'")
	s = strings.TrimSpace(commandNoise.ReplaceAllString(s, " "))
	s = strings.Trim(s, "'")
	s = commandOpening.ReplaceAllString(s, "")
	return commandClosing.ReplaceAllString(s, "")
}

// keywordIntent returns the intent a message is the command of (the
// table's Words), if any.
func keywordIntent(msg string) (Intent, bool) {
	if len(msg) > maxCommandLen {
		return "", false
	}
	w := commandWords(msg)
	if w == "" {
		return "", false
	}
	for _, s := range Intents {
		if s.Words != nil && s.Words.MatchString(w) {
			return s.Intent, true
		}
	}
	return "", false
}

// maxCommandLen bounds the messages read as a command: a command is short.
const maxCommandLen = 200
