package bottest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// A shared channel's ceiling over the matrix's policies (docs/access.md,
// "Shared channels: a ceiling"): the matrix's access file with one more
// channel, whose answers may show only what the everyone policy allows.

// CeilingAccessFile is AccessFile(def) that also answers in channel, a
// Slack channel id, whose ceiling is the everyone policy.
func CeilingAccessFile(def, channel string) string {
	const admitted = "channels: [CDATA, web]"
	f := AccessFile(def)
	if !strings.Contains(f, admitted) {
		panic("bottest: AccessFile no longer says " + admitted)
	}
	return strings.Replace(f, admitted, "channels: [CDATA, "+channel+", web]", 1) +
		"channel_ceilings:\n  - channels: [" + channel + "]\n    policy: everyone\n"
}

// DefaultCeilingAccessFile is AccessFile(def) that answers in every
// channel and group DM, and caps what is posted in each with the everyone
// policy (default_ceiling), a group DM's id being unknown ahead; but CDATA,
// listed with policy none: no ceiling there.
func DefaultCeilingAccessFile(def string) string {
	const admitted = "  channels: [CDATA, web]\n"
	f := AccessFile(def)
	if !strings.Contains(f, admitted) {
		panic("bottest: AccessFile no longer says " + admitted)
	}
	return strings.Replace(f, admitted, "", 1) +
		"channel_ceilings:\n  - channels: [CDATA]\n    policy: none\ndefault_ceiling: everyone\n"
}

// CeilingCase is a question of the ceiling's tests, its scripted SQL, the
// sentence its answer says and the questions it suggests asking next.
type CeilingCase struct {
	Question, SQL, Answer string
	FollowUps             []string
}

// The ceiling's questions: one within the everyone policy, one the
// analysts may read but not everyone, one only the full policy may, and
// one more within it (a follow-up in the same thread).
var (
	CeilingWithin   = CeilingCase{"ceiling within", "SELECT count(*) AS games FROM analytics.apps", "Here is ceiling within.", nil}
	CeilingBeyond   = CeilingCase{"ceiling beyond", "SELECT count(*) AS links FROM analytics.app_developers", "Here is ceiling beyond.", nil}
	CeilingSalaries = CeilingCase{"ceiling salaries", "SELECT sum(amount) AS total FROM hr.salaries", "Salaries add up to the total.",
		[]string{"What is the average salary by country?"}}
	CeilingFollowUp = CeilingCase{"ceiling followup", "SELECT count(*) AS genres FROM analytics.genres", "Here is ceiling followup.", nil}
)

// SalaryTotal is the sum of hr.salaries, which CeilingSalaries returns,
// as a CSV writes it ("355700") and as an answer does ("355,700").
func SalaryTotal() (plain, grouped string) {
	total := 0
	for _, s := range Salaries {
		total += s
	}
	return fmt.Sprint(total), fmt.Sprintf("%d,%03d", total/1000, total%1000)
}

// CeilingRules are scripted-model rules answering the ceiling's questions
// as AccessRules does the matrix's.
func CeilingRules() string {
	var b strings.Builder
	for _, c := range []CeilingCase{CeilingWithin, CeilingBeyond, CeilingSalaries, CeilingFollowUp} {
		match := "'(?im)^Question: " + c.Question + `\b'`
		b.WriteString("  - step: classify\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"intent\": \"analytics_query\", \"confidence\": 0.9}'\n")
		b.WriteString("  - step: generate_sql\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"sql\": \"" + c.SQL + "\", \"assumptions\": [], \"explanation\": \"x\"}'\n")
		b.WriteString("  - step: interpret\n    match: " + match + "\n")
		follow, _ := json.Marshal(append([]string{}, c.FollowUps...)) // a list of strings marshals
		b.WriteString("    reply: '{\"answer\": \"" + c.Answer + "\", \"follow_ups\": " + string(follow) + "}'\n")
	}
	return b.String()
}
