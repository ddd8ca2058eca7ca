package bottest

import (
	"fmt"
	"strings"
)

// Row-level security keyed on who asks (docs/security.md) must hold when
// a query claims to be someone else: with the guard off, set_config runs.
// These are the ways a query can set the identity settings before its
// table is read.

// forgeries are queries over the table %[1]s (order_id, customer_email)
// that set analyticsbot.user_email to %[2]s first: in a CTE, in a
// subquery in FROM (both evaluated before the table they feed), in WHERE,
// and with every identity setting, the transaction's own signature
// included.
var forgeries = []string{
	`WITH f AS MATERIALIZED (SELECT set_config('analyticsbot.user_email', '%[2]s', true) AS s)
	 SELECT o.order_id, o.customer_email FROM f CROSS JOIN LATERAL (SELECT order_id, customer_email FROM %[1]s WHERE f.s IS NOT NULL) o ORDER BY 1`,
	`SELECT o.order_id, o.customer_email FROM (SELECT set_config('analyticsbot.user_email', '%[2]s', true) AS s) f,
	 LATERAL (SELECT order_id, customer_email FROM %[1]s WHERE f.s IS NOT NULL) o ORDER BY 1`,
	`SELECT order_id, customer_email FROM %[1]s WHERE set_config('analyticsbot.user_email', '%[2]s', true) IS NOT NULL OR 1 = 1 ORDER BY 1`,
	`SELECT o.order_id, o.customer_email FROM (SELECT set_config('analyticsbot.user_email', '%[2]s', true) || set_config('analyticsbot.user_id', 'U0THER', true)
	 || set_config('analyticsbot.signature', current_setting('analyticsbot.signature', true), true) AS s) f,
	 LATERAL (SELECT order_id, customer_email FROM %[1]s WHERE f.s IS NOT NULL) o ORDER BY 1`,
}

// ForgeryQuestion is the question ForgeryRules answers with the i-th
// forgery ("forged orders 1", …).
func ForgeryQuestion(i int) string { return fmt.Sprintf("forged orders %d", i+1) }

// Forgeries is how many forgeries ForgeryRules answers.
func Forgeries() int { return len(forgeries) }

// ForgeryRules are scripted-model rules that answer ForgeryQuestion(i)
// with the i-th forgery over table, claiming to be email, classified as a
// question and interpreted as "Here are the forged orders.".
func ForgeryRules(table, email string) string {
	var b strings.Builder
	for i, f := range forgeries {
		sql := strings.Join(strings.Fields(fmt.Sprintf(f, table, email)), " ")
		match := "'(?im)^Question: " + ForgeryQuestion(i) + `\b'`
		b.WriteString("  - step: classify\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"intent\": \"analytics_query\", \"confidence\": 0.9}'\n")
		b.WriteString("  - step: generate_sql\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"sql\": \"" + strings.ReplaceAll(sql, "'", "''") + "\", \"assumptions\": [], \"explanation\": \"x\"}'\n")
		b.WriteString("  - step: interpret\n    match: " + match + "\n")
		b.WriteString("    reply: '{\"answer\": \"Here are the forged orders.\"}'\n")
	}
	return b.String()
}
