package schedule

import (
	"regexp"
	"strings"
	"time"
	"unicode"
)

var (
	// alertIntentRe asks to be told about the answer in so many words.
	alertIntentRe = regexp.MustCompile(`\b(?:alert|notify|warn|ping|page)\s+(?:me|us|the\s+team|the\s+channel|everyone|#[a-z0-9_-]+)\b` +
		`|\b(?:set\s+up|setup|create|add|make)\s+(?:an?\s+)?(?:new\s+)?(?:daily\s+|weekly\s+|monthly\s+|hourly\s+)?(?:alert|schedule|reminder|scheduled\s+report|recurring\s+report|notification)s?\b` +
		`|\bsubscribe\s+(?:me|us)\b|\bkeep\s+an\s+eye\s+on\s+(?:this|it|that)\b`)
	// watchRe is "watch this", "monitor it": a request only with a
	// condition or a recurrence.
	watchRe = regexp.MustCompile(`\b(?:watch|monitor)\s+(?:this|it|that)\b`)
	// tellIfRe is "let me know when", "tell me if": a request only when a
	// condition follows.
	tellIfRe = regexp.MustCompile(`\b(?:tell|let)\s+(?:me|us)\s+(?:know\s+)?(?:when|whenever|if|once|as\s+soon\s+as)\b`)
	// tellEveryRe is "remind me every morning", "tell me this weekly".
	tellEveryRe = regexp.MustCompile(`\b(?:tell|let|remind)\s+(?:me|us)\s+(?:know\s+)?(?:(?:about|of)\s+)?(?:this\s+|it\s+|that\s+)?(?:every|each|daily|weekly|monthly|hourly|once\s+a)\b`)
	// sendRe is "send me this", "post the results": a request only with a
	// recurrence or a time.
	sendRe = regexp.MustCompile(`\b(?:send|post|share|deliver|drop|email|dm|message|forward|run|rerun|re-run|refresh|repeat|give)\s+(?:me\s+|us\s+)?(?:this|it|that|these|the\s+same|this\s+(?:one|answer|report|chart|table|query|result|results)|the\s+(?:answer|results?|report|chart|table|query))\b(\s+(?:of|for|who|whose|where|which|that|from|about|on\s+how)\b)?`)
	// scheduleRe is "schedule this", "make this a weekly report", "turn it
	// into a schedule"; not "make it weekly", which may ask for weekly
	// figures.
	scheduleRe = regexp.MustCompile(`\bschedule\s+(?:this|it|that|these|the\s+(?:answer|report|query|results?|chart|table)|a\s+(?:daily|weekly|monthly|hourly|recurring|regular)|daily|weekly|monthly|hourly|for\s+every|every|each)\b` +
		`|\b(?:make|turn)\s+(?:this|it)\s+(?:into\s+)?an?\s+(?:daily|weekly|monthly|hourly|recurring|regular|scheduled)\s+(?:report|schedule|alert|update|message|email|digest|post)\b` +
		`|\b(?:make|turn)\s+(?:this|it)\s+(?:recurring|scheduled|into\s+a\s+schedule)\b`)
	// leadInRe are the openings that say nothing: "hey", "ok", "can you".
	leadInRe = regexp.MustCompile(`^(?:(?:hey|hi|hello|ok|okay|so|and|also|now|then|please|pls|great|thanks|thank\s+you|cool|nice|perfect|can\s+you|could\s+you|would\s+you|will\s+you|can\s+i|could\s+i|i\s+want\s+to|i\s+would\s+like\s+to)\s+)+`)
	// questionRe opens a data question.
	questionRe = regexp.MustCompile(`^(?:how|what|which|who|whom|whose|why|where|when|did|does|do|is|are|was|were|has|have|had|should|show|list|count|compare|plot|chart|graph|break|top|sum|total|average|find|display|calculate|tell\s+me\s+(?:the|how|what|which|who|about))\b`)
	// fillerRe are the words a schedule request may hold besides its parts.
	fillerRe = regexp.MustCompile(`\b(?:this|it|that|these|the\s+same|same|one|me|us|please|pls|plz|thanks|thank\s+you|thx|ty|can\s+you|could\s+you|would\s+you|will\s+you|i\s+would\s+like|i\s+want|i\s+would\s+love|give\s+me|get\s+me|and|also|too|then|again|as\s+well|ok|okay|hey|hi|just|so|now|going\s+forward|from\s+now\s+on|starting\s+now|on|at|to|in|for|a|an|the|checked|check|run|send|post|share|deliver|schedule|scheduled|report)\b|\|`)
)

// askingRe are the words with which a request asks, besides fillerRe's:
// what is left of a request without them are words no reader took.
var askingRe = regexp.MustCompile(`\b(?:about|alerts?|notify|warn|ping|page|tell|let|know|remind|keep\s+an\s+eye\s+on|watch|monitor|subscribe|set\s+up|setup|create|add|make|turn|into|email|dm|message|forward|drop|give|rerun|re-run|refresh|repeat|when|whenever|if|once|as\s+soon\s+as|reminders?|notifications?|recurring|regular|results?|answer|chart|table|query|digest|update|post|is\s+it\s+possible|possible|with|like|cronjob|cron)\b`)

// ignored is what of a request's leftover words no reader took, with the
// words that ask removed; "" when every word was read.
func ignored(leftover string) string {
	rest := fillerRe.ReplaceAllString(askingRe.ReplaceAllString(leftover, " "), " ")
	return strings.Join(strings.FieldsFunc(rest, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-'
	}), " ")
}

// maxRequestLen is the longest message IsRequest reads: asking for a
// schedule takes a sentence or two, and a long message is a question (or a
// paste) for the model.
const maxRequestLen = 500

// IsRequest reports whether a message asks to schedule or watch the
// thread's answer, so the router can send it here without the model. It is
// deliberately narrow: a data question that merely holds schedule words
// ("how many games were released every year", "which games have more than
// 100 reviews", "show monthly revenue") must reach the model, so a message
// counts only when it asks in so many words ("alert me", "send me this
// every Monday", "schedule this weekly", "let me know when it is above
// 100") or says nothing but a recurrence with a time, place or format
// ("every day at 9 please"). Messages over 500 bytes are never requests.
func IsRequest(text string) bool {
	if len(text) > maxRequestLen {
		return false
	}
	m := readMessage(text)
	norm := m.text
	question := questionRe.MatchString(leadInRe.ReplaceAllString(norm, ""))
	alert := alertIntentRe.MatchString(norm)
	if question && !alert {
		// Most messages: a data question that asks for no alert, known
		// without the readers.
		return false
	}
	r := readFrom(m, time.UTC)
	hasCondition := r.req.Condition.Kind != "" || r.condAsked
	recurs := r.rec.recurs()
	asked := r.rec.asked
	if question {
		return hasCondition || recurs
	}
	switch {
	case alert:
		return true
	case (tellIfRe.MatchString(norm) || watchRe.MatchString(norm)) && hasCondition, tellEveryRe.MatchString(norm):
		return true
	case watchRe.MatchString(norm) && recurs:
		return true
	}
	for _, loc := range scheduleRe.FindAllStringIndex(norm, -1) {
		if commands(norm[:loc[0]]) {
			return true
		}
	}
	for _, loc := range sendRe.FindAllStringSubmatchIndex(norm, -1) {
		if loc[2] < 0 && asked && commands(norm[:loc[0]]) {
			return true
		}
	}
	// Words that are only a recurrence ask for a schedule when they also
	// say a time, a place or a format: "every day" alone may be a follow-up
	// asking for daily figures.
	delivery := r.rec.timed || r.rec.spec != "" || r.req.To.Kind != "" || r.req.Format != "" || hasCondition
	return onlyFiller(r.leftover) && recurs && delivery
}

// commands reports whether the words before a verb leave it a command: they
// are only lead-ins and schedule words ("please", "every Monday"), not a
// subject ("users that send it every day").
func commands(before string) bool {
	return onlyFiller(read(before, time.UTC).leftover)
}

// onlyFiller reports whether what the readers left holds only words any
// request may hold.
func onlyFiller(leftover string) bool {
	return strings.TrimSpace(fillerRe.ReplaceAllString(leftover, " ")) == ""
}
